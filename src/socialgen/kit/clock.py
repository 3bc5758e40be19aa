"""UTC time, ISO 8601 in and out. All stored timestamps are UTC.

One range of dates is accepted everywhere a date comes in (a schedule, an import, a
pull, `since`): from 1970-01-01 to 2199-12-31, UTC. Python's datetime stops at years
1 and 9999, where a time with an offset cannot even be turned into UTC (9999-12-31
23:00 at -05:00 is past the end), and an export, a chart or an epoch-based sort of
such a date fails; no post of a social network is dated outside this range.
"""

from __future__ import annotations

from datetime import UTC, datetime, tzinfo
from typing import overload


def utcnow() -> datetime:
    return datetime.now(UTC)


@overload
def iso(moment: datetime) -> str: ...
@overload
def iso(moment: None) -> None: ...
@overload
def iso(moment: datetime | None) -> str | None: ...


def iso(moment: datetime | None) -> str | None:
    """ISO 8601 with a `Z` suffix and millisecond precision, as JavaScript clients expect."""
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(2199, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)
DATE_RANGE = "from 1970-01-01 to 2199-12-31 (UTC)"


class DateOutOfRange(ValueError):
    """A date outside EARLIEST..LATEST; its message names the date and the range."""

    def __init__(self, shown: str) -> None:
        super().__init__(f"{shown} is outside the dates socialgen keeps: {DATE_RANGE}")


def in_range(moment: datetime, shown: str | None = None) -> datetime:
    """`moment` (aware), or DateOutOfRange outside EARLIEST..LATEST."""
    if not EARLIEST <= moment <= LATEST:
        raise DateOutOfRange(shown or moment.isoformat())
    return moment


def parse_iso(text: str, naive_zone: tzinfo = UTC) -> datetime:
    """Parse an ISO 8601 timestamp into UTC; a value without an offset is a wall time in
    `naive_zone` (UTC unless the caller reads a person's times: the creator's zone). A
    valid date outside the accepted range is a DateOutOfRange (a ValueError)."""
    moment = datetime.fromisoformat(text.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=naive_zone)
    try:
        return in_range(moment.astimezone(UTC), text.strip())
    except OverflowError:  # past year 9999 (or before year 1) once in UTC
        raise DateOutOfRange(text.strip()) from None
