"""A calendar request, from JSON, multipart form fields, or CLI options alike.

calendarLength is a JSON number: "7" is refused in a JSON body, as the OpenAPI
document says; a multipart form, where every field is text, sends it as digits.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from socialgen.errors import BadRequest
from socialgen.request_body import optional_text

CALENDAR_LENGTH_INVALID = "calendarLength must be 7 or 30"


@dataclass
class CalendarRequest:
    calendar_length: Any = None  # checked in plan: 7 or 30
    prompt: str | None = None
    youtube_url: str | None = None
    article_urls: list[str] = field(default_factory=list)
    content_style_id: str | None = None
    pdf: bytes | None = None
    start: date | None = None  # the CLI's --start; the API starts tomorrow

    @classmethod
    def from_fields(
        cls, fields: dict[str, Any], pdf: bytes | None = None, *, form: bool = False
    ) -> CalendarRequest:
        """From SPEC.md's body fields (JSON object, or form fields with `form`)."""
        length = fields.get("calendarLength")
        if isinstance(length, str) and not form:
            raise BadRequest(CALENDAR_LENGTH_INVALID)
        return cls(
            calendar_length=length,
            prompt=optional_text(fields.get("prompt"), "prompt"),
            youtube_url=optional_text(fields.get("youtubeUrl"), "youtubeUrl"),
            article_urls=article_urls(fields.get("articleUrls")),
            content_style_id=optional_text(fields.get("contentStyleId"), "contentStyleId"),
            pdf=pdf,
        )


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
