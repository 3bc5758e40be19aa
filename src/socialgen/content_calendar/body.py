"""The calendar request body: JSON, or multipart/form-data with a `pdf` file."""

from __future__ import annotations

from starlette.requests import Request

from socialgen.content_calendar.schemas import CalendarFormBody, CalendarRequest
from socialgen.errors import BadRequest
from socialgen.limits import MAX_PDF_BYTES
from socialgen.request_body import FormSpec, form_fields, media_type, read_body

TOO_LARGE = "The PDF is larger than 10 MB"
# The fields the form model (its OpenAPI body) lists: a part named otherwise is refused when its
# headers arrive. The PDF's own cap is checked below (400, as ever); the form's cap
# (limits.BODY_LIMITS) bounds what it costs to receive.
CALENDAR_FORM = FormSpec(
    text_fields=form_fields(CalendarFormBody) - {"pdf", "articleUrls"},
    file_fields=frozenset({"pdf"}),
    list_fields=frozenset({"articleUrls"}),
)


async def read_calendar_request(request: Request) -> CalendarRequest:
    body = await read_body(request, CALENDAR_FORM)
    pdfs = body.files.get("pdf", [])
    if len(pdfs) > 1:
        raise BadRequest("Send one PDF")
    pdf = pdfs[0] if pdfs else None
    if pdf is not None and len(pdf) > MAX_PDF_BYTES:
        raise BadRequest(TOO_LARGE)
    return CalendarRequest.from_fields(body.fields, pdf, form=_is_form(request))


def _is_form(request: Request) -> bool:
    """A multipart form gives every field as text; JSON gives numbers as numbers."""
    return media_type(request.headers.get("content-type", "")) == "multipart/form-data"
