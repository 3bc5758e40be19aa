"""Where the next post of a queue goes: the first slot moment no post holds.

A slot moment is taken when a post of the queue holds it, and also when another post
would go out at that very moment through the same door: for the workspace's queue any
scheduled post of the workspace, for an account's queue any publication queued to
that account (a post scheduled by hand at 08:30 is not doubled by the queue). The
candidates are looked up a window at a time (a few weeks, then twice as many), each
moment one index lookup, so a queue thousands of posts long is found in milliseconds
(bench/posting_queue.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from sqlmodel import Session

from socialgen.kit.clock import LATEST
from socialgen.kit.errors import BadRequest
from socialgen.publishing.queue import repository
from socialgen.publishing.queue.slots import Slot, occurrences
from socialgen.store.tables.queue import PostingQueue

# A slot closer than this is not offered: a post queued at 08:29:58 goes to the next
# slot rather than out at once, before anyone could look at the queue.
LEAD = timedelta(seconds=10)
FIRST_WINDOW_DAYS = 28
MAX_WINDOW_DAYS = 7 * 512
CHECKED_AT_ONCE = 8  # free candidates looked up together for other posts at their moment


@dataclass(frozen=True)
class Placing:
    """A queue with what placement needs: its slots and zone."""

    queue: PostingQueue
    slots: list[Slot]
    zone: ZoneInfo


def placing(session: Session, queue: PostingQueue) -> Placing:
    slots = [Slot(row.weekday, row.minute) for row in repository.slots_of(session, queue.id)]
    return Placing(queue, slots, ZoneInfo(queue.timezone))


def taken(session: Session, place: Placing, moments: Sequence[datetime]) -> set[datetime]:
    """Of `moments` (in order), those a post holds or another post goes out at."""
    if not moments:
        return set()
    held = repository.entry_moments(session, place.queue.id, moments[0], moments[-1])
    return held | _blocked(session, place, [moment for moment in moments if moment not in held])


def _blocked(session: Session, place: Placing, moments: Sequence[datetime]) -> set[datetime]:
    """Of `moments`, those another post goes out at through the queue's door."""
    queue = place.queue
    if not moments:
        return set()
    if queue.account_id is None:
        return repository.scheduled_moments(session, queue.workspace_id, moments)
    return repository.account_moments(session, queue.account_id, moments)


def free_slots(session: Session, place: Placing, now: datetime, count: int = 1) -> list[datetime]:
    """The next `count` free slot moments after `now` (+LEAD), in order. A window of
    candidates at a time: the queue's own posts in it in one range read, then the
    others' posts looked up for the few moments left, a handful at a time."""
    if not place.slots:
        raise BadRequest(no_slots_message(place.queue))
    found: list[datetime] = []
    start = now + LEAD - timedelta(microseconds=1)
    # The queue's own posts ahead, all in one read (a range of the unique index), and a
    # first window reaching a week past the last of them: a deep queue without gaps is
    # answered in one window.
    held = repository.entry_moments(session, place.queue.id, start)
    reach = (max(held) - start).days + 8 if held else 0
    days = min(max(FIRST_WINDOW_DAYS, reach), MAX_WINDOW_DAYS)
    while len(found) < count:
        candidates = occurrences(place.slots, place.zone, start, days)
        if not candidates:
            if start >= LATEST - timedelta(days=days):
                raise BadRequest("No free slot left in this queue before 2199-12-31")
            start += timedelta(days=days - 1)
            continue
        left = [moment for moment in candidates if moment not in held]
        step = max(CHECKED_AT_ONCE, count - len(found))
        for at in range(0, len(left), step):
            chunk = left[at : at + step]
            blocked = _blocked(session, place, chunk)
            found += [moment for moment in chunk if moment not in blocked][: count - len(found)]
            if len(found) >= count:
                break
        start, days = candidates[-1], min(days * 2, MAX_WINDOW_DAYS)
    return found


def is_free(session: Session, place: Placing, moment: datetime) -> bool:
    return moment not in taken(session, place, [moment])


def no_slots_message(queue: PostingQueue) -> str:
    whose = "this account" if queue.account_id is not None else "the workspace"
    return (
        f"No posting slots for {whose}: set them first, e.g. "
        'socialgen queue slots set "Tue 08:30, Thu 08:30, Sat 10:00"'
    )
