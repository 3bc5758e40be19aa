"""Weekly posting slots: "Tue 08:30, Thu 08:30, Sat 10:00" read and written, and the
moments they fall on.

A slot is a wall time in the queue's zone, not a UTC offset: Tue 08:30 in Berlin is
06:30 UTC in summer and 07:30 UTC in winter. Each occurrence is computed for its own
date with zoneinfo, so the change of the clocks moves nothing a person sees.

Two days a year a wall time is odd. On the spring-forward day a time inside the jump
(02:30 in Berlin on the last Sunday of March) does not exist: the post goes out at the
moment the clock would have shown it had it not jumped, the gap's length later (03:30
summer time), as calendars do, and a slot at that same later time that day is the
same moment, so the day has one post fewer instead of two at once. On the fall-back
day a time inside the repeated hour exists twice: the first (summer time) is taken.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from socialgen.kit.clock import LATEST
from socialgen.kit.errors import BadRequest

WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
MINUTES_A_DAY = 24 * 60
MAX_SLOTS = 7 * 24  # a slot an hour, every hour of the week: more is a mistake
EXAMPLE = '"Tue 08:30, Thu 08:30, Sat 10:00"'

_DAY_NAMES = {
    **{name.lower(): index for index, name in enumerate(WEEKDAYS)},
    **{
        full: index
        for index, full in enumerate(
            ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
        )
    },
    "tues": 1,
    "weds": 2,
    "thur": 3,
    "thurs": 3,
}
_GROUPS = {
    "daily": tuple(range(7)),
    "everyday": tuple(range(7)),
    "weekdays": tuple(range(5)),
    "weekends": (5, 6),
    "weekend": (5, 6),
}
_TIME = re.compile(r"^(\d{1,2})(?::(\d{2}))?\s*(am|pm)?$")


@dataclass(frozen=True, order=True)
class Slot:
    weekday: int  # Monday is 0
    minute: int  # of the local day

    @property
    def label(self) -> str:
        """ "Tue 08:30"."""
        hours, minutes = divmod(self.minute, 60)
        return f"{WEEKDAYS[self.weekday]} {hours:02d}:{minutes:02d}"

    @property
    def wall_time(self) -> time:
        return time(*divmod(self.minute, 60))


def parse_slots(text: str) -> list[Slot]:
    """The slots `text` names, sorted, each once. Items are separated by commas,
    semicolons or new lines; each is days then times: "Tue 08:30", "Mon-Fri 9:00",
    "weekdays 08:30 17:00", "Sat 10am", "daily 12:15". Anything else is a 400 naming
    the item."""
    items = [item.strip() for item in re.split(r"[,;\n]", text)]
    if not any(items):
        raise BadRequest(f"Give at least one slot, e.g. {EXAMPLE}")
    found: set[Slot] = set()
    for item in items:
        if item:
            found.update(_parse_item(item))
    return check_count(sorted(found))


def check_count(slots: list[Slot]) -> list[Slot]:
    if len(slots) > MAX_SLOTS:
        raise BadRequest(f"At most {MAX_SLOTS} slots a week ({len(slots)} given)")
    return slots


def _parse_item(item: str) -> list[Slot]:
    words = item.replace("\u00a0", " ").split()
    days = _days(words[0], item)
    # "every day 09:00": two words for one group.
    rest = words[1:]
    if words[0].lower() == "every" and rest and rest[0].lower() == "day":
        rest = rest[1:]
    if not rest:
        raise BadRequest(f"No time in {item!r}: give days then a time, e.g. {EXAMPLE}")
    minutes = [_minute(_joined_am_pm(rest, index), item) for index in _times(rest)]
    return [Slot(day, minute) for day in days for minute in minutes]


def _times(words: list[str]) -> list[int]:
    """Indexes of the words that start a time ("10 am" is one time of two words)."""
    return [i for i, word in enumerate(words) if word.lower() not in ("am", "pm")]


def _joined_am_pm(words: list[str], index: int) -> str:
    after = words[index + 1].lower() if index + 1 < len(words) else ""
    return words[index] + after if after in ("am", "pm") else words[index]


def _days(word: str, item: str) -> tuple[int, ...]:
    lowered = word.lower().rstrip(":")
    if lowered == "every":
        return _GROUPS["daily"]
    if lowered in _GROUPS:
        return _GROUPS[lowered]
    first, dash, last = lowered.partition("-")
    if dash:
        start, end = _day(first, item), _day(last, item)
        return tuple((start + step) % 7 for step in range((end - start) % 7 + 1))
    return (_day(lowered, item),)


def _day(name: str, item: str) -> int:
    if name not in _DAY_NAMES:
        raise BadRequest(
            f"Not a day in {item!r}: {name!r} (Mon, Tue ... Sun, a range such as Mon-Fri, "
            f"daily, weekdays or weekends; e.g. {EXAMPLE})"
        )
    return _DAY_NAMES[name]


def _minute(word: str, item: str) -> int:
    match = _TIME.match(word.lower())
    if match is None:
        raise BadRequest(f"Not a time in {item!r}: {word!r} (HH:MM, 24-hour, e.g. 08:30)")
    hours, minutes, half = int(match.group(1)), int(match.group(2) or 0), match.group(3)
    if half is not None:
        if not 1 <= hours <= 12:
            raise BadRequest(f"Not a time in {item!r}: {word!r} (1-12 with am or pm)")
        hours = hours % 12 + (12 if half == "pm" else 0)
    elif match.group(2) is None:
        raise BadRequest(f"Not a time in {item!r}: {word!r} (HH:MM, 24-hour, e.g. 08:30)")
    if hours > 23 or minutes > 59:
        raise BadRequest(
            f"Not a time in {item!r}: {word!r} (hours 00-23, minutes 00-59, e.g. 08:30)"
        )
    return hours * 60 + minutes


def slots_text(slots: Iterable[Slot]) -> str:
    """ "Tue 08:30, Thu 08:30": what parse_slots reads back."""
    return ", ".join(slot.label for slot in sorted(slots))


def per_day_counts(slots: Iterable[Slot]) -> dict[int, int]:
    counts: dict[int, int] = {}
    for slot in slots:
        counts[slot.weekday] = counts.get(slot.weekday, 0) + 1
    return counts


def moment_of(day: date, slot: Slot, zone: ZoneInfo) -> datetime:
    """The UTC moment of `slot` on `day` (its weekday is the caller's business). A wall
    time the clocks jump over is read with the offset before the jump (fold=0), which
    lands the gap's length later; a repeated one is its first occurrence."""
    local = datetime.combine(day, slot.wall_time, tzinfo=zone)
    return local.astimezone(UTC)


def occurrences(
    slots: Sequence[Slot], zone: ZoneInfo, after: datetime, days: int
) -> list[datetime]:
    """Every slot moment later than `after`, in order, over the `days` local days from
    `after`'s; each moment once (two slots the spring-forward jump makes one). The last
    day only looks ahead: a time pushed past midnight by a jump is sorted in among the
    next day's, so moments past the last whole day are left to the next call."""
    by_day: dict[int, list[Slot]] = {}
    for slot in slots:
        by_day.setdefault(slot.weekday, []).append(slot)
    first = after.astimezone(zone).date()
    found: set[datetime] = set()
    for offset in range(days + 1):
        day = first + timedelta(days=offset)
        if datetime.combine(day, time(), tzinfo=UTC) > LATEST:
            break
        for slot in by_day.get(day.weekday(), ()):
            found.add(moment_of(day, slot, zone))
    end = datetime.combine(first + timedelta(days=days), time(), tzinfo=zone).astimezone(UTC)
    return sorted(moment for moment in found if after < moment < end)


def slot_at(slots: Sequence[Slot], zone: ZoneInfo, moment: datetime) -> Slot | None:
    """The slot whose occurrence `moment` is, if any (checked both ways: a wall time
    the clocks jumped over maps to a moment whose wall time differs)."""
    local = moment.astimezone(zone)
    for slot in slots:
        for day in (local.date(), local.date() - timedelta(days=1)):
            if day.weekday() == slot.weekday and moment_of(day, slot, zone) == moment:
                return slot
    return None
