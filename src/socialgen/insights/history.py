"""The creator's published posts with the engagement each one got, read in one pass.

A post's counts are the latest snapshot of each place it was read from, summed: each
publication it went out through (Bluesky, Mastodon, LinkedIn) and the snapshot an
import carried (no publication). A published post with no snapshot at all was never
measured and is left out: zero likes and "never read" are not the same thing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlmodel import Session

from socialgen.insights import repository


@dataclass(frozen=True)
class PublishedPost:
    """One published post and its latest counts (summed over where it was read)."""

    post_id: str
    content: str
    published_at: datetime  # UTC
    likes: int
    reposts: int
    comments: int
    impressions: int | None  # None when no place it was read from reports them
    has_media: bool

    @property
    def engagement(self) -> int:
        """What every network reports: likes + reposts + comments. A negative count
        (stored before imports and pulls checked them) counts as 0: log1p of a negative
        sum would make every baseline NaN."""
        return max(self.likes, 0) + max(self.reposts, 0) + max(self.comments, 0)


def load_published(
    session: Session,
    workspace_id: str,
    *,
    since: datetime | None = None,
    post_ids: Sequence[str] | None = None,
) -> list[PublishedPost]:
    """The workspace's measured published posts, oldest first."""
    posts = {
        row[0]: row
        for row in repository.published_rows(session, workspace_id, since=since, post_ids=post_ids)
    }
    if not posts:
        return []
    counts = _latest_counts(session, workspace_id, since)
    measured = []
    for post_id, (_, content, published_at, has_media) in posts.items():
        summed = counts.get(post_id)
        if summed is None or published_at is None:
            continue
        likes, reposts, comments, impressions = summed
        measured.append(
            PublishedPost(
                post_id=post_id,
                content=content,
                published_at=published_at,
                likes=likes,
                reposts=reposts,
                comments=comments,
                impressions=impressions,
                has_media=bool(has_media),
            )
        )
    measured.sort(key=lambda post: (post.published_at, post.post_id))
    return measured


def _latest_counts(
    session: Session, workspace_id: str, since: datetime | None
) -> dict[str, tuple[int, int, int, int | None]]:
    """post id -> (likes, reposts, comments, impressions): the newest snapshot of each
    (post, publication-or-import), summed per post."""
    rows = repository.latest_snapshot_rows(session, workspace_id, since)
    summed: dict[str, tuple[int, int, int, int | None]] = {}
    seen: set[tuple[str, str | None]] = set()
    for post_id, publication_id, likes, reposts, comments, impressions in rows:
        if post_id is None or (post_id, publication_id) in seen:
            continue  # two snapshots taken in the same instant: count one
        seen.add((post_id, publication_id))
        before = summed.get(post_id, (0, 0, 0, None))
        shown = before[3] if impressions is None else (before[3] or 0) + impressions
        summed[post_id] = (
            before[0] + likes,
            before[1] + reposts,
            before[2] + comments,
            shown,
        )
    return summed
