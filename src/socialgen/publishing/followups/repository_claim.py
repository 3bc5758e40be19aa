"""The follow-up claim's statements (claim.py, worker.py, service.py's queueing): which
rows are due, taking them, writing the network's answer while the claim stands, and
adding a state row once. Every function takes the caller's session and never
commits; the writes that record an answer are conditional on the worker still
holding the row, as the outbox's are (publishing/outbox/repository_claim.py)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, exists, or_, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col, select

from socialgen.kit.ids import new_id
from socialgen.store.tables import (
    FollowupPublication,
    FollowupState,
    Post,
    PostFollowup,
    Publication,
    SocialAccount,
)

Claimable = tuple[FollowupPublication, PostFollowup, Publication, SocialAccount]


def _due(now: datetime) -> ColumnElement[bool]:
    return and_(
        col(FollowupPublication.state) == FollowupState.QUEUED,
        col(FollowupPublication.due_at) <= now,
        or_(
            col(FollowupPublication.next_attempt_at).is_(None),
            col(FollowupPublication.next_attempt_at) <= now,
        ),
    )


def _expired(now: datetime) -> ColumnElement[bool]:
    return and_(
        col(FollowupPublication.state) == FollowupState.PUBLISHING,
        col(FollowupPublication.claimed_until) < now,
    )


def due(now: datetime) -> ColumnElement[bool]:
    """Whether a follow-up is due or a lease ended: an EXISTS on the (state, due_at)
    index that the scheduler's one look (outbox/claim.py anything_due) adds to its own."""
    return exists().where(or_(_due(now), _expired(now)))


def claimable(
    session: Session,
    now: datetime,
    limit: int,
    publication_ids: Sequence[str] | None,
    workspace_id: str | None,
) -> list[Claimable]:
    """Up to `limit` due rows or ended leases, oldest due first, with the follow-up,
    the publication they go under and its account. PostgreSQL locks them, skipping
    those another worker's claim holds; SQLite's write transaction is exclusive."""
    statement = (
        select(FollowupPublication, PostFollowup, Publication, SocialAccount)
        .join(PostFollowup, col(PostFollowup.id) == col(FollowupPublication.followup_id))
        .join(Publication, col(Publication.id) == col(FollowupPublication.publication_id))
        .join(SocialAccount, col(SocialAccount.id) == col(Publication.account_id))
        .where(or_(_due(now), _expired(now)))
        .order_by(col(FollowupPublication.due_at))
        .limit(limit)
    )
    if publication_ids is not None:
        statement = statement.where(
            col(FollowupPublication.publication_id).in_(list(publication_ids))
        )
    if workspace_id is not None:
        statement = statement.where(col(FollowupPublication.workspace_id) == workspace_id)
    if session.get_bind().dialect.name == "postgresql":
        statement = statement.with_for_update(skip_locked=True, of=FollowupPublication)
    return list(session.exec(statement).all())


def record_answer(session: Session, row_id: str, worker_id: str, values: dict[str, Any]) -> bool:
    """Write `values` if `worker_id`'s claim on the row stands; whether it did."""
    written = session.connection().execute(
        update(FollowupPublication)
        .where(
            col(FollowupPublication.id) == row_id,
            col(FollowupPublication.claimed_by) == worker_id,
            col(FollowupPublication.state) == FollowupState.PUBLISHING,
        )
        .values(**values)
    )
    return bool(getattr(written, "rowcount", 0))


def insert_state(
    session: Session, followup: PostFollowup, publication_id: str, due: datetime, now: datetime
) -> bool:
    """A queued state row of `followup` under the publication, unless it has one
    (INSERT ... ON CONFLICT DO NOTHING on the unique pair: two readers of the same
    metrics, or a race with the creator, add it once); whether this call added it."""
    values = {
        "id": new_id(),
        "workspace_id": followup.workspace_id,
        "followup_id": followup.id,
        "publication_id": publication_id,
        "state": FollowupState.QUEUED,
        "due_at": due,
        "attempts": 0,
        "sent_text": "",
        "posted_parts": [],
        "message": "",
        "created_at": now,
        "updated_at": now,
    }
    insert = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    statement = (
        insert(FollowupPublication)
        .values(**values)
        .on_conflict_do_nothing(index_elements=["followup_id", "publication_id"])
    )
    result = session.connection().execute(statement)
    return bool(getattr(result, "rowcount", 0))


def lock_post(session: Session, post_id: str) -> None:
    """The post's row lock (PostgreSQL; SQLite's write transaction is exclusive), which
    the outbox's recorder takes too: a first comment set while a publication goes live
    is queued by one of the two, never missed by both."""
    session.exec(select(Post.id).where(col(Post.id) == post_id).with_for_update()).first()
