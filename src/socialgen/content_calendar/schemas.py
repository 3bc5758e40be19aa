"""The calendar's request, as the CLI, the MCP tools and the HTTP body
(content_calendar/body.py) give it to the plan, which checks what they share: the
length, at least one source (prompt, youtubeUrl, articleUrls or pdf), the counts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from socialgen.kit.errors import BadRequest

# --- requests ---------------------------------------------------------------------

CALENDAR_LENGTH_INVALID = "calendarLength must be 7 or 30"
MAX_ARTICLE_URLS = 5
MAX_PROMPT_CHARS = 10_000


@dataclass
class CalendarRequest:
    calendar_length: int = 7  # checked in plan: 7 or 30
    prompt: str | None = None
    youtube_url: str | None = None
    article_urls: list[str] = field(default_factory=list)
    content_style_id: str | None = None
    pdf: bytes | None = None
    start: date | None = None  # the CLI's --start; the API starts tomorrow
    queue: bool = False  # the CLI's --queue: the days at the posting queue's free slots


def article_urls(value: Any) -> list[str]:
    """articleUrls: a comma-separated string or an array of strings."""
    if value is None or value == "":
        return []
    if isinstance(value, str):
        items: list[Any] = value.split(",")
    elif isinstance(value, list):
        items = [
            part
            for item in value
            for part in (item.split(",") if isinstance(item, str) else [item])
        ]
    else:
        raise BadRequest("articleUrls must be a comma-separated string or an array of URLs")
    if not all(isinstance(item, str) for item in items):
        raise BadRequest("articleUrls must be a comma-separated string or an array of URLs")
    return list(dict.fromkeys(item.strip() for item in items if item.strip()))
