"""Drafts ranked by the creator's own ranker: the service behind `socialgen insights
rank`, `POST /api/v1/insights/{workspaceId}/rank` and the order a batch is shown in.

Training takes a moment on a long history, so a trained ranker is kept per workspace
until the history changes (a post published or measured again), in the `Rankers` the
caller hands in (its Runtime's: `runtime.held.rankers`, a `kept.Kept`). numpy and
scikit-learn load only when a ranker is trained: `ranking_of_batch` checks the
history's size first, so generation stays as fast as before for a creator without one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sqlmodel import Session

from socialgen.insights import repository
from socialgen.insights.history import PublishedPost, load_published
from socialgen.insights.ranker_features import PostText
from socialgen.insights.schemas import RankedDrafts, RankedPost
from socialgen.kit.errors import BadRequest, NotFound
from socialgen.kit.limits import MAX_RANKED_POSTS
from socialgen.posts.service import POST_NOT_FOUND

if TYPE_CHECKING:
    from socialgen.insights.ranker import Ranker
    from socialgen.kit.kept import Kept

    # Trained rankers by (workspace, hash of the history they learnt from).
    Rankers = Kept[tuple[str, int], Ranker]

# Below this many measured posts no ranker can be confident (its newest fifth would hold
# too few pairs to measure it): a batch is shown in its own order, without training.
BATCH_RANKING_FLOOR = 60
NO_POST_IDS = "Give at least one post id to rank"
TOO_MANY_POST_IDS = f"At most {MAX_RANKED_POSTS} posts can be ranked at once"


def rank_posts(
    session: Session, workspace_id: str, post_ids: Sequence[str], rankers: Rankers
) -> RankedDrafts:
    """The posts of `post_ids` (drafts or any other post of the workspace), best first,
    with how far to trust the order. 400 for no ids or too many, 404 for an unknown one."""
    wanted = list(dict.fromkeys(post_ids))  # a repeated id is ranked once
    if not wanted:
        raise BadRequest(NO_POST_IDS)
    if len(wanted) > MAX_RANKED_POSTS:
        raise BadRequest(TOO_MANY_POST_IDS)
    found = {
        post.id: PostText(
            post.content, bool(post.carousel or post.custom_image or post.infographic)
        )
        for post in repository.posts_in(session, workspace_id, wanted)
    }
    if len(found) != len(wanted):
        raise NotFound(POST_NOT_FOUND)
    history = load_published(session, workspace_id)
    ranker = ranker_for(rankers, workspace_id, history)
    drafts = [found[post_id] for post_id in wanted]
    return answer(ranker, list(zip(wanted, ranker.score(drafts), strict=True)))


def ranking_of_batch(
    session: Session, workspace_id: str, drafts: Sequence[tuple[str, str]], rankers: Rankers
) -> dict[str, Any] | None:
    """(post id, content) of a batch's new drafts -> the batch_complete `ranking`
    (order best first, scores, heldOutAccuracy, pairs), or None when the ranker is not
    confident (or there is too little history to try)."""
    if len(drafts) < 2:
        return None
    history = load_published(session, workspace_id)
    if len(history) < BATCH_RANKING_FLOOR:
        return None
    ranker = ranker_for(rankers, workspace_id, history)
    if not ranker.confident or ranker.held_out_accuracy is None:
        return None
    scores = ranker.score([PostText(content, False) for _, content in drafts])
    ranked = answer(ranker, list(zip((post_id for post_id, _ in drafts), scores, strict=True)))
    return {
        "order": [row.postId for row in ranked.ranked],
        "scores": {row.postId: row.score for row in ranked.ranked},
        "heldOutAccuracy": ranked.heldOutAccuracy,
        "pairs": ranked.pairs,
    }


def answer(ranker: Ranker, scored: list[tuple[str, float]]) -> RankedDrafts:
    """The answer: best first (a stable sort keeps the given order on a tie)."""
    ordered = sorted(scored, key=lambda row: -row[1])
    accuracy = ranker.held_out_accuracy
    return RankedDrafts(
        ranked=[RankedPost(postId=post_id, score=round(score, 3)) for post_id, score in ordered],
        confident=ranker.confident,
        heldOutAccuracy=None if accuracy is None else round(accuracy, 3),
        pairs=ranker.held_out_pairs,
        posts=ranker.posts,
    )


def ranker_for(rankers: Rankers, workspace_id: str, history: list[PublishedPost]) -> Ranker:
    """The workspace's ranker for this history, trained once per history (and kept in
    `rankers`)."""
    from socialgen.insights.ranker import train_ranker

    key = (workspace_id, hash(tuple((post.post_id, post.engagement) for post in history)))
    return rankers.get_or_make(key, lambda: train_ranker(history))
