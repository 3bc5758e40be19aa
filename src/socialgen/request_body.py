"""A request body that is JSON or multipart/form-data, read with a size cap; and the
app-wide check of the text every request brings (path, query, JSON bodies).

Endpoints that take files (calendar PDF, carousel images) accept either form:
JSON for text-only requests, multipart when files come along. The body is read
as it streams in and refused (413) as soon as it passes the cap, never after
holding it all in memory; a text field of a form has a cap of its own, checked
while it streams in too. Every text is checked by `socialgen.text_check`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from email.message import Message
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any

from fastapi.routing import APIRoute
from starlette.requests import Request

from socialgen.errors import BadRequest
from socialgen.text_check import check_text, decode_json
from socialgen.uploads import read_capped, size_text

MAX_JSON_BYTES = 256 * 1024
FORM_OVERHEAD_BYTES = 256 * 1024  # text fields and part headers around the files
MAX_FORM_FIELD_BYTES = 256 * 1024  # one text field of a form, as much as a JSON body


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
        raw = await read_form(request, max_file_bytes + FORM_OVERHEAD_BYTES, too_large, file_fields)
        return parse_form(content_type, raw, file_fields, list_fields)
    if media_type in ("application/json", ""):
        raw = await read_capped(
            request.stream(), MAX_JSON_BYTES, too_large="The JSON body is larger than 256 KB"
        )
        return RequestBody(fields=json_object(raw))
    raise BadRequest("Send the request as application/json or multipart/form-data")


def json_object(raw: bytes) -> dict[str, Any]:
    """A JSON object body (an empty body is an empty object), or a clear 400: not
    UTF-8, not JSON, not an object, or text with a lone surrogate or a NUL."""
    fields = decode_json(raw or b"{}")
    if not isinstance(fields, dict):
        raise BadRequest("The request body must be a JSON object")
    check_text(fields)
    return fields


async def check_request_text(request: Request) -> None:
    """App-wide dependency (server.py): the path parameters, the query string and the
    JSON body FastAPI decoded for a pydantic model hold no lone surrogate or NUL.
    It runs before the endpoint's own dependencies and the endpoint.

    Bodies the endpoint reads itself (`read_body`, generate-pdf) are left alone here:
    reading them would defeat their streaming caps; `json_object` and `parse_form`
    check them."""
    for name, value in request.path_params.items():
        check_text(value, name)
    for name, value in request.query_params.multi_items():
        check_text(name, "A query parameter name")
        check_text(value, name)
    route = request.scope.get("route")
    if isinstance(route, APIRoute) and route.body_field is not None:
        raw = await request.body()  # FastAPI has read it already: this is its copy
        if raw and _is_json(request.headers.get("content-type", "")):
            # Decoded again, by the decoder `json_object` uses: strict UTF-8 (FastAPI's
            # json.loads lets UTF-8-encoded surrogates through) and one wording.
            check_text(decode_json(raw))


def _is_json(content_type: str) -> bool:
    """The media types FastAPI decodes as JSON for a body model."""
    media_type = content_type.split(";", 1)[0].strip().lower()
    return media_type == "application/json" or (
        media_type.startswith("application/") and media_type.endswith("+json")
    )


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
        check_text(name, "A form field name")
        payload = part.get_payload(decode=True)
        data = payload if isinstance(payload, bytes) else b""
        if name in file_fields and _is_file(part.get_filename(), data):
            if not data and not part.get_filename():
                continue  # an empty file input a browser sends anyway
            result.files.setdefault(name, []).append(data)
        elif name in list_fields:
            result.fields.setdefault(name, []).append(_field_text(name, data))
        else:
            result.fields[name] = _field_text(name, data)
    return result


def _field_text(name: str, data: bytes) -> str:
    """A text field's value: UTF-8 without lone surrogates or NUL, or a clear 400."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BadRequest(
            f"The form field `{name}` is not UTF-8 text "
            f"(byte 0x{data[error.start]:02x} at position {error.start})"
        ) from None
    check_text(text, name)
    return text


async def read_form(
    request: Request, limit: int, too_large: str, file_fields: frozenset[str]
) -> bytes:
    """A multipart body, refused (413) once it passes `limit` bytes (`too_large`), or
    once one of its text fields (any field not in `file_fields`) passes
    MAX_FORM_FIELD_BYTES, with a message naming that field: a 30 MB prompt is not
    "the PDF is too large"."""
    boundary = Message()
    boundary["content-type"] = request.headers.get("content-type", "")
    marker = boundary.get_param("boundary")
    if not isinstance(marker, str) or not marker or not marker.isascii():
        raise BadRequest("Malformed multipart body: the Content-Type has no usable boundary")
    scanner = _PartScanner(b"--" + marker.encode("ascii"), file_fields)
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        scanner.scan(body)
        if len(body) > limit:
            raise BadRequest(too_large, status_code=413)
    return bytes(body)


class _PartScanner:
    """Follows the parts of a multipart body as it grows, to know which part the
    bytes being received belong to. Only sizes are checked here; `parse_form` parses
    the whole body once it is in."""

    def __init__(self, delimiter: bytes, file_fields: frozenset[str]) -> None:
        self._delimiter = delimiter  # b"--" + boundary
        self._file_fields = file_fields
        self._search = 0  # where the next delimiter may start
        self._headers_at: int | None = None  # a part whose headers are not all in yet
        self._field: str | None = None  # the text field being received, if any
        self._field_at = 0  # where its value starts

    def scan(self, data: bytearray) -> None:
        while True:
            if self._headers_at is not None and not self._read_headers(data):
                return
            found = data.find(self._delimiter, self._search)
            if found < 0:
                # A delimiter may be cut across chunks: look again from before its start.
                self._search = max(self._search, len(data) - len(self._delimiter) - 2)
                self._check_field(len(data) - len(self._delimiter) - 2)
                return
            if found > 0 and data[found - 2 : found] != b"\r\n":
                self._search = found + 1  # "--boundary" inside a line is content
                continue
            self._check_field(found - 2)
            after = found + len(self._delimiter)
            if data[after : after + 2] == b"--":  # the closing delimiter
                self._field, self._search = None, len(data)
                return
            line_end = data.find(b"\r\n", after)
            if line_end < 0:
                self._search = found  # the delimiter line is not all in yet
                return
            self._field, self._headers_at = None, line_end + 2

    def _read_headers(self, data: bytearray) -> bool:
        assert self._headers_at is not None
        # From the CRLF that ended the delimiter line: a part without headers is found too.
        end = data.find(b"\r\n\r\n", self._headers_at - 2)
        if end < 0:
            return False
        headers = BytesParser(policy=HTTP).parsebytes(
            bytes(data[self._headers_at : end + 4]), headersonly=True
        )
        name = headers.get_param("name", header="content-disposition")
        if isinstance(name, str) and name not in self._file_fields:
            self._field = name
        self._field_at = self._search = end + 4
        self._headers_at = None
        return True

    def _check_field(self, received_to: int) -> None:
        if self._field is not None and received_to - self._field_at > MAX_FORM_FIELD_BYTES:
            raise BadRequest(
                f"The form field `{self._field}` is larger than {size_text(MAX_FORM_FIELD_BYTES)}",
                status_code=413,
            )


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
