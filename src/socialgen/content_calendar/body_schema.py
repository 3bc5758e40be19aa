"""The OpenAPI request body of the calendar endpoint, which reads its body by hand
(content_calendar/body.py, requests.py, plan.py); this says what that code accepts.

Text is trimmed, and a blank or null optional field is the same as leaving it out;
calendarLength is a JSON number (a form sends it as digits, the only way a form can).
At least one source must be given: prompt, youtubeUrl, articleUrls or (in a form) pdf.
"""

from __future__ import annotations

from typing import Any

from socialgen.content_calendar.plan import MAX_ARTICLE_URLS, MAX_PROMPT_CHARS
from socialgen.limits import BLANK_PATTERN, CALENDAR_LENGTHS, NOT_BLANK_PATTERN, SPACE_CLASS

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
