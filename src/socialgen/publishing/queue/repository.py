"""The queue's statements: queues, their slots, the posts in them, and which slot
moments are taken. Every function takes the caller's session and never commits.

A queue entry counts only while its post is still scheduled at the entry's moment
(`_standing`): a post moved with `posts schedule`, unscheduled or published by other
means has left the queue, and its entry is stale."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, insert, update
from sqlmodel import Session, col, select

from socialgen.kit.clock import utcnow
from socialgen.store.tables import Post, PostStatus, Publication, PublicationState, SocialAccount
from socialgen.store.tables.queue import PostingQueue, QueueEntry, QueueSlot


def _standing() -> Any:
    """An entry whose post still sits in its slot (joined with Post)."""
    return (col(Post.status) == PostStatus.SCHEDULED) & (
        col(Post.scheduled_at) == col(QueueEntry.due_at)
    )


# --- queues and slots -------------------------------------------------------------------


def queue_of(session: Session, workspace_id: str, account_id: str | None) -> PostingQueue | None:
    account = (
        col(PostingQueue.account_id).is_(None)
        if account_id is None
        else col(PostingQueue.account_id) == account_id
    )
    return session.exec(
        select(PostingQueue).where(col(PostingQueue.workspace_id) == workspace_id, account)
    ).first()


def queues_of(session: Session, workspace_id: str) -> list[PostingQueue]:
    """The workspace's queues, its own first."""
    rows = session.exec(
        select(PostingQueue).where(col(PostingQueue.workspace_id) == workspace_id)
    ).all()
    return sorted(rows, key=lambda queue: (queue.account_id is not None, queue.created_at))


def lock_queue(session: Session, queue_id: str) -> None:
    """Take the queue's row lock (PostgreSQL; SQLite's write transaction is already
    exclusive): two writers placing posts in one queue go one after the other."""
    session.exec(
        select(PostingQueue.id).where(col(PostingQueue.id) == queue_id).with_for_update()
    ).first()


def slots_of(session: Session, queue_id: str) -> list[QueueSlot]:
    return list(
        session.exec(
            select(QueueSlot)
            .where(col(QueueSlot.queue_id) == queue_id)
            .order_by(col(QueueSlot.weekday), col(QueueSlot.minute))
        ).all()
    )


def replace_slots(session: Session, queue_id: str, slots: Sequence[tuple[int, int]]) -> None:
    session.connection().execute(delete(QueueSlot).where(col(QueueSlot.queue_id) == queue_id))
    for weekday, minute in slots:
        session.add(QueueSlot(queue_id=queue_id, weekday=weekday, minute=minute))
    session.flush()


def accounts_by_ids(session: Session, workspace_id: str, ids: Sequence[str]) -> list[SocialAccount]:
    if not ids:
        return []
    return list(
        session.exec(
            select(SocialAccount).where(
                col(SocialAccount.workspace_id) == workspace_id,
                col(SocialAccount.id).in_(list(ids)),
            )
        ).all()
    )


# --- entries ------------------------------------------------------------------------------


def entry_of(session: Session, post_id: str) -> QueueEntry | None:
    return session.get(QueueEntry, post_id)


def standing_entry(session: Session, post_id: str) -> QueueEntry | None:
    """The post's entry, if the post still sits in that slot."""
    return session.exec(
        select(QueueEntry)
        .join(Post, col(Post.id) == col(QueueEntry.post_id))
        .where(col(QueueEntry.post_id) == post_id, _standing())
    ).first()


def drop_entry(session: Session, post_id: str) -> None:
    session.connection().execute(delete(QueueEntry).where(col(QueueEntry.post_id) == post_id))


def put_entry(session: Session, queue_id: str, post_id: str, due_at: datetime) -> None:
    """The post holds this slot moment now (its old entry, anywhere, is replaced).
    Statements, not ORM objects: an entry of the post may be loaded in the session."""
    session.flush()
    session.connection().execute(
        delete(QueueEntry).where(
            (col(QueueEntry.post_id) == post_id)
            | ((col(QueueEntry.queue_id) == queue_id) & (col(QueueEntry.due_at) == due_at))
        )
    )
    session.connection().execute(
        insert(QueueEntry).values(
            post_id=post_id, queue_id=queue_id, due_at=due_at, created_at=utcnow()
        )
    )


def holder_at(session: Session, queue_id: str, due_at: datetime) -> Post | None:
    """The post of the queue standing in this slot moment, if any."""
    return session.exec(
        select(Post)
        .join(QueueEntry, col(Post.id) == col(QueueEntry.post_id))
        .where(
            col(QueueEntry.queue_id) == queue_id,
            col(QueueEntry.due_at) == due_at,
            _standing(),
        )
    ).first()


