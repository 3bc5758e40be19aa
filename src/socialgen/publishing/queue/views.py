"""The services' results as the views every face answers (schemas.py)."""

from __future__ import annotations

from sqlmodel import Session

from socialgen.kit.clock import iso
from socialgen.publishing.outbox.service import views
from socialgen.publishing.queue.moves import Moved, Removed
from socialgen.publishing.queue.schemas import MovedData, QueuedData, QueueRef, RemovedData
from socialgen.publishing.queue.service import Queued
from socialgen.store.tables import SocialAccount
from socialgen.store.tables.queue import PostingQueue


def queued_data(session: Session, queued: Queued) -> QueuedData:
    return QueuedData(
        postId=queued.post.id,
        status=queued.post.status,
        scheduledAt=iso(queued.at),
        slot=queued.slot,
        queue=queue_ref(session, queued.place.queue),
        publications=views(queued.rows),
    )


def queue_ref(session: Session, queue: PostingQueue) -> QueueRef:
    account = session.get(SocialAccount, queue.account_id) if queue.account_id else None
    return QueueRef(
        accountId=queue.account_id,
        account=account.handle if account else None,
        network=account.network if account else None,
        timezone=queue.timezone,
    )


def removed_data(removed: Removed) -> RemovedData:
    return RemovedData(
        postId=removed.post.id,
        status=removed.post.status,
        droppedPublications=removed.dropped,
        moved=removed.moved,
    )


def moved_data(moved: Moved) -> MovedData:
    return MovedData(
        postId=moved.post.id,
        scheduledAt=iso(moved.at),
        inQueue=moved.slot is not None,
        slot=moved.slot,
        moved=moved.moved,
        publications=views(moved.rows),
    )
