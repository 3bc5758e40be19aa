"""A request body that is JSON or multipart/form-data, read with a size cap.

Endpoints that take files (calendar PDF, carousel images) accept either form:
JSON for text-only requests, multipart when files come along. The body is read
as it streams in and refused (413) as soon as it passes the cap, never after
holding it all in memory.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from email.message import Message
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any

from starlette.requests import Request

from socialgen.errors import BadRequest
from socialgen.uploads import read_capped

MAX_JSON_BYTES = 256 * 1024
FORM_OVERHEAD_BYTES = 256 * 1024  # text fields and part headers around the files


@dataclass
class RequestBody:
    fields: dict[str, Any] = field(default_factory=dict)
    # Every file part by field name, in order; a field sent twice gives two files.
    files: dict[str, list[bytes]] = field(default_factory=dict)


async def read_body(
    request: Request,
    *,
    file_fields: frozenset[str],
    list_fields: frozenset[str] = frozenset(),
    max_file_bytes: int,
    too_large: str,
) -> RequestBody:
    """JSON object, or form fields plus the files of `file_fields`. Form fields named
    in `list_fields` collect every value sent (JSON gives them as it gives them)."""
    content_type = request.headers.get("content-type", "")
    media_type = content_type.split(";", 1)[0].strip().lower()
    if media_type == "multipart/form-data":
        raw = await read_capped(
            request.stream(), max_file_bytes + FORM_OVERHEAD_BYTES, too_large=too_large
        )
        return parse_form(content_type, raw, file_fields, list_fields)
    if media_type in ("application/json", ""):
        raw = await read_capped(
            request.stream(), MAX_JSON_BYTES, too_large="The JSON body is larger than 256 KB"
        )
        return RequestBody(fields=json_object(raw))
    raise BadRequest("Send the request as application/json or multipart/form-data")


def json_object(raw: bytes) -> dict[str, Any]:
    """A JSON object body (an empty body is an empty object), or a clear 400."""
    try:
        fields = json.loads(raw or b"{}")
    except ValueError as error:
        raise BadRequest(f"Malformed JSON body: {error}") from None
    if not isinstance(fields, dict):
        raise BadRequest("The request body must be a JSON object")
    return fields


def optional_text(value: Any, name: str) -> str | None:
    """A text field, trimmed; None when absent or blank; 400 when not a string."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise BadRequest(f"{name} must be a string")
    return value.strip() or None


def parse_form(
    content_type: str,
    body: bytes,
    file_fields: frozenset[str],
    list_fields: frozenset[str] = frozenset(),
) -> RequestBody:
    envelope = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode()
    message = BytesParser(policy=HTTP).parsebytes(envelope + body)
    if not message.is_multipart():
        raise BadRequest("Malformed multipart body")
    result = RequestBody()
    for part in message.iter_parts():
        assert isinstance(part, Message)
        name = part.get_param("name", header="content-disposition")
        if not isinstance(name, str):
            continue
        payload = part.get_payload(decode=True)
        data = payload if isinstance(payload, bytes) else b""
        if name in file_fields and _is_file(part.get_filename(), data):
            if not data and not part.get_filename():
                continue  # an empty file input a browser sends anyway
            result.files.setdefault(name, []).append(data)
        elif name in list_fields:
            result.fields.setdefault(name, []).append(data.decode("utf-8", "replace"))
        else:
            result.fields[name] = data.decode("utf-8", "replace")
    return result


def _is_file(filename: str | None, data: bytes) -> bool:
    """A part with a filename is a file; without one, binary data is a file too
    (clients that omit the filename), and text is a plain field (e.g. a URL
    given where a file could also be sent)."""
    if filename is not None:
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return not data
