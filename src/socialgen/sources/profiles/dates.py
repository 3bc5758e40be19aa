"""Publication dates as sources write them (RFC 822 in RSS, ISO 8601 elsewhere,
epoch numbers in some JSON) turned into aware datetimes."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from email.utils import parsedate_to_datetime

_ISO_DAY = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
# Epoch values above this are milliseconds (JavaScript); below, seconds.
_MILLISECONDS_FROM = 100_000_000_000


def parse_date(value: object) -> datetime | None:
    """An aware datetime, or None when `value` holds no recognisable date.

    The source's own UTC offset is kept, so the calendar date is the one the
    author saw; values without an offset are taken as UTC.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return _from_epoch(float(value))
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip()
    moment = _iso(text) or _rfc822(text) or _day_inside(text)
    if moment is not None and moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment


def calendar_date(moment: datetime) -> str:
    return moment.date().isoformat()


def _iso(text: str) -> datetime | None:
    try:
        return datetime.fromisoformat(text.replace("z", "Z"))
    except ValueError:
        return None


def _rfc822(text: str) -> datetime | None:
    try:
        return parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None


def _day_inside(text: str) -> datetime | None:
    """Last resort for near-ISO forms ("2024-03-18 09:00:00 +0000"): the day only."""
    match = _ISO_DAY.search(text)
    if match is None:
        return None
    try:
        day = date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return None
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def _from_epoch(number: float) -> datetime | None:
    if number >= _MILLISECONDS_FROM:
        number /= 1000
    try:
        return datetime.fromtimestamp(number, UTC)
    except (OverflowError, OSError, ValueError):
        return None
