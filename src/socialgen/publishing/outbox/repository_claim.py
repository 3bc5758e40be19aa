"""The claim's statements (claim.py, keeper.py, worker.py): which rows are due, taking
them, keeping them, giving them back and writing the network's answer. Every
function takes the caller's session (its transaction decides what is atomic, see
claim.py) and never commits. The writes are conditional UPDATEs: each names the
worker that must still hold the row, and says how many rows it changed."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, exists, func, or_, update
from sqlalchemy.orm import aliased
from sqlmodel import Session, col, select

from socialgen.store.tables import Post, Publication, PublicationState, SocialAccount


def _due(now: datetime) -> ColumnElement[bool]:
    return and_(
        col(Publication.state) == PublicationState.QUEUED,
        col(Publication.due_at) <= now,
        or_(col(Publication.next_attempt_at).is_(None), col(Publication.next_attempt_at) <= now),
    )


def _expired(now: datetime) -> ColumnElement[bool]:
    return and_(
        col(Publication.state) == PublicationState.PUBLISHING,
        col(Publication.claimed_until) < now,
    )


def anything_due(session: Session, now: datetime, *more: ColumnElement[bool]) -> bool:
    """One statement, reads only: an EXISTS per index range scan on (state, due_at),
    one for due rows and one for expired claims, and the `more` a caller adds (the
    follow-ups' own, on their table's index), each stopping at its first row."""
    checks = [exists().where(_due(now)), exists().where(_expired(now)), *more]
    return bool(session.exec(select(or_(*checks))).one())


def claimable(
    session: Session,
    now: datetime,
    limit: int,
    only_ids: Sequence[str] | None,
    workspace_id: str | None,
) -> list[tuple[Publication, SocialAccount, Post, int]]:
    """Up to `limit` due rows or expired claims, oldest due first, each with its
    account, its post and how many publications the post has. On PostgreSQL the rows
    are locked, skipping those another worker's claim transaction holds (FOR UPDATE
    SKIP LOCKED); SQLite's write transaction is exclusive already."""
    other = aliased(Publication)
    siblings = select(func.count()).where(other.post_id == Publication.post_id).scalar_subquery()
    statement = (
        select(Publication, SocialAccount, Post, siblings)
        .join(SocialAccount, col(SocialAccount.id) == col(Publication.account_id))
        .join(Post, col(Post.id) == col(Publication.post_id))
        .where(or_(_due(now), _expired(now)))
        .order_by(col(Publication.due_at))
        .limit(limit)
    )
    if only_ids is not None:
        statement = statement.where(col(Publication.id).in_(list(only_ids)))
    if workspace_id is not None:
        statement = statement.where(col(Publication.workspace_id) == workspace_id)
    if session.get_bind().dialect.name == "postgresql":
        statement = statement.with_for_update(skip_locked=True, of=Publication)
    return list(session.exec(statement).all())


def mark_claimed(
    session: Session, ids: Sequence[str], worker_id: str, until: datetime, now: datetime
) -> None:
    """The rows `claimable` found (and still locks) become this worker's, one more
    attempt each, until `until`."""
    session.connection().execute(
        update(Publication)
        .where(col(Publication.id).in_(list(ids)))
        .values(
            state=PublicationState.PUBLISHING,
            attempts=col(Publication.attempts) + 1,
            claimed_by=worker_id,
            claimed_until=until,
            next_attempt_at=None,
            updated_at=now,
        )
    )


def give_back(session: Session, publication_id: str, worker_id: str, attempts: int) -> None:
    """A claim not started: queued again with `attempts`, if still `worker_id`'s."""
    session.connection().execute(
        update(Publication)
        .where(
            col(Publication.id) == publication_id,
            col(Publication.claimed_by) == worker_id,
            col(Publication.state) == PublicationState.PUBLISHING,
        )
        .values(
            state=PublicationState.QUEUED,
            attempts=attempts,
            claimed_by=None,
            claimed_until=None,
        )
    )


def extend_claims(
    session: Session, ids: Sequence[str], worker_id: str, until: datetime
) -> set[str]:
    """Push the end of the claims among `ids` still `worker_id`'s to `until`; the ids
    it pushed (the others were taken over)."""
    return set(
        session.connection()
        .execute(
            update(Publication)
            .where(
                col(Publication.id).in_(list(ids)),
                col(Publication.claimed_by) == worker_id,
                col(Publication.state) == PublicationState.PUBLISHING,
            )
            .values(claimed_until=until)
            .returning(col(Publication.id))
        )
        .scalars()
    )


def claimed_row(
    session: Session, publication_id: str
) -> tuple[Publication, SocialAccount, Post] | None:
    """A publication with its account and post."""
    return session.exec(
        select(Publication, SocialAccount, Post)
        .join(SocialAccount, col(SocialAccount.id) == col(Publication.account_id))
        .join(Post, col(Post.id) == col(Publication.post_id))
        .where(col(Publication.id) == publication_id)
    ).first()


def record_answer(
    session: Session, publication_id: str, worker_id: str, values: dict[str, Any]
) -> bool:
    """Write `values` on the publication if `worker_id`'s claim on it stands; whether
    it did (False: the row is gone or another worker took it over)."""
    written = session.connection().execute(
        update(Publication)
        .where(
            col(Publication.id) == publication_id,
            col(Publication.claimed_by) == worker_id,
            col(Publication.state) == PublicationState.PUBLISHING,
        )
        .values(**values)
    )
    return bool(getattr(written, "rowcount", 0))
