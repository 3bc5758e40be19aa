"""The calendar request body: JSON, or multipart/form-data with a `pdf` file.

One model, `CalendarBody`, reads both and is the endpoint's OpenAPI body. Text is
trimmed, and a blank or null optional field is the same as leaving it out;
calendarLength is a JSON number ("7" is refused in a JSON body; a form, where every
field is text, sends it as digits). At least one source must be given (prompt,
youtubeUrl, articleUrls or, in a form, pdf): the plan checks it, for the CLI too.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, cast

from pydantic import ConfigDict, Field
from starlette.requests import Request

from socialgen.content_calendar.plan import calendar_length
from socialgen.content_calendar.schemas import (
    CALENDAR_LENGTH_INVALID,
    MAX_ARTICLE_URLS,
    MAX_PROMPT_CHARS,
    CalendarRequest,
    article_urls,
)
from socialgen.http.body_models import (
    Blank,
    BodyModel,
    FormOnly,
    HttpUrlText,
    form_fields,
    read_model,
    reads,
)
from socialgen.http.request_body import FormSpec, optional_text
from socialgen.kit.errors import BadRequest
from socialgen.kit.limits import MAX_PDF_BYTES, NOT_BLANK_PATTERN, SPACE_CLASS

TOO_LARGE = "The PDF is larger than 10 MB"
CalendarDays = Literal[7, 30]  # limits.CALENDAR_LENGTHS (tests/test_body_models.py checks)
PromptText = Annotated[str, Field(max_length=MAX_PROMPT_CHARS, pattern=NOT_BLANK_PATTERN)]


def _length(value: Any, form: bool) -> int:
    if isinstance(value, str) and not form:
        raise BadRequest(CALENDAR_LENGTH_INVALID)
    return calendar_length(value)


def _text(name: str) -> Any:
    return reads(lambda value, _form: optional_text(value, name))


def _pdf(value: Any, form: bool) -> bytes | None:
    """A form's PDF file; JSON carries none (a `pdf` key there is ignored)."""
    if form and isinstance(value, str):
        raise BadRequest("The form field `pdf` must be a PDF file, not text")
    if not form or not isinstance(value, list):
        return None
    if len(value) > 1:
        raise BadRequest("Send one PDF")
    if len(value[0]) > MAX_PDF_BYTES:
        raise BadRequest(TOO_LARGE)
    return cast(bytes, value[0])


# articleUrls: a comma-separated string, or an array of them; empty parts are dropped.
_A_URL_IN_TEXT = f"[^,{SPACE_CLASS}]"
_GIVEN: dict[str, Any] = {"type": "string", "pattern": NOT_BLANK_PATTERN}
_ARTICLES_GIVEN: dict[str, Any] = {
    "anyOf": [
        {"type": "string", "pattern": _A_URL_IN_TEXT},
        {"type": "array", "contains": {"type": "string", "pattern": _A_URL_IN_TEXT}},
    ]
}


def _one_source(schema: dict[str, Any]) -> None:
    """At least one source is given (not blank): JSON Schema's anyOf over the object,
    which a field cannot say; the PDF is one in a form only.

    Written here because pydantic has no type for it: a discriminated union needs a tag
    field the body does not have (SPEC.md), a callable discriminator documents `oneOf`
    (a body with two sources would match two and be refused), a plain union of four
    models repeats every field four times, and none says `contains` (an articleUrls
    array with one URL among blank items is a source; tests/test_api_contract.py)."""
    given = {"prompt": _GIVEN, "youtubeUrl": _GIVEN, "articleUrls": _ARTICLES_GIVEN}
    schema["anyOf"] = [
        {"required": [name], "properties": {name: given.get(name, {})}}
        for name in ("prompt", "youtubeUrl", "articleUrls")
    ] + [{"required": ["pdf"], "properties": {"pdf": {}}, "x-form-only": True}]


class CalendarBody(BodyModel):
    """7 or 30 days of drafts from a prompt, a video, articles and/or a PDF: one at least."""

    model_config = ConfigDict(json_schema_extra=_one_source)

    calendarLength: Annotated[CalendarDays, reads(_length)] = Field(description="Days: 7 or 30.")
    prompt: Annotated[
        Annotated[str, Field(max_length=MAX_PROMPT_CHARS, pattern=NOT_BLANK_PATTERN)]
        | Blank
        | None,
        _text("prompt"),
    ] = Field(
        default=None,
        description=f"Topic or instruction, at most {MAX_PROMPT_CHARS} characters once trimmed.",
    )
    youtubeUrl: Annotated[HttpUrlText | Blank | None, _text("youtubeUrl")] = Field(
        default=None, description="A video page (public http(s)); its captions are the source."
    )
    # In a form the field may repeat, each one a URL or comma-separated URLs.
    articleUrls: Annotated[
        str | list[str] | None, reads(lambda value, _form: article_urls(value))
    ] = Field(
        default=None,
        description=f"Comma-separated URLs, or an array of them: at most {MAX_ARTICLE_URLS} "
        "different public http(s) URLs.",
    )
    contentStyleId: Annotated[str | None, _text("contentStyleId")] = Field(
        default=None, description="A style's id."
    )
    pdf: Annotated[bytes | None, FormOnly(), reads(_pdf)] = Field(
        default=None, description="A PDF with a text layer, at most 10 MB."
    )

    def request(self) -> CalendarRequest:
        return CalendarRequest(
            calendar_length=self.calendarLength,
            prompt=self.prompt,
            youtube_url=self.youtubeUrl,
            article_urls=cast(list[str], self.articleUrls),  # `reads` made it a list
            content_style_id=self.contentStyleId,
            pdf=self.pdf,
        )


# The fields the model lists: a part named otherwise is refused when its headers
# arrive. The PDF's own cap is checked by the model (400, as ever); the form's cap
# (declared on the route) bounds what it costs to receive.
CALENDAR_FORM = FormSpec(
    text_fields=form_fields(CalendarBody) - {"pdf", "articleUrls"},
    file_fields=frozenset({"pdf"}),
    list_fields=frozenset({"articleUrls"}),
)


async def read_calendar_request(request: Request) -> CalendarRequest:
    body = await read_model(request, CalendarBody, CALENDAR_FORM)
    return body.request()
