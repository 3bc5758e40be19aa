"""Write a generated calendar to iCalendar, CSV and Markdown files."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, tzinfo
from pathlib import Path
from typing import Any

from socialgen.kit.clock import parse_iso
from socialgen.kit.errors import BadRequest
from socialgen.kit.local_files import write_private_file


def write_exports(
    posts: list[dict[str, Any]],
    *,
    ics: Path | None,
    csv: Path | None,
    markdown: Path | None,
    days: int,
    zone: tzinfo = UTC,
) -> list[Path]:
    """The calendar items of calendar_complete, written where asked; returns the paths.
    The Markdown's times are in `zone` (the creator's: a person reads it)."""
    from socialgen.posts.exports import ExportItem, to_csv, to_ics, to_markdown

    items = [
        ExportItem(
            post_id=post["postId"],
            content=post["content"],
            date=parse_iso(post["suggestedDate"]),
            status=post["status"],
            theme=post["theme"],
        )
        for post in posts
    ]
    title = f"socialgen {days}-day content calendar"
    renderers: list[tuple[Path | None, Callable[[], str]]] = [
        (ics, lambda: to_ics(items, calendar_name=title)),
        (csv, lambda: to_csv(items)),
        (markdown, lambda: to_markdown(items, title=title, zone=zone)),
    ]
    written = []
    for path, text in renderers:
        if path is None:
            continue
        try:
            # As written: the CRLF line endings RFC 5545 and RFC 4180 want; 0600, as
            # every export (it holds unpublished posts).
            write_private_file(path, text().encode("utf-8"))
        except OSError as error:
            raise BadRequest(f"Cannot write {path}: {error.strerror or error}") from None
        written.append(path)
    return written
