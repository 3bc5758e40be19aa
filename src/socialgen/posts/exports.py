"""A list of planned or stored posts as iCalendar, CSV, Markdown or JSON text.

Pure functions over `ExportItem`s: no store, no I/O. `socialgen posts export`
feeds them the workspace's posts; the content calendar feeds them its generated
plan. Every function returns `str`; write it as UTF-8 without newline translation
(`Path.write_text(text, encoding="utf-8", newline="")`), since iCalendar and CSV
lines end in CRLF.

Dates are UTC. An item is a 30-minute event starting at `date` unless
`all_day` is set, in which case it covers the whole (UTC) day of `date`.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from datetime import date as Day
from typing import Any

from socialgen.clock import iso, utcnow

CSV_HEADER = ("date", "theme", "status", "post_id", "content")
EVENT_MINUTES = 30
ICS_PRODID = "-//socialgen//socialgen post export//EN"
ICS_LINE_OCTETS = 75  # RFC 5545 3.1: lines longer than this are folded
SUMMARY_CHARS = 80

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # TEXT allows HTAB, no other control


@dataclass(frozen=True, slots=True)
class ExportItem:
    """One post of a plan or of the store.

    `date` is the suggested, scheduled, published or created moment (UTC; a naive
    value is taken as UTC). `theme` is the plan's topic or the conversation title;
    without one, the first line of the content stands in for it where a title is
    needed. `all_day` makes the item a whole-day event dated `date`'s UTC day.
    """

    post_id: str
    content: str
    date: datetime
    status: str = "draft"
    theme: str | None = None
    variation: str | None = None
    all_day: bool = False

    @property
    def moment(self) -> datetime:
        return _utc(self.date)

    @property
    def day(self) -> Day:
        return self.moment.date()

    @property
    def summary(self) -> str:
        """The theme, or else the first line of the post (cut at a word boundary)."""
        return _one_line(self.theme or "") or first_line(self.content)


# --------------------------------------------------------------------------- iCalendar


def to_ics(
    items: Sequence[ExportItem], *, calendar_name: str, stamp: datetime | None = None
) -> str:
    """An RFC 5545 VCALENDAR with one VEVENT per item (Google Calendar, Outlook, Apple).

    UID is `<post_id>@socialgen` (stable, so importing a later export again updates
    the events rather than duplicating them; a repeated post_id gets a `-2`, `-3`
    suffix). DTSTAMP is `stamp` (default now). Timed items run DTSTART..DTEND,
    30 minutes, in UTC (`Z`); all-day items use VALUE=DATE with an exclusive DTEND.
    SUMMARY is the theme or the first line, DESCRIPTION the whole post. Events are
    TRANSPARENT (they do not block free/busy time); drafts are TENTATIVE.
    """
    stamp_text = _ics_datetime(stamp or utcnow())
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        f"PRODID:{ICS_PRODID}",
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
        f"X-WR-CALNAME:{escape_text(calendar_name)}",
    ]
    seen: dict[str, int] = {}
    for item in items:
        count = seen.get(item.post_id, 0) + 1
        seen[item.post_id] = count
        uid = item.post_id if count == 1 else f"{item.post_id}-{count}"
        lines += ["BEGIN:VEVENT", f"UID:{escape_text(uid)}@socialgen", f"DTSTAMP:{stamp_text}"]
        if item.all_day:
            lines += [
                f"DTSTART;VALUE=DATE:{item.day:%Y%m%d}",
                f"DTEND;VALUE=DATE:{item.day + timedelta(days=1):%Y%m%d}",
            ]
        else:
            lines += [
                f"DTSTART:{_ics_datetime(item.moment)}",
                f"DTEND:{_ics_datetime(item.moment + timedelta(minutes=EVENT_MINUTES))}",
            ]
        lines += [
            f"SUMMARY:{escape_text(item.summary)}",
            f"DESCRIPTION:{escape_text(item.content)}",
            f"STATUS:{'TENTATIVE' if item.status == 'draft' else 'CONFIRMED'}",
            "TRANSP:TRANSPARENT",
        ]
        if item.status:
            lines.append(f"CATEGORIES:{escape_text(item.status)}")
        lines.append("END:VEVENT")
    lines.append("END:VCALENDAR")
    return "".join(fold_line(line) + "\r\n" for line in lines)


def escape_text(value: str) -> str:
    """An RFC 5545 TEXT value: `\\`, `;`, `,` and newlines escaped, any line ending
    made a newline, other control characters (not allowed in TEXT) dropped."""
    value = value.replace("\r\n", "\n").replace("\r", "\n")
    value = _CONTROL.sub("", value)
    return value.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,").replace("\n", "\\n")


def fold_line(line: str) -> str:
    """Fold a content line at 75 octets (RFC 5545 3.1): CRLF + one space before each
    continuation, which counts towards its line. UTF-8 sequences are never split."""
    data = line.encode("utf-8")
    if len(data) <= ICS_LINE_OCTETS:
        return line
    pieces: list[bytes] = []
    start, room = 0, ICS_LINE_OCTETS
    while len(data) - start > room:
        end = start + room
        while data[end] & 0xC0 == 0x80:  # a continuation byte: back up to the lead byte
            end -= 1
        pieces.append(data[start:end])
        start, room = end, ICS_LINE_OCTETS - 1
    pieces.append(data[start:])
    return "\r\n ".join(piece.decode("utf-8") for piece in pieces)


def _ics_datetime(moment: datetime) -> str:
    return _utc(moment).strftime("%Y%m%dT%H%M%SZ")


# --------------------------------------------------------------------------- CSV, Markdown, JSON


def to_csv(items: Iterable[ExportItem]) -> str:
    """RFC 4180 CSV, CRLF rows, header `date,theme,status,post_id,content`. Fields with
    commas, quotes or line breaks are quoted, so a multi-line post stays one field.
    `socialgen posts import` reads this back."""
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(CSV_HEADER)
    for item in items:
        writer.writerow(
            (_date_text(item), item.theme or "", item.status, item.post_id, item.content)
        )
    return buffer.getvalue()


def to_markdown(items: Iterable[ExportItem], *, title: str) -> str:
    """A `# title`, then per item a `## <date> · <theme>` heading, the post verbatim in
    a fenced block (no Markdown in it is interpreted), and a line with id and status."""
    lines = [f"# {_one_line(title)}", ""]
    count = 0
    for item in items:
        count += 1
        when = f"{item.day:%Y-%m-%d}" if item.all_day else f"{item.moment:%Y-%m-%d %H:%M} UTC"
        fence = "`" * max(3, _longest_backtick_run(item.content) + 1)
        facts = f"id: `{item.post_id}` · status: {item.status}"
        if item.variation:
            facts += f" · variation: {_one_line(item.variation)}"
        lines += [f"## {when} · {item.summary}", "", f"{fence}text", item.content, fence, ""]
        lines += [facts, ""]
    if count == 0:
        lines += ["No posts.", ""]
    return "\n".join(lines)


def to_json(items: Iterable[ExportItem]) -> str:
    """`{"posts": [{"postId", "date", "theme", "status", "variation", "content"}]}`,
    pretty-printed; `socialgen posts import` reads this back."""
    posts: list[dict[str, Any]] = [
        {
            "postId": item.post_id,
            "date": _date_text(item),
            "theme": item.theme,
            "status": item.status,
            "variation": item.variation,
            "content": item.content,
        }
        for item in items
    ]
    return json.dumps({"posts": posts}, ensure_ascii=False, indent=2) + "\n"


# --------------------------------------------------------------------------- helpers


def first_line(content: str, limit: int = SUMMARY_CHARS) -> str:
    """The first non-blank line of a post, cut at a word boundary."""
    line = next((part.strip() for part in content.splitlines() if part.strip()), "")
    if len(line) <= limit:
        return line
    cut = line[:limit].rsplit(" ", 1)[0] or line[:limit]
    return cut.rstrip(" ,.;:-") + "…"


def _date_text(item: ExportItem) -> str:
    return item.day.isoformat() if item.all_day else iso(item.moment) or ""


def _utc(moment: datetime) -> datetime:
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in re.findall(r"`+", text)), default=0)
