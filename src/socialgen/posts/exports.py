"""A list of planned or stored posts as iCalendar, CSV, Markdown or JSON text.

Pure functions over `ExportItem`s: no store, no I/O. `socialgen posts export`
feeds them the workspace's posts; the content calendar feeds them its generated
plan. Every function returns `str`; write it as UTF-8 without newline translation
(`Path.write_text(text, encoding="utf-8", newline="")`), since iCalendar and CSV
lines end in CRLF. The `icalendar` library writes iCalendar (see posts/ics.py), the
`csv` module CSV, the `json` module JSON; Markdown is plain text.

Dates are UTC. An item is a 30-minute event starting at `date` unless
`all_day` is set, in which case it covers the whole (UTC) day of `date`.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from socialgen.kit.clock import iso
from socialgen.kit.control_chars import escape_json_controls, printable
from socialgen.posts.csv_cells import safe_cell
from socialgen.posts.export_item import ExportItem, one_line

__all__ = ["ExportItem", "markdown_inline", "to_csv", "to_ics", "to_json", "to_markdown"]

CSV_HEADER = ("date", "theme", "status", "post_id", "content")
# HTML's special characters as entities (a renderer that passes HTML through still
# shows them as text), then Markdown's inline punctuation, each backslash-escaped.
_MARKDOWN_INLINE = str.maketrans(
    {"&": "&amp;", "<": "&lt;", ">": "&gt;"} | {char: f"\\{char}" for char in "\\`*_[]~#|"}
)


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
    # Imported here: the icalendar library takes longer to import than the other
    # formats take to write, and only this one needs it.
    from socialgen.posts.ics import calendar_text

    return calendar_text(items, calendar_name=calendar_name, stamp=stamp)


# --------------------------------------------------------------------------- CSV, Markdown, JSON


def to_csv(items: Iterable[ExportItem]) -> str:
    """RFC 4180 CSV, CRLF rows, header `date,theme,status,post_id,content`. Fields with
    commas, quotes or line breaks are quoted, so a multi-line post stays one field. A
    cell a spreadsheet would run as a formula ("=...", "+...", "-...", "@...") starts
    with a single quote (posts/csv_cells.py). `socialgen posts import` reads this back,
    quote removed."""
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(CSV_HEADER)
    for item in items:
        row = (_date_text(item), item.theme or "", item.status, item.post_id, item.content)
        writer.writerow([safe_cell(cell) for cell in row])
    return buffer.getvalue()


def to_markdown(items: Iterable[ExportItem], *, title: str) -> str:
    """A `# title`, then per item a `## <date> · <theme>` heading, the post verbatim in
    a fenced block (no Markdown in it is interpreted), and a line with id and status.
    Text set in a heading or a line is escaped (`markdown_inline`): a theme shows as
    written, never as HTML or formatting."""
    lines = [f"# {markdown_inline(title)}", ""]
    count = 0
    for item in items:
        count += 1
        when = f"{item.day:%Y-%m-%d}" if item.all_day else f"{item.moment:%Y-%m-%d %H:%M} UTC"
        fence = "`" * max(3, _longest_backtick_run(item.content) + 1)
        facts = f"id: `{item.post_id}` · status: {markdown_inline(item.status)}"
        if item.variation:
            facts += f" · variation: {markdown_inline(item.variation)}"
        heading = f"## {when} · {markdown_inline(item.summary)}"
        lines += [heading, "", f"{fence}text", item.content, fence, ""]
        lines += [facts, ""]
    if count == 0:
        lines += ["No posts.", ""]
    return "\n".join(lines)


def markdown_inline(text: str) -> str:
    """`text` on one line, shown as written wherever Markdown is rendered: HTML's
    special characters as entities (`<img onerror=...>` stays text), the characters
    that start emphasis, code, links or a heading's closing `#`s backslash-escaped,
    and control characters as symbols (a Markdown file is read in terminals too)."""
    return printable(one_line(text)).translate(_MARKDOWN_INLINE)


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
    # Control characters all as \u escapes (json.dumps leaves DEL and C1): the same
    # JSON, safe to `cat`.
    return escape_json_controls(json.dumps({"posts": posts}, ensure_ascii=False, indent=2)) + "\n"


# --------------------------------------------------------------------------- helpers


def _date_text(item: ExportItem) -> str:
    return item.day.isoformat() if item.all_day else iso(item.moment) or ""


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in re.findall(r"`+", text)), default=0)
