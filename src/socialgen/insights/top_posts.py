"""The creator's best posts by relative engagement: what a style learned from the
creator's own numbers is taught with (`style create NAME --from-top N`)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session

from socialgen.insights.history import load_published
from socialgen.insights.relative import relative_scores
from socialgen.kit.errors import BadRequest
from socialgen.kit.limits import MAX_POST_CHARS


@dataclass(frozen=True)
class TopPost:
    post_id: str
    content: str
    engagement: int
    score: float  # log1p(engagement) minus the rolling median of its neighbours


def best_posts(session: Session, workspace_id: str, count: int, *, asked_as: str) -> list[TopPost]:
    """The `count` measured published posts that beat their own period by the most,
    best first; a 400 naming how many there are when fewer than `count` exist.
    `asked_as`: how the caller named the number ("--from-top", "fromTop")."""
    published = load_published(session, workspace_id)
    scores = relative_scores(published)
    # Every measured post counts toward its neighbours' baseline, but only a text that
    # can be a style example (not blank, within the post limit) can be picked, once.
    candidates: dict[str, TopPost] = {}
    for post in published:
        text = post.content.strip()
        if not text or len(text) > MAX_POST_CHARS:
            continue
        scored = TopPost(post.post_id, text, post.engagement, scores[post.post_id])
        kept = candidates.get(text)
        if kept is None or scored.score > kept.score:
            candidates[text] = scored
    if len(candidates) < count:
        raise BadRequest(
            f"{asked_as} {count} needs {count} measured published posts and this workspace "
            f"has {len(candidates)}: a published post counts once its likes, reposts and "
            "comments have been read back from its network or imported"
        )
    ranked = sorted(candidates.values(), key=lambda post: (-post.score, post.post_id))
    return ranked[:count]
