"""The calendar request body: JSON, or multipart/form-data with a `pdf` file.

The body is read as it streams in and refused as soon as it passes the PDF cap
(plus room for the other fields), never after holding it all in memory.
"""

from __future__ import annotations

import json
from email.message import Message
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any

from starlette.requests import Request

from socialgen.content_calendar.requests import CalendarRequest
from socialgen.errors import BadRequest

FORM_OVERHEAD_BYTES = 256 * 1024  # the text fields and part headers around the PDF
MAX_JSON_BYTES = 256 * 1024


async def read_calendar_request(request: Request) -> CalendarRequest:
    from socialgen.limits import MAX_PDF_BYTES
    from socialgen.sources.pdf import read_upload_capped

    content_type = request.headers.get("content-type", "")
    media_type = content_type.split(";", 1)[0].strip().lower()
    if media_type == "multipart/form-data":
        body = await read_upload_capped(
            request.stream(),
            MAX_PDF_BYTES + FORM_OVERHEAD_BYTES,
            too_large="The PDF is larger than 10 MB",
        )
        fields, pdf = _form(content_type, body)
        if pdf is not None and len(pdf) > MAX_PDF_BYTES:
            raise BadRequest("The PDF is larger than 10 MB")
        return CalendarRequest.from_fields(fields, pdf)
    if media_type in ("application/json", ""):
        body = await read_upload_capped(request.stream(), MAX_JSON_BYTES)
        try:
            fields = json.loads(body or b"{}")
        except ValueError as error:
            raise BadRequest(f"Malformed JSON body: {error}") from None
        if not isinstance(fields, dict):
            raise BadRequest("The request body must be a JSON object")
        return CalendarRequest.from_fields(fields)
    raise BadRequest("Send the calendar request as application/json or multipart/form-data")


def _form(content_type: str, body: bytes) -> tuple[dict[str, Any], bytes | None]:
    """Fields and the `pdf` file of a multipart/form-data body."""
    envelope = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode()
    message = BytesParser(policy=HTTP).parsebytes(envelope + body)
    if not message.is_multipart():
        raise BadRequest("Malformed multipart body")
    fields: dict[str, Any] = {}
    pdf: bytes | None = None
    for part in message.iter_parts():
        assert isinstance(part, Message)
        name = part.get_param("name", header="content-disposition")
        if not isinstance(name, str):
            continue
        payload = part.get_payload(decode=True)
        data = payload if isinstance(payload, bytes) else b""
        if name == "pdf":
            if part.get_filename() is None and not data:
                continue
            pdf = data
        elif name == "articleUrls":
            fields.setdefault("articleUrls", []).append(data.decode("utf-8", "replace"))
        else:
            fields[name] = data.decode("utf-8", "replace")
    return fields, pdf
