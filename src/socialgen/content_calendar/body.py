"""The calendar request body: JSON, or multipart/form-data with a `pdf` file."""

from __future__ import annotations

from starlette.requests import Request

from socialgen.content_calendar.requests import CalendarRequest
from socialgen.errors import BadRequest
from socialgen.limits import MAX_PDF_BYTES
from socialgen.request_body import read_body

TOO_LARGE = "The PDF is larger than 10 MB"


async def read_calendar_request(request: Request) -> CalendarRequest:
    body = await read_body(
        request,
        file_fields=frozenset({"pdf"}),
        list_fields=frozenset({"articleUrls"}),
        max_file_bytes=MAX_PDF_BYTES,
        too_large=TOO_LARGE,
    )
    pdfs = body.files.get("pdf", [])
    if len(pdfs) > 1:
        raise BadRequest("Send one PDF")
    pdf = pdfs[0] if pdfs else None
    if pdf is not None and len(pdf) > MAX_PDF_BYTES:
        raise BadRequest(TOO_LARGE)
    return CalendarRequest.from_fields(body.fields, pdf, form=_is_form(request))


def _is_form(request: Request) -> bool:
    """A multipart form gives every field as text; JSON gives numbers as numbers."""
    media_type = request.headers.get("content-type", "").split(";", 1)[0]
    return media_type.strip().lower() == "multipart/form-data"
