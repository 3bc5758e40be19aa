"""When each post of a calendar should go out: one a day, at hours people read."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

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


def tomorrow(now: datetime | None = None) -> date:
    return ((now or datetime.now(UTC)) + timedelta(days=1)).date()
