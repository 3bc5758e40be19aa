"""The calendar's data shapes: its request (from JSON, multipart form fields or CLI
options alike) and the pydantic models that describe what content_calendar/body.py
accepts: their JSON schemas are the endpoint's OpenAPI body.

Text is trimmed, and a blank or null optional field is the same as leaving it out;
calendarLength is a JSON number ("7" is refused in a JSON body; a multipart form, where
every field is text, sends it as digits). At least one source must be given: prompt,
youtubeUrl, articleUrls or (in a form) pdf.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from socialgen.errors import BadRequest
from socialgen.limits import NOT_BLANK_PATTERN, SPACE_CLASS
from socialgen.request_body import DESCRIBES_ONLY, Blank, HttpUrlText, optional_text

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
# What content_calendar/body.py accepts, described (api.py makes them the OpenAPI body
# with request_body.openapi_body); the reading code above decides, with SPEC.md's
# messages.

# articleUrls: a comma-separated string, or an array of them; empty parts are dropped.
_A_URL_IN_TEXT = f"[^,{SPACE_CLASS}]"
_GIVEN: dict[str, Any] = {"type": "string", "pattern": NOT_BLANK_PATTERN}
_ARTICLES_GIVEN: dict[str, Any] = {
    "anyOf": [
        {"type": "string", "pattern": _A_URL_IN_TEXT},
        {"type": "array", "contains": {"type": "string", "pattern": _A_URL_IN_TEXT}},
    ]
}


def _one_source(*names: str) -> dict[str, Any]:
    """At least one source is given (not blank): JSON Schema's anyOf over the object,
    which a pydantic field cannot say."""
    given = {"prompt": _GIVEN, "youtubeUrl": _GIVEN, "articleUrls": _ARTICLES_GIVEN}
    return {
        "anyOf": [{"required": [name], "properties": {name: given.get(name, {})}} for name in names]
    }


CalendarDays = Literal[7, 30]  # limits.CALENDAR_LENGTHS (tests/test_body_models.py checks)


class CalendarJsonBody(BaseModel):
    """7 or 30 days of drafts from a prompt, a video and/or articles: one at least."""

    model_config = ConfigDict(
        **DESCRIBES_ONLY, json_schema_extra=_one_source("prompt", "youtubeUrl", "articleUrls")
    )

    calendarLength: CalendarDays = Field(description="Days: 7 or 30.")
    prompt: (
        Annotated[str, Field(max_length=MAX_PROMPT_CHARS, pattern=NOT_BLANK_PATTERN)] | Blank | None
    ) = Field(
        default=None,
        description=f"Topic or instruction, at most {MAX_PROMPT_CHARS} characters once trimmed.",
    )
    youtubeUrl: HttpUrlText | Blank | None = Field(
        default=None, description="A video page (public http(s)); its captions are the source."
    )
    # In a form the field may repeat, each one a URL or comma-separated URLs.
    articleUrls: str | list[str] | None = Field(
        default=None,
        description=f"Comma-separated URLs, or an array of them: at most {MAX_ARTICLE_URLS} "
        "different public http(s) URLs.",
    )
    contentStyleId: str | None = Field(default=None, description="A style's id.")


class CalendarFormBody(CalendarJsonBody):
    """7 or 30 days of drafts from a prompt, a video, articles and/or a PDF: one at least."""

    model_config = ConfigDict(
        **DESCRIBES_ONLY,
        json_schema_extra=_one_source("prompt", "youtubeUrl", "articleUrls", "pdf"),
    )

    pdf: bytes | SkipJsonSchema[None] = Field(
        default=None, description="A PDF with a text layer, at most 10 MB."
    )
