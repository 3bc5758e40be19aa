"""A multipart/form-data body parsed as it streams in, part by part.

Each chunk costs a search for the boundary over that chunk and a copy into the part
being received, never a pass over the whole body: the event loop stays free however
the body is cut. A part is judged when its headers are met: a field the endpoint
does not take, a text field sent twice, a form of more than MAX_FORM_PARTS parts, a
text field (or file) over its cap are refused there (400, or 413 for sizes), not
after the whole body has been received. `finish` gives the fields and files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from email.message import Message
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any

from socialgen.kit.errors import BadRequest
from socialgen.kit.limits import MAX_FORM_FIELD_BYTES, MAX_FORM_PART_HEADER_BYTES, MAX_FORM_PARTS
from socialgen.kit.text_check import check_text
from socialgen.kit.uploads import size_text

MALFORMED = "Malformed multipart body"


@dataclass(frozen=True)
class FormSpec:
    """The fields a form may carry. A name in `file_fields` may be a file (a part with
    a filename, or binary data); `list_fields` collect every value sent;
    `max_file_bytes` caps one file part (None: only the body's cap applies), with
    `file_too_large(label)` as its 413 message."""

    text_fields: frozenset[str]
    file_fields: frozenset[str] = frozenset()
    list_fields: frozenset[str] = frozenset()
    max_file_bytes: int | None = None
    file_too_large: str = "{label} is larger than {size}"
    indexed_fields: frozenset[str] = frozenset()  # named "referenceImages[2]" in messages

    def expected(self) -> frozenset[str]:
        return self.text_fields | self.file_fields | self.list_fields


@dataclass
class RequestBody:
    fields: dict[str, Any] = field(default_factory=dict)
    # Every file part by field name, in order; a field sent twice gives two files.
    files: dict[str, list[bytes]] = field(default_factory=dict)


@dataclass
class _Part:
    name: str | None  # None: a part without a name, skipped as before
    filename: str | None
    capped: bool  # a text field: MAX_FORM_FIELD_BYTES applies while it streams in
    label: str  # for messages: "brandLogo", "referenceImages[2]"
    data: bytearray = field(default_factory=bytearray)


def boundary_of(content_type: str) -> bytes:
    """The boundary of a multipart Content-Type, or a 400."""
    header = Message()
    header["content-type"] = content_type
    marker = header.get_param("boundary")
    if not isinstance(marker, str) or not marker or not marker.isascii() or len(marker) > 200:
        raise BadRequest(f"{MALFORMED}: the Content-Type has no usable boundary")
    return marker.encode("ascii")


class FormParser:
    """Feed it the body's chunks in order, then call `finish`."""

    def __init__(self, boundary: bytes, spec: FormSpec) -> None:
        self._spec = spec
        self._expected = spec.expected()
        # Every delimiter is CRLF "--" boundary; the first may open the body, so the
        # body is read as if a CRLF came before it.
        self._delimiter = b"\r\n--" + boundary
        self._buffer = bytearray(b"\r\n")
        self._state = "preamble"  # preamble, after_delimiter, headers, data, done
        self._part: _Part | None = None
        self._parts: list[_Part] = []
        self._seen: dict[str, int] = {}

    def feed(self, chunk: bytes) -> None:
        if self._state == "done":
            return  # the epilogue, ignored
        self._buffer += chunk
        while self._step():
            pass

    def finish(self) -> RequestBody:
        if self._state != "done":
            raise BadRequest(f"{MALFORMED}: it ends before its closing boundary")
        result = RequestBody()
        for part in self._parts:
            if part.name is None:
                continue
            data = bytes(part.data)
            part.data = bytearray()  # one copy of each part at a time
            if part.name in self._spec.file_fields and _is_file(part.filename, data):
                if not data and not part.filename:
                    continue  # an empty file input a browser sends anyway
                result.files.setdefault(part.name, []).append(data)
            elif part.name in self._spec.list_fields:
                result.fields.setdefault(part.name, []).append(_field_text(part.name, data))
            else:
                result.fields[part.name] = _field_text(part.name, data)
        return result

    def _step(self) -> bool:
        """One move of the state machine; False when it needs more bytes."""
        buffer = self._buffer
        if self._state in ("preamble", "data"):
            found = buffer.find(self._delimiter)
            if found < 0:
                # Keep what may be the start of a delimiter cut across chunks.
                keep = len(self._delimiter) - 1
                if len(buffer) > keep:
                    self._take(len(buffer) - keep)
                return False
            self._take(found)
            del buffer[: len(self._delimiter)]
            self._end_part()
            self._state = "after_delimiter"
            return True
        if self._state == "after_delimiter":
            if len(buffer) < 2:
                return False
            if buffer[:2] == b"--":
                self._state = "done"
                buffer.clear()
                return False
            line_end = buffer.find(b"\r\n")
            if line_end < 0:
                if len(buffer) > 1024:
                    raise BadRequest(f"{MALFORMED}: a boundary line does not end")
                return False
            if buffer[:line_end].strip(b" \t"):
                raise BadRequest(f"{MALFORMED}: text after a boundary")
            del buffer[:line_end]  # the CRLF stays: a part without headers ends at once
            self._state = "headers"
            return True
        if self._state == "headers":
            end = buffer.find(b"\r\n\r\n")
            if end < 0:
                if len(buffer) > MAX_FORM_PART_HEADER_BYTES:
                    raise BadRequest(
                        f"A form part's headers are larger than "
                        f"{size_text(MAX_FORM_PART_HEADER_BYTES)}",
                        status_code=413,
                    )
                return False
            self._start_part(bytes(buffer[2 : end + 4]))
            del buffer[: end + 4]
            self._state = "data"
            return True
        return False

    def _take(self, count: int) -> None:
        """Move `count` bytes from the buffer into the part being received."""
        if count <= 0:
            return
        if self._part is not None:
            self._part.data += self._buffer[:count]
            self._check_size(self._part)
        del self._buffer[:count]

    def _end_part(self) -> None:
        if self._part is not None:
            self._parts.append(self._part)
            self._part = None

    def _start_part(self, raw_headers: bytes) -> None:
        if len(self._parts) >= MAX_FORM_PARTS:
            raise BadRequest(f"The form has more than {MAX_FORM_PARTS} parts", status_code=413)
        headers = BytesParser(policy=HTTP).parsebytes(raw_headers, headersonly=True)
        name = headers.get_param("name", header="content-disposition")
        filename = headers.get_param("filename", header="content-disposition")
        if not isinstance(name, str):
            self._part = _Part(None, None, capped=True, label="a form part")
            return
        check_text(name, "A form field name")
        if name not in self._expected:
            raise BadRequest(
                f"The form field `{name}` is not one this endpoint takes "
                f"(it takes {', '.join(sorted(self._expected))})"
            )
        count = self._seen.get(name, 0)
        self._seen[name] = count + 1
        if count and name not in self._spec.file_fields | self._spec.list_fields:
            raise BadRequest(f"The form field `{name}` is sent more than once")
        label = f"{name}[{count}]" if name in self._spec.indexed_fields else name
        self._part = _Part(
            name,
            filename if isinstance(filename, str) else None,
            capped=name not in self._spec.file_fields,
            label=label,
        )

    def _check_size(self, part: _Part) -> None:
        if part.capped and len(part.data) > MAX_FORM_FIELD_BYTES:
            raise BadRequest(
                f"The form field `{part.name}` is larger than {size_text(MAX_FORM_FIELD_BYTES)}",
                status_code=413,
            )
        cap = self._spec.max_file_bytes
        if not part.capped and cap is not None and len(part.data) > cap:
            raise BadRequest(
                self._spec.file_too_large.format(label=part.label, size=size_text(cap)),
                status_code=413,
            )


def _field_text(name: str, data: bytes) -> str:
    """A text field's value: UTF-8 without lone surrogates, NUL or other control
    characters (but tab and line breaks), or a clear 400."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BadRequest(
            f"The form field `{name}` is not UTF-8 text "
            f"(byte 0x{data[error.start]:02x} at position {error.start})"
        ) from None
    check_text(text, name)
    return text


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
