"""The counts the store holds for a workspace's posts: the newest metrics snapshot of
each place a post was read from (each publication it went out through, and the one an
import brought, tied to no publication). `posts export` writes their sums, `posts
stats` shows them, so both say what insights count (insights/history.py).

Every function takes the caller's session, is scoped to one workspace and never
commits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlmodel import Session, col

from socialgen.posts.export_item import Counts
from socialgen.store.tables import MetricSnapshot, Post


@dataclass(frozen=True, slots=True)
class Reading:
    """The newest snapshot of one post from one place (`publication_id` None: an
    import's)."""

    post_id: str
    publication_id: str | None
    taken_at: datetime
    likes: int
    reposts: int
    comments: int
    impressions: int | None


def latest_readings(
    session: Session, workspace_id: str, post_ids: Sequence[str] | None = None
) -> list[Reading]:
    """The newest snapshot of each (post, publication-or-import) of the workspace's
    posts (among `post_ids` when given), one per pair even when two were taken in the
    same instant. Two queries' worth of work in one statement, whatever the count."""
    newest: Any = (
        select(
            col(MetricSnapshot.post_id).label("post_id"),
            col(MetricSnapshot.publication_id).label("publication_id"),
            func.max(MetricSnapshot.taken_at).label("taken_at"),
        )
        .join(Post, col(Post.id) == col(MetricSnapshot.post_id))
        .where(col(Post.workspace_id) == workspace_id)
        .group_by(col(MetricSnapshot.post_id), col(MetricSnapshot.publication_id))
    )
    if post_ids is not None:
        newest = newest.where(col(Post.id).in_(list(post_ids)))
    latest = newest.subquery()
    rows = session.execute(
        select(
            col(MetricSnapshot.post_id),
            col(MetricSnapshot.publication_id),
            col(MetricSnapshot.taken_at),
            col(MetricSnapshot.likes),
            col(MetricSnapshot.reposts),
            col(MetricSnapshot.comments),
            col(MetricSnapshot.impressions),
        ).join(
            latest,
            (col(MetricSnapshot.post_id) == latest.c.post_id)
            & (col(MetricSnapshot.taken_at) == latest.c.taken_at)
            # IS for the import's snapshot, whose publication is NULL on both sides.
            & col(MetricSnapshot.publication_id).is_not_distinct_from(latest.c.publication_id),
        )
    ).all()
    readings: list[Reading] = []
    seen: set[tuple[str, str | None]] = set()
    for post_id, publication_id, taken_at, likes, reposts, comments, impressions in rows:
        if post_id is None or (post_id, publication_id) in seen:
            continue  # two snapshots taken in the same instant: count one
        seen.add((post_id, publication_id))
        readings.append(
            Reading(post_id, publication_id, taken_at, likes, reposts, comments, impressions)
        )
    return readings


def summed_counts(readings: Sequence[Reading]) -> dict[str, Counts]:
    """post id -> its readings summed (impressions None when no place reports them);
    a post with no reading is not in it: it was never measured."""
    summed: dict[str, Counts] = {}
    for reading in readings:
        before = summed.get(reading.post_id, Counts(0, 0, 0, None))
        shown = before.impressions
        if reading.impressions is not None:
            shown = (shown or 0) + reading.impressions
        summed[reading.post_id] = Counts(
            before.likes + reading.likes,
            before.reposts + reading.reposts,
            before.comments + reading.comments,
            shown,
        )
    return summed
