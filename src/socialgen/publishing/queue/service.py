"""The posting queue: its slots, and putting a post in the next free one.

A queued post is an ordinary scheduled post at its slot's moment, with its
publications queued in the outbox for that moment (outbox.service.schedule_post):
the scheduler and `publish-due` claim and publish it as any other, exactly once. The
queue adds only which slot it holds (a QueueEntry). Never commits: the caller's
transaction does.

Which queue: an account's own, when the post goes to exactly one account and that
account has slots; else the workspace's. Which accounts: those named; else the
post's own already chosen (its queued publications); else the workspace queue's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time

from sqlmodel import Session

from socialgen.config.zone import resolve_zone
from socialgen.kit.clock import iso, utcnow
from socialgen.kit.errors import BadRequest, NotFound
from socialgen.posts.service import get_post
from socialgen.publishing.accounts.service import get_account
from socialgen.publishing.outbox.service import schedule_post
from socialgen.publishing.queue import repository
from socialgen.publishing.queue.placement import Placing, free_slots, placing
from socialgen.publishing.queue.schemas import QueueAccount, SlotsView
from socialgen.publishing.queue.slots import Slot, check_count, parse_slots, per_day_counts
from socialgen.publishing.queue.slots import slot_at as slot_of_moment
from socialgen.store.tables import Post, PostStatus, Publication, SocialAccount
from socialgen.store.tables.queue import PostingQueue


@dataclass(frozen=True)
class Queued:
    post: Post
    at: datetime
    slot: str
    place: Placing
    rows: list[tuple[Publication, SocialAccount]]


# --- queues and their slots -------------------------------------------------------------


def account_of(session: Session, workspace_id: str, ref: str | None) -> SocialAccount | None:
    return None if ref is None else get_account(session, workspace_id, ref)


def set_slots(
    session: Session,
    workspace_id: str,
    slots: str | Sequence[str] | Sequence[Slot],
    *,
    zone: str,
    account_ref: str | None = None,
    per_day: int | None = None,
    account_refs: Sequence[str] | None = None,
) -> PostingQueue:
    """The queue's weekly slots become `slots`, wall times in `zone`. Posts already in
    the queue keep their moments. `per_day` (kept when None) caps the slots of any day;
    `account_refs` (kept when None) are the workspace queue's accounts."""
    chosen = _slots(slots)
    resolve_zone(zone)  # an unknown zone is a 400 before anything is written
    account = account_of(session, workspace_id, account_ref)
    if account is not None and account_refs:
        raise BadRequest("An account's queue publishes to that account: name no other accounts")
    queue = repository.queue_of(session, workspace_id, account.id if account else None)
    limit = per_day if per_day is not None else (queue.per_day if queue else None)
    if limit is not None:
        check_per_day(chosen, limit)
    if queue is None:
        queue = PostingQueue(
            workspace_id=workspace_id, account_id=account.id if account else None, timezone=zone
        )
    queue.timezone = zone
    queue.per_day = limit
    if account_refs is not None:
        accounts = [get_account(session, workspace_id, ref) for ref in account_refs]
        queue.account_ids = list(dict.fromkeys(found.id for found in accounts))
    repository.touch(session, queue)
    session.flush()
    repository.replace_slots(session, queue.id, [(slot.weekday, slot.minute) for slot in chosen])
    return queue


def _slots(slots: str | Sequence[str] | Sequence[Slot]) -> list[Slot]:
    if isinstance(slots, str):
        return parse_slots(slots)
    if all(isinstance(slot, Slot) for slot in slots):
        return check_count(sorted({slot for slot in slots if isinstance(slot, Slot)}))
    return parse_slots(", ".join(str(slot) for slot in slots))


def check_per_day(slots: Sequence[Slot], per_day: int) -> None:
    from socialgen.publishing.queue.slots import WEEKDAYS

    over = {day: n for day, n in per_day_counts(slots).items() if n > per_day}
    if over:
        days = ", ".join(f"{WEEKDAYS[day]} has {n}" for day, n in sorted(over.items()))
        raise BadRequest(
            f"More slots than your {per_day} post(s) a day: {days}. Remove some, or raise "
            "--per-day (perDay)"
        )


def clear_slots(session: Session, workspace_id: str, account_ref: str | None = None) -> int:
    """Remove the queue (its slots and its settings). Its posts stay scheduled at their
    moments, as posts scheduled by hand. Returns how many posts were in it."""
    account = account_of(session, workspace_id, account_ref)
    queue = repository.queue_of(session, workspace_id, account.id if account else None)
    if queue is None:
        raise NotFound("No queue to clear: it has no slots")
    held = repository.count_standing(session, queue.id)
    session.delete(queue)
    session.flush()
    return held


def queue_view(session: Session, queue: PostingQueue, now: datetime | None = None) -> SlotsView:
    place = placing(session, queue)
    account = session.get(SocialAccount, queue.account_id) if queue.account_id else None
    defaults = repository.accounts_by_ids(session, queue.workspace_id, queue.account_ids)
    order = {account_id: index for index, account_id in enumerate(queue.account_ids)}
    nexts = free_slots(session, place, now or utcnow()) if place.slots else []
    return SlotsView(
        accountId=queue.account_id,
        account=account.handle if account else None,
        network=account.network if account else None,
        timezone=queue.timezone,
        slots=[slot.label for slot in place.slots],
        perDay=queue.per_day,
        accounts=[
            QueueAccount(accountId=row.id, network=row.network, account=row.handle)
            for row in sorted(defaults, key=lambda row: order.get(row.id, 0))
        ],
        nextFreeAt=iso(nexts[0]) if nexts else None,
        queued=repository.count_standing(session, queue.id),
    )


