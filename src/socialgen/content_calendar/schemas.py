"""The calendar's data shapes: its request (from JSON, multipart form fields or CLI
options alike) and the endpoint's OpenAPI body, which says what content_calendar/body.py
accepts.

Text is trimmed, and a blank or null optional field is the same as leaving it out;
calendarLength is a JSON number ("7" is refused in a JSON body; a multipart form, where
every field is text, sends it as digits). At least one source must be given: prompt,
youtubeUrl, articleUrls or (in a form) pdf.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from socialgen.errors import BadRequest
from socialgen.limits import BLANK_PATTERN, CALENDAR_LENGTHS, NOT_BLANK_PATTERN, SPACE_CLASS
from socialgen.request_body import optional_text

# --- requests ---------------------------------------------------------------------

CALENDAR_LENGTH_INVALID = "calendarLength must be 7 or 30"
MAX_ARTICLE_URLS = 5
MAX_PROMPT_CHARS = 10_000


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


# --- the OpenAPI request bodies -----------------------------------------------------

_BLANK: dict[str, Any] = {"type": "string", "pattern": BLANK_PATTERN}
_NULL: dict[str, Any] = {"type": "null"}
_GIVEN: dict[str, Any] = {"type": "string", "pattern": NOT_BLANK_PATTERN}
# articleUrls: a comma-separated string, or an array of them; empty parts are dropped.
_A_URL_IN_TEXT = f"[^,{SPACE_CLASS}]"
_ARTICLES_GIVEN: dict[str, Any] = {
    "anyOf": [
        {"type": "string", "pattern": _A_URL_IN_TEXT},
        {"type": "array", "contains": {"type": "string", "pattern": _A_URL_IN_TEXT}},
    ]
}
_LENGTH: dict[str, Any] = {
    "type": "integer",
    "enum": list(CALENDAR_LENGTHS),
    "description": "Days: 7 or 30.",
}
_PROMPT: dict[str, Any] = {
    "anyOf": [
        {"type": "string", "maxLength": MAX_PROMPT_CHARS, "pattern": NOT_BLANK_PATTERN},
        _BLANK,
        _NULL,
    ],
    "description": f"Topic or instruction, at most {MAX_PROMPT_CHARS} characters once trimmed.",
}
_URL: dict[str, Any] = {"type": "string", "format": "uri", "pattern": "^[Hh][Tt][Tt][Pp][Ss]?://"}
_YOUTUBE: dict[str, Any] = {
    "anyOf": [_URL, _BLANK, _NULL],
    "description": "A video page (public http(s)); its captions are the source.",
}
_ARTICLES: dict[str, Any] = {
    "anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}, _NULL],
    "description": f"Comma-separated URLs, or an array of them: at most {MAX_ARTICLE_URLS} "
    "different public http(s) URLs.",
}
_STYLE: dict[str, Any] = {"anyOf": [{"type": "string"}, _NULL], "description": "A style's id."}


def _one_source(*names: str) -> list[dict[str, Any]]:
    given = {"prompt": _GIVEN, "youtubeUrl": _GIVEN, "articleUrls": _ARTICLES_GIVEN}
    return [{"required": [name], "properties": {name: given.get(name, {})}} for name in names]


CALENDAR_BODY: dict[str, Any] = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "required": ["calendarLength"],
                    "properties": {
                        "calendarLength": _LENGTH,
                        "prompt": _PROMPT,
                        "youtubeUrl": _YOUTUBE,
                        "articleUrls": _ARTICLES,
                        "contentStyleId": _STYLE,
                    },
                    "anyOf": _one_source("prompt", "youtubeUrl", "articleUrls"),
                }
            },
            "multipart/form-data": {
                "schema": {
                    "type": "object",
                    "required": ["calendarLength"],
                    "properties": {
                        "calendarLength": _LENGTH,
                        "prompt": _PROMPT,
                        "youtubeUrl": _YOUTUBE,
                        # The field may repeat, each one a URL or comma-separated URLs.
                        "articleUrls": _ARTICLES,
                        "contentStyleId": _STYLE,
                        "pdf": {
                            "type": "string",
                            "format": "binary",
                            "description": "A PDF with a text layer, at most 10 MB.",
                        },
                    },
                    "anyOf": _one_source("prompt", "youtubeUrl", "articleUrls", "pdf"),
                }
            },
        },
    }
}
