"""The statements a history pull (history.py) writes with: the account's row held,
its publications found by remote id, their latest counts, the counts written back.
Every function takes the caller's session and never commits. Lookups go in batches
of LOOKUP_BATCH ids per IN (...)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import bindparam, func, update
from sqlalchemy import select as columns
from sqlmodel import Session, col, select

from socialgen.store.bulk import table_of
from socialgen.store.tables import (
    MetricSnapshot,
    Post,
    Publication,
    PublicationState,
    SocialAccount,
)

LOOKUP_BATCH = 500  # remote ids per IN (...) query


def hold_account(session: Session, account_id: str) -> SocialAccount | None:
    """The account, its row locked until the transaction ends (FOR UPDATE on
    PostgreSQL; SQLite's write transaction is exclusive already)."""
    return session.exec(
        select(SocialAccount).where(col(SocialAccount.id) == account_id).with_for_update()
    ).first()


def by_remote_id(
    session: Session, account_id: str, remote_ids: Sequence[str]
) -> list[tuple[str | None, str, str, list[str] | None]]:
    """(remote id, publication id, post id, part ids) of the account's publications
    among `remote_ids`."""
    found: list[tuple[str | None, str, str, list[str] | None]] = []
    for start in range(0, len(remote_ids), LOOKUP_BATCH):
        batch = list(remote_ids[start : start + LOOKUP_BATCH])
        rows = session.execute(
            select(
                col(Publication.remote_id),
                col(Publication.id),
                col(Publication.post_id),
                col(Publication.part_ids),
            ).where(
                col(Publication.account_id) == account_id,
                col(Publication.remote_id).in_(batch),
            )
        ).all()
        found += [(remote_id, pid, post_id, parts) for remote_id, pid, post_id, parts in rows]
    return found


def latest_counts(
    session: Session, publication_ids: Sequence[str], *, published_posts: bool = False
) -> dict[str, tuple[str, int, int, int]]:
    """publication id -> (post id, likes, reposts, comments) of its newest snapshot.
    With `published_posts`, the ids are post ids: every published publication of them."""
    found: dict[str, tuple[str, int, int, int]] = {}
    for start in range(0, len(publication_ids), LOOKUP_BATCH):
        batch = list(publication_ids[start : start + LOOKUP_BATCH])
        chosen = (
            (col(Publication.post_id).in_(batch))
            & (col(Publication.state) == PublicationState.PUBLISHED)
            if published_posts
            else col(Publication.id).in_(batch)
        )
        newest = (
            select(
                col(MetricSnapshot.publication_id).label("publication_id"),
                func.max(MetricSnapshot.taken_at).label("taken_at"),
            )
            .join(Publication, col(Publication.id) == col(MetricSnapshot.publication_id))
            .where(chosen)
            .group_by(col(MetricSnapshot.publication_id))
            .subquery()
        )
        rows = session.execute(
            columns(  # sqlmodel's select takes at most four columns
                col(Publication.id),
                col(Publication.post_id),
                col(MetricSnapshot.likes),
                col(MetricSnapshot.reposts),
                col(MetricSnapshot.comments),
            )
            .join(Publication, col(Publication.id) == col(MetricSnapshot.publication_id))
            .join(
                newest,
                (col(MetricSnapshot.publication_id) == newest.c.publication_id)
                & (col(MetricSnapshot.taken_at) == newest.c.taken_at),
            )
        ).all()
        for publication_id, post_id, likes, reposts, comments in rows:
            found[publication_id] = (post_id, likes, reposts, comments)  # a tie: either
    return found


def mark_read(session: Session, publication_ids: Sequence[str], now: datetime) -> None:
    """The publications' metrics were read at `now` (one statement, many rows)."""
    session.connection().execute(
        update(table_of(Publication))
        .where(table_of(Publication).c.id == bindparam("publication_id"))
        .values(metrics_at=now),
        [{"publication_id": publication_id} for publication_id in publication_ids],
    )


def set_post_counts(session: Session, totals: dict[str, tuple[int, int]]) -> None:
    """post id -> (likes, comments): the posts' counts columns (one statement)."""
    session.connection().execute(
        update(table_of(Post))
        .where(table_of(Post).c.id == bindparam("post_id"))
        .values(likes=bindparam("likes"), comments=bindparam("comments")),
        [{"post_id": k, "likes": v[0], "comments": v[1]} for k, v in totals.items()],
    )
