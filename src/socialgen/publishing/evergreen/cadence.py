"""When an evergreen post's runs are due: every N days at the original's wall-clock
time in the creator's zone (a post that went out at 09:00 goes out again at 09:00,
summer time or not), from the first run on, until K runs went out or a date passed.

Pure functions: the terms as a person or a body gives them ("30d", "4w", a date),
checked with precise messages, and the due times they make.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from socialgen.kit.clock import DateOutOfRange, parse_iso
from socialgen.kit.errors import BadRequest

MIN_EVERY_DAYS = 1
MAX_EVERY_DAYS = 365
MAX_RUNS = 100
# A run is written up to this long before it is due (never at the moment it is due:
# a slow or failing model then costs retries, not a late post).
LEAD = timedelta(hours=24)
# The default first run leaves the model at least this long to write it.
MIN_AHEAD = timedelta(hours=1)

_EVERY = re.compile(r"^\s*(\d{1,4})\s*(d|day|days|w|week|weeks)?\s*$", re.IGNORECASE)


def parse_every(text: str) -> int:
    """Days between runs from "30d", "30", "4w" or "2 weeks"."""
    found = _EVERY.match(text)
    if found is None:
        raise BadRequest(f"--every takes days or weeks, e.g. 30d or 4w (got {text!r})")
    days = int(found.group(1)) * (7 if (found.group(2) or "d")[0].lower() == "w" else 1)
    return check_every(days)


def check_every(days: int) -> int:
    if not MIN_EVERY_DAYS <= days <= MAX_EVERY_DAYS:
        raise BadRequest(
            f"Every {days} days is out of range: an evergreen post goes out again every "
            f"{MIN_EVERY_DAYS} to {MAX_EVERY_DAYS} days"
        )
    return days


def check_times(times: int | None) -> int | None:
    if times is not None and not 1 <= times <= MAX_RUNS:
        raise BadRequest(f"--times must be 1 to {MAX_RUNS} (got {times})")
    return times


def parse_until(text: str, zone: ZoneInfo) -> datetime:
    """The last moment a run may be due: a date is that whole day in `zone` (runs due
    before the next midnight there); a time without an offset is in `zone`."""
    text = text.strip()
    try:
        day = date.fromisoformat(text) if len(text) == 10 else None
    except ValueError:
        day = None
    try:
        if day is not None:
            midnight = datetime(day.year, day.month, day.day, tzinfo=zone) + timedelta(days=1)
            return midnight.astimezone(UTC) - timedelta(microseconds=1)
        return parse_iso(text, zone)
    except DateOutOfRange as error:
        raise BadRequest(str(error)) from None
    except (ValueError, OverflowError):
        raise BadRequest(
            f"--until takes a date or an ISO 8601 time, e.g. 2027-06-30 (got {text!r})"
        ) from None


def check_ending(times: int | None, until: datetime | None, now: datetime) -> None:
    """A plan must end: after K runs, or at a date (or whichever comes first)."""
    if times is None and until is None:
        raise BadRequest(
            "Say when it ends: --times K (at most K reposts) or --until DATE (times: "
            "or until: over HTTP and MCP)"
        )
    if until is not None and until <= now:
        raise BadRequest(f"--until must be in the future (got {until.isoformat()})")


def add_days(moment: datetime, days: int, zone: ZoneInfo) -> datetime:
    """`moment` plus `days` calendar days at the same wall-clock time in `zone`."""
    local = moment.astimezone(zone)
    shifted = datetime.combine(local.date() + timedelta(days=days), local.timetz())
    return shifted.replace(tzinfo=zone).astimezone(UTC)


def first_due(published_at: datetime, every_days: int, zone: ZoneInfo, now: datetime) -> datetime:
    """The first run by default: the original's time plus a whole number of periods
    (one at least), the first such moment leaving the model MIN_AHEAD to write it."""
    earliest = now + MIN_AHEAD
    periods = max(1, (earliest - published_at).days // every_days)
    due = add_days(published_at, periods * every_days, zone)
    while due < earliest:  # the day count rounds down; DST may shift an hour
        periods += 1
        due = add_days(published_at, periods * every_days, zone)
    return due


def ends_before(due: datetime, written: int, times: int | None, until: datetime | None) -> bool:
    """Whether a run due at `due`, with `written` runs already out, is past the plan."""
    return (times is not None and written >= times) or (until is not None and due > until)