def queues(
    session: Session, workspace_id: str, account_ref: str | None = None
) -> list[PostingQueue]:
    """The workspace's queues (only the account's own with `account_ref`)."""
    if account_ref is None:
        return repository.queues_of(session, workspace_id)
    account = get_account(session, workspace_id, account_ref)
    queue = repository.queue_of(session, workspace_id, account.id)
    return [] if queue is None else [queue]


# --- putting a post in the queue ----------------------------------------------------------


def queue_post(
    session: Session,
    workspace_id: str,
    post_id: str,
    account_refs: Sequence[str] = (),
    *,
    number_parts: bool = False,
    now: datetime | None = None,
) -> Queued:
    """Put the post in its queue's next free slot (a post already standing in that
    queue keeps its slot and only gains the accounts named). Refused for a published
    post, one being published, or a queue without slots."""
    moment_now = now or utcnow()
    post = get_post(session, workspace_id, post_id)
    named = [get_account(session, workspace_id, ref) for ref in account_refs]
    queue = _queue_for(session, workspace_id, post.id, named)
    repository.lock_queue(session, queue.id)
    place = placing(session, queue)
    # Only a scheduled post can be standing in a slot (a draft needs no look).
    scheduled = post.status == PostStatus.SCHEDULED
    entry = repository.standing_entry(session, post.id) if scheduled else None
    if entry is not None and entry.queue_id == queue.id and entry.due_at > moment_now:
        at = entry.due_at
    else:
        at = free_slots(session, place, moment_now)[0]
    # Accounts are passed on only when new: the post's queued publications follow it
    # to `at` anyway, keeping their own options (numbered parts).
    refs = [account.id for account in named] or _defaults(session, queue, post.id)
    if number_parts and not refs:  # numbering is asked of the accounts it already has
        refs = repository.queued_accounts(session, post.id)
    post, rows = schedule_post(session, workspace_id, post.id, at, refs, number_parts=number_parts)
    repository.put_entry(session, queue.id, post.id, at)
    slot = slot_of_moment(place.slots, place.zone, at)
    return Queued(post, at, slot.label if slot else "", place, rows)


def _queue_for(
    session: Session, workspace_id: str, post_id: str, named: Sequence[SocialAccount]
) -> PostingQueue:
    ids = [account.id for account in named] or repository.queued_accounts(session, post_id)
    if len(set(ids)) == 1:
        own = repository.queue_of(session, workspace_id, ids[0])
        if own is not None:  # a stored queue has slots (clearing them removes it)
            return own
    queue = repository.queue_of(session, workspace_id, None)
    if queue is None:
        raise BadRequest(
            "No posting slots for the workspace: set them first, e.g. "
            'socialgen queue slots set "Tue 08:30, Thu 08:30, Sat 10:00"'
        )
    return queue


def _defaults(session: Session, queue: PostingQueue, post_id: str) -> list[str]:
    """The queue's accounts for a post that has none yet (its own account for an
    account's queue); none for a post already queued to some."""
    if repository.queued_accounts(session, post_id):
        return []
    if queue.account_id is not None:
        return [queue.account_id]
    found = repository.accounts_by_ids(session, queue.workspace_id, queue.account_ids)
    known = {account.id for account in found}
    return [account_id for account_id in queue.account_ids if account_id in known]


def queue_at(
    session: Session, workspace_id: str, post_id: str, at: datetime, now: datetime | None = None
) -> Queued:
    """Put the post in the workspace queue's slot at `at` if it is still free (the
    calendar chose it), else in the next free one."""
    from socialgen.publishing.queue.placement import is_free

    queue = repository.queue_of(session, workspace_id, None)
    if queue is None:
        raise BadRequest(
            'No posting slots for the workspace: socialgen queue slots set "Tue 08:30"'
        )
    repository.lock_queue(session, queue.id)
    place = placing(session, queue)
    moment_now = now or utcnow()
    ok = at > moment_now and slot_of_moment(place.slots, place.zone, at) is not None
    if not (ok and is_free(session, place, at)):
        at = free_slots(session, place, moment_now)[0]
    post, rows = schedule_post(
        session, workspace_id, post_id, at, _defaults(session, queue, post_id)
    )
    repository.put_entry(session, queue.id, post.id, at)
    slot = slot_of_moment(place.slots, place.zone, at)
    return Queued(post, at, slot.label if slot else "", place, rows)


def calendar_slots(
    session: Session, workspace_id: str, count: int, start: date | None
) -> list[datetime]:
    """The workspace queue's next `count` free slots, from now (or from the start of
    `start` in the queue's zone): a calendar's days when it fills the queue."""
    queue = repository.queue_of(session, workspace_id, None)
    if queue is None:
        raise BadRequest(
            "No posting slots for the workspace to fill: set them first, e.g. "
            'socialgen queue slots set "Tue 08:30, Thu 08:30, Sat 10:00"'
        )
    place = placing(session, queue)
    after = utcnow()
    if start is not None:
        after = max(after, datetime.combine(start, time(), tzinfo=place.zone).astimezone(UTC))
    return free_slots(session, place, after, count)