def move_entry(session: Session, post_id: str, due_at: datetime) -> None:
    session.connection().execute(
        update(QueueEntry).where(col(QueueEntry.post_id) == post_id).values(due_at=due_at)
    )


def standing_entries(
    session: Session,
    queue_id: str,
    *,
    after: datetime | None = None,
    limit: int | None = None,
) -> list[tuple[QueueEntry, Post]]:
    """The queue's posts still in their slots, in slot order (after `after` if given)."""
    query = (
        select(QueueEntry, Post)
        .join(Post, col(Post.id) == col(QueueEntry.post_id))
        .where(col(QueueEntry.queue_id) == queue_id, _standing())
        .order_by(col(QueueEntry.due_at))
    )
    if after is not None:
        query = query.where(col(QueueEntry.due_at) > after)
    if limit is not None:
        query = query.limit(limit)
    return [(entry, post) for entry, post in session.exec(query).all()]


def count_standing(session: Session, queue_id: str) -> int:
    from sqlalchemy import func

    return int(
        session.exec(
            select(func.count())
            .select_from(QueueEntry)
            .join(Post, col(Post.id) == col(QueueEntry.post_id))
            .where(col(QueueEntry.queue_id) == queue_id, _standing())
        ).one()
    )


# --- which slot moments are taken -----------------------------------------------------------


def entry_moments(
    session: Session, queue_id: str, first: datetime, last: datetime | None = None
) -> set[datetime]:
    """The moments from `first` (to `last`) a post of this queue still holds: one range
    of the unique (queue_id, due_at) index, two bound values however long the range."""
    query = (
        select(QueueEntry.due_at)
        .join(Post, col(Post.id) == col(QueueEntry.post_id))
        .where(col(QueueEntry.queue_id) == queue_id, col(QueueEntry.due_at) >= first, _standing())
    )
    if last is not None:
        query = query.where(col(QueueEntry.due_at) <= last)
    # On the connection, not through the ORM: a deep queue is hundreds of rows, and the
    # ORM's work on each was most of the time of placing a post (bench/posting_queue.py).
    return set(session.connection().execute(query).scalars().all())


def scheduled_moments(
    session: Session, workspace_id: str, moments: Sequence[datetime]
) -> set[datetime]:
    """Of `moments`, those a scheduled post of the workspace goes out at (one index
    lookup each: ix_post_workspace_status_timeline; a scheduled post's timeline_at is
    its scheduled_at)."""
    if not moments:
        return set()
    return set(
        session.exec(
            select(Post.timeline_at).where(
                col(Post.workspace_id) == workspace_id,
                col(Post.status) == PostStatus.SCHEDULED,
                col(Post.timeline_at).in_(list(moments)),
            )
        ).all()
    )


def account_moments(
    session: Session, account_id: str, moments: Sequence[datetime]
) -> set[datetime]:
    """Of `moments`, those a queued publication to the account is due at
    (ix_publication_state_due)."""
    if not moments:
        return set()
    return set(
        session.exec(
            select(Publication.due_at).where(
                col(Publication.state) == PublicationState.QUEUED,
                col(Publication.due_at).in_(list(moments)),
                col(Publication.account_id) == account_id,
            )
        ).all()
    )


# --- what the listing shows ------------------------------------------------------------------


def publications_of(
    session: Session, post_ids: Sequence[str]
) -> list[tuple[Publication, SocialAccount]]:
    if not post_ids:
        return []
    return [
        (publication, account)
        for publication, account in session.exec(
            select(Publication, SocialAccount)
            .join(SocialAccount, col(SocialAccount.id) == col(Publication.account_id))
            .where(col(Publication.post_id).in_(list(post_ids)))
        ).all()
    ]


def queued_accounts(session: Session, post_id: str) -> list[str]:
    """The accounts a post is queued to already (its publications waiting to go out),
    in the order they were asked for."""
    rows = session.exec(
        select(Publication).where(
            col(Publication.post_id) == post_id,
            col(Publication.state) == PublicationState.QUEUED,
        )
    ).all()
    return [row.account_id for row in sorted(rows, key=_asked_order)]


def _asked_order(publication: Publication) -> tuple[datetime, int]:
    position = (publication.options or {}).get("position", 0)
    return (publication.created_at, position if isinstance(position, int) else 0)


def touch(session: Session, queue: PostingQueue) -> None:
    queue.updated_at = utcnow()
    session.add(queue)
