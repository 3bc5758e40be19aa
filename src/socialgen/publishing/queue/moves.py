"""Taking a post out of its queue, or moving it, leaving its slot free or closing the gap.

Closing the gap: the queue's later posts each move up one place, into the slot of the
post before them (the first into the slot just left), so the last one's slot is the
one that frees. Every post moves through outbox.service.schedule_post, its queued
publications with it. Only slots still ahead are filled: a post never moves into a
moment that has passed. Never commits.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlmodel import Session

from socialgen.kit.clock import iso, utcnow
from socialgen.kit.errors import BadRequest
from socialgen.posts.service import get_post
from socialgen.publishing.outbox.service import schedule_post, unschedule_post
from socialgen.publishing.queue import repository
from socialgen.publishing.queue.placement import LEAD, placing, taken
from socialgen.publishing.queue.schemas import Shift
from socialgen.publishing.queue.slots import slot_at
from socialgen.store.tables import Post, Publication, SocialAccount
from socialgen.store.tables.queue import PostingQueue, QueueEntry


@dataclass
class Removed:
    post: Post
    dropped: int
    moved: list[Shift] = field(default_factory=list)


@dataclass
class Moved:
    post: Post
    at: datetime
    slot: str | None
    moved: list[Shift]
    rows: list[tuple[Publication, SocialAccount]]


def standing(session: Session, workspace_id: str, post_id: str) -> tuple[Post, QueueEntry]:
    post = get_post(session, workspace_id, post_id)  # 404 for another workspace's post
    entry = repository.standing_entry(session, post.id)
    if entry is None:
        raise BadRequest(
            f"The post is not in the queue (it is {post.status}): "
            "queue it with socialgen posts queue POST_ID"
        )
    return post, entry


def remove(
    session: Session,
    workspace_id: str,
    post_id: str,
    *,
    close_gap: bool = False,
    now: datetime | None = None,
) -> Removed:
    """The post leaves the queue and is a draft again (its queued publications dropped)."""
    post, entry = standing(session, workspace_id, post_id)
    queue = _locked(session, entry)
    post, dropped = unschedule_post(session, workspace_id, post.id)
    repository.drop_entry(session, post.id)
    moved = _close_gap(session, workspace_id, queue, entry.due_at, now) if close_gap else []
    return Removed(post, dropped, moved)


def move(
    session: Session,
    workspace_id: str,
    post_id: str,
    at: datetime,
    *,
    close_gap: bool = False,
    now: datetime | None = None,
) -> Moved:
    """The post goes out at `at` instead. A slot moment of its queue keeps it in the
    queue and must be free; any other time takes it out, scheduled at that time."""
    moment_now = now or utcnow()
    post, entry = standing(session, workspace_id, post_id)
    queue = _locked(session, entry)
    place = placing(session, queue)
    if at <= moment_now:
        raise BadRequest(f"The new time must be in the future (got {iso(at)})")
    slot = slot_at(place.slots, place.zone, at)
    if at == entry.due_at:
        moved: list[Shift] = []
    else:
        if slot is not None and at in taken(session, place, [at]):
            raise BadRequest(_taken_message(session, queue, at))
        hole = entry.due_at
        repository.drop_entry(session, post.id)
        moved = _close_gap(session, workspace_id, queue, hole, moment_now) if close_gap else []
    post, rows = schedule_post(session, workspace_id, post.id, at)
    if slot is not None:
        repository.put_entry(session, queue.id, post.id, at)
    return Moved(post, at, slot.label if slot else None, moved, rows)


def _close_gap(
    session: Session,
    workspace_id: str,
    queue: PostingQueue,
    hole: datetime,
    now: datetime | None,
) -> list[Shift]:
    if hole <= (now or utcnow()) + LEAD:
        return []  # the slot has passed (or is upon us): no post moves into it
    moved: list[Shift] = []
    free = hole
    for entry, later in repository.standing_entries(session, queue.id, after=hole):
        old = entry.due_at
        schedule_post(session, workspace_id, later.id, free)
        repository.move_entry(session, later.id, free)
        moved.append(Shift(postId=later.id, fromAt=iso(old), toAt=iso(free)))
        free = old
    return moved


def _locked(session: Session, entry: QueueEntry) -> PostingQueue:
    queue = session.get(PostingQueue, entry.queue_id)
    assert queue is not None  # the entry's foreign key
    repository.lock_queue(session, queue.id)
    return queue


def _taken_message(session: Session, queue: PostingQueue, at: datetime) -> str:
    from socialgen.store.refs import opening

    holder = repository.holder_at(session, queue.id, at)
    if holder is not None:
        return (
            f"That slot ({iso(at)}) is taken by post {holder.id} "
            f"({opening(holder.content)!r}): move that one first, or choose a free slot"
        )
    return f"Another post already goes out at {iso(at)}: choose a free slot"
