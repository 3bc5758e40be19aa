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
from datetime import UTC, datetime, tzinfo
from typing import Any

from socialgen.kit.clock import iso
from socialgen.kit.control_chars import escape_json_controls, printable
from socialgen.posts.csv_cells import safe_cell
from socialgen.posts.export_item import ExportItem, one_line

__all__ = [
    "ExportItem",
    "json_posts",
    "markdown_inline",
    "to_csv",
    "to_ics",
    "to_json",
    "to_markdown",
]

CSV_HEADER = ("date", "theme", "status", "post_id", "content")
# `posts export -f csv`: a backup, every field of a stored post after the plan's five.
# The names are those `posts import` reads (posts/imports.py, posts/history_rows.py,
# posts/import_fields.py).
BACKUP_HEADER = (
    *CSV_HEADER,
    "variation",
    "post_type",
    "created_at",
    "scheduled_at",
    "published_at",
    "post_url",
    "account_name",
    "account_email",
    "likes",
    "reposts",
    "comments",
    "impressions",
    "media",
)
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


def to_csv(items: Iterable[ExportItem], *, backup: bool = False) -> str:
    """RFC 4180 CSV, CRLF rows, header `date,theme,status,post_id,content` (a plan's
    columns), and with `backup` every field of a stored post after them
    (BACKUP_HEADER: times, address, account, counts, media). A count is empty for a
    post never measured, `impressions` also when no network reported them; `media` is
    `true` or `false`. Fields with commas, quotes or line breaks are quoted, so a
    multi-line post stays one field. A cell a spreadsheet would run as a formula
    ("=...", "+...", "-...", "@...") starts with a single quote (posts/csv_cells.py).
    `socialgen posts import` reads this back, quote removed."""
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(BACKUP_HEADER if backup else CSV_HEADER)
    for item in items:
        row = [_date_text(item), item.theme or "", item.status, item.post_id, item.content]
        if backup:
            row += _backup_cells(item)
        writer.writerow([safe_cell(cell) for cell in row])
    return buffer.getvalue()


def _backup_cells(item: ExportItem) -> list[str]:
    counts = item.counts
    numbers = ["", "", "", ""]
    if counts is not None:
        shown = (counts.likes, counts.reposts, counts.comments, counts.impressions)
        numbers = ["" if number is None else str(number) for number in shown]
    return [
        item.variation or "",
        item.post_type or "",
        iso(item.created_at) or "",
        iso(item.scheduled_at) or "",
        iso(item.published_at) or "",
        item.post_url or "",
        item.account_name or "",
        item.account_email or "",
        *numbers,
        "true" if item.media else "false",
    ]


def to_markdown(items: Iterable[ExportItem], *, title: str, zone: tzinfo = UTC) -> str:
    """A `# title`, then per item a `## <date> · <theme>` heading, the post verbatim in
    a fenced block (no Markdown in it is interpreted), and a line with id and status.
    Text set in a heading or a line is escaped (`markdown_inline`): a theme shows as
    written, never as HTML or formatting. Times are in `zone` (a person reads this
    file: the CLI's is the creator's), named after each."""
    lines = [f"# {markdown_inline(title)}", ""]
    count = 0
    for item in items:
        count += 1
        when = (
            f"{item.day:%Y-%m-%d}"
            if item.all_day
            else f"{item.moment.astimezone(zone):%Y-%m-%d %H:%M} {_zone_name(zone)}"
        )
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
    """`{"posts": [...]}` (json_posts), pretty-printed; `socialgen posts import` reads
    this back."""
    # Control characters all as \u escapes (json.dumps leaves DEL and C1): the same
    # JSON, safe to `cat`.
    text = json.dumps({"posts": json_posts(items)}, ensure_ascii=False, indent=2)
    return escape_json_controls(text) + "\n"


def json_posts(items: Iterable[ExportItem]) -> list[dict[str, Any]]:
    """Each item as `{"postId", "date", "theme", "status", "variation", "content",
    "postType", "createdAt", "scheduledAt", "publishedAt", "postUrl", "socialAccount",
    "likes", "reposts", "comments", "impressions", "media"}`: null where a post has no
    such field (a count of a post never measured, impressions no network reported)."""
    posts: list[dict[str, Any]] = []
    for item in items:
        counts = item.counts
        account = None
        if item.account_name or item.account_email:
            account = {"name": item.account_name, "email": item.account_email}
        posts.append(
            {
                "postId": item.post_id,
                "date": _date_text(item),
                "theme": item.theme,
                "status": item.status,
                "variation": item.variation,
                "content": item.content,
                "postType": item.post_type,
                "createdAt": iso(item.created_at),
                "scheduledAt": iso(item.scheduled_at),
                "publishedAt": iso(item.published_at),
                "postUrl": item.post_url,
                "socialAccount": account,
                "likes": counts.likes if counts else None,
                "reposts": counts.reposts if counts else None,
                "comments": counts.comments if counts else None,
                "impressions": counts.impressions if counts else None,
                "media": item.media,
            }
        )
    return posts


# --------------------------------------------------------------------------- helpers


def _date_text(item: ExportItem) -> str:
    return item.day.isoformat() if item.all_day else iso(item.moment) or ""


def _zone_name(zone: tzinfo) -> str:
    return getattr(zone, "key", None) or ("UTC" if zone is UTC else str(zone))


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in re.findall(r"`+", text)), default=0)
