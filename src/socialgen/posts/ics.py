"""Export items as an iCalendar (RFC 5545) text, built with the `icalendar` library.

The library writes the content lines, folds them at 75 octets without splitting a
UTF-8 character, formats UTC date-times (`Z`) and dates (VALUE=DATE) and joins it
all with CRLF. What stays here: which events and properties a post becomes, the
UID scheme, and TEXT values (see `_Text`). Imported by `exports.to_ics` only when
an iCalendar export is asked for: icalendar takes ~80 ms to import.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta

from icalendar import Calendar, Event, vText

from socialgen.kit.clock import utcnow
from socialgen.posts.export_item import EVENT_MINUTES, ICS_PRODID, ExportItem, as_utc

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # TEXT allows HTAB, no other control


class _Text(vText):
    """An RFC 5545 TEXT value: `\\`, `;`, `,` and newlines escaped, any line ending
    made a newline, other control characters (not allowed in TEXT) dropped.

    vText's own escaping first rewrites a literal backslash + `N` as a line break
    (icalendar 6 and 7), so a post holding `C:\\Notes` would come back as `C:`,
    a new line and `otes`; and it passes control characters through, which makes
    an invalid file. Hence this override, the one piece of RFC 5545 kept by hand."""

    def to_ical(self) -> bytes:
        value = str(self).replace("\r\n", "\n").replace("\r", "\n")
        value = _CONTROL.sub("", value)
        escaped = (
            value.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,").replace("\n", "\\n")
        )
        return escaped.encode("utf-8")


def calendar_text(
    items: Sequence[ExportItem], *, calendar_name: str, stamp: datetime | None = None
) -> str:
    """See `exports.to_ics`."""
    calendar = Calendar()
    # Added in the order calendar apps and the earlier hand-written export used;
    # to_ical(sorted=False) keeps it.
    calendar.add("version", "2.0")
    calendar.add("prodid", ICS_PRODID)
    calendar.add("calscale", "GREGORIAN")
    calendar.add("method", "PUBLISH")
    calendar.add("x-wr-calname", _Text(calendar_name))
    stamp = stamp or utcnow()
    seen: dict[str, int] = {}
    for item in items:
        count = seen.get(item.post_id, 0) + 1
        seen[item.post_id] = count
        uid = item.post_id if count == 1 else f"{item.post_id}-{count}"
        calendar.add_component(_event(item, f"{uid}@socialgen", stamp))
    data: bytes = calendar.to_ical(sorted=False)  # untyped in icalendar
    return data.decode("utf-8")


def _event(item: ExportItem, uid: str, stamp: datetime) -> Event:
    event = Event()
    event.add("uid", _Text(uid))
    event.add("dtstamp", as_utc(stamp))
    if item.all_day:
        # DTEND of a date is exclusive: the next day.
        event.add("dtstart", item.day)
        event.add("dtend", item.day + timedelta(days=1))
    else:
        event.add("dtstart", item.moment)
        event.add("dtend", item.moment + timedelta(minutes=EVENT_MINUTES))
    event.add("summary", _Text(item.summary))
    event.add("description", _Text(item.content))
    event.add("status", "TENTATIVE" if item.status == "draft" else "CONFIRMED")
    event.add("transp", "TRANSPARENT")
    if item.status:
        event.add("categories", _Text(item.status))
    return event
