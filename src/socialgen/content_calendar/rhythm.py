"""When each post of a calendar should go out: one a day, at hours people read, or,
once the workspace has enough measured history, in each day's best slot."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zoneinfo import ZoneInfo

    from sqlmodel import Session

    from socialgen.insights.slots import SlotPosterior

WEEKDAY_HOUR = time(9, 0)  # before the working day fills up
WEEKEND_HOUR = time(11, 0)  # late morning when people browse at leisure


def suggested_dates(start: date, count: int) -> list[datetime]:
    """`count` consecutive days from `start`, each at a good hour (UTC)."""
    moments = []
    for offset in range(count):
        day = start + timedelta(days=offset)
        hour = WEEKEND_HOUR if day.weekday() >= 5 else WEEKDAY_HOUR
        moments.append(datetime.combine(day, hour, tzinfo=UTC))
    return moments


def calendar_dates(
    session: Session, workspace_id: str, start: date, count: int, tz: str | None
) -> list[datetime]:
    """suggested_dates, or with enough history each day at its weekday's best slot
    (highest posterior mean; insights.slots) in the creator's zone."""
    from socialgen.config.zone import resolve_zone
    from socialgen.insights.suggest import slots_if_enough

    slots = slots_if_enough(session, workspace_id, tz)
    if isinstance(slots, int):
        return suggested_dates(start, count)
    return best_slot_dates(slots, resolve_zone(tz), start, count)


def best_slot_dates(
    slots: list[SlotPosterior], zone: ZoneInfo, start: date, count: int
) -> list[datetime]:
    best: dict[int, SlotPosterior] = {}
    for slot in slots:
        if slot.start == 0 and slot.n == 0:
            continue  # a night the creator never posted in is not suggested
        if slot.weekday not in best or slot.mean > best[slot.weekday].mean:
            best[slot.weekday] = slot
    moments = []
    for offset in range(count):
        day = start + timedelta(days=offset)
        slot = best[day.weekday()]
        moments.append(datetime.combine(day, time(slot.hour), tzinfo=zone).astimezone(UTC))
    return moments


def tomorrow(now: datetime | None = None) -> date:
    return ((now or datetime.now(UTC)) + timedelta(days=1)).date()
