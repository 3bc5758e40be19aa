"""The streaming multipart parser (socialgen.http.form_parts): the same fields and files
however the body is cut into chunks (a boundary split across two chunks included),
and every refusal made when the offending part arrives, not at the end."""

from __future__ import annotations

import random

import pytest

from socialgen.http.form_parts import FormParser, FormSpec, RequestBody
from socialgen.kit.errors import BadRequest
from socialgen.kit.limits import MAX_FORM_FIELD_BYTES

BOUNDARY = b"----b0undary"
SPEC = FormSpec(
    text_fields=frozenset({"prompt", "slideCount"}),
    file_fields=frozenset({"referenceImages", "brandLogo"}),
    list_fields=frozenset({"articleUrls"}),
    max_file_bytes=1000,
    indexed_fields=frozenset({"referenceImages"}),
)


def part(name: str, data: bytes, filename: str | None = None) -> bytes:
    disposition = f'form-data; name="{name}"' + (f'; filename="{filename}"' if filename else "")
    return b"--" + BOUNDARY + f"\r\nContent-Disposition: {disposition}\r\n\r\n".encode() + data


def form(*parts: bytes) -> bytes:
    return b"".join(p + b"\r\n" for p in parts) + b"--" + BOUNDARY + b"--\r\n"


BODY = form(
    part("prompt", "a lighthouse, ünïcode".encode()),
    part("articleUrls", b"https://a.example"),
    part("articleUrls", b"https://b.example"),
    # Content that looks like a boundary but is not one (no CRLF before it).
    part("referenceImages", b"\x89PNG--" + BOUNDARY + b"x\r\n-\r", "a.png"),
    part("brandLogo", b"\xff\xfe\x00"),  # binary without a filename: a file
    part("referenceImages", b"", ""),  # an empty file input: skipped
)


def parse(body: bytes, sizes: list[int] | None = None, spec: FormSpec = SPEC) -> RequestBody:
    parser = FormParser(BOUNDARY, spec)
    at = 0
    for size in sizes or [len(body)]:
        parser.feed(body[at : at + size])
        at += size
    parser.feed(body[at:])
    return parser.finish()


def test_a_form_is_the_same_however_it_is_cut() -> None:
    whole = parse(BODY)
    assert whole.fields == {
        "prompt": "a lighthouse, ünïcode",
        "articleUrls": ["https://a.example", "https://b.example"],
    }
    assert whole.files == {
        "referenceImages": [b"\x89PNG--" + BOUNDARY + b"x\r\n-\r"],
        "brandLogo": [b"\xff\xfe\x00"],
    }
    assert parse(BODY, [1] * len(BODY)) == whole  # byte by byte
    rng = random.Random(19)
    for _ in range(200):
        sizes = [rng.randint(1, 40) for _ in range(len(BODY) // 10)]
        assert parse(BODY, sizes) == whole


def test_a_preamble_and_an_epilogue_are_ignored() -> None:
    body = b"ignore me\r\n" + form(part("prompt", b"x")) + b"epilogue"
    assert parse(body).fields == {"prompt": "x"}


def refusal(body: bytes, spec: FormSpec = SPEC) -> tuple[int, str, int]:
    """The error, and how many bytes had been fed when it was raised."""
    parser = FormParser(BOUNDARY, spec)
    fed = 0
    with pytest.raises(BadRequest) as caught:
        for start in range(0, len(body), 64):
            parser.feed(body[start : start + 64])
            fed = start + 64
        parser.finish()
    return caught.value.status_code, caught.value.message, fed


def test_an_unknown_field_is_refused_at_its_headers() -> None:
    body = form(part("prompt", b"x"), part("evil", b"y" * 100_000))
    status, message, fed = refusal(body)
    assert status == 400
    assert message.startswith("The form field `evil` is not one this endpoint takes")
    assert fed < 300  # not after its 100 kB


def test_a_text_field_sent_twice_is_refused_at_once() -> None:
    body = form(*[part("prompt", b"x") for _ in range(10_000)])
    status, message, fed = refusal(body)
    assert (status, message) == (400, "The form field `prompt` is sent more than once")
    assert fed < 300


def test_too_many_parts() -> None:
    body = form(*[part("articleUrls", b"u") for _ in range(1000)])
    status, message, fed = refusal(body)
    assert (status, message) == (413, "The form has more than 64 parts")
    assert fed < 64 * 80


def test_oversized_parts_are_refused_while_they_stream_in() -> None:
    big_text = form(part("prompt", b"x" * (MAX_FORM_FIELD_BYTES * 4)))
    status, message, fed = refusal(big_text)
    assert (status, message) == (413, "The form field `prompt` is larger than 256 kB")
    assert fed < MAX_FORM_FIELD_BYTES + 1000
    big_file = form(
        part("referenceImages", b"\x00", "a.png"), part("referenceImages", b"\x00" * 5000, "b.png")
    )
    assert refusal(big_file)[:2] == (413, "referenceImages[1] is larger than 1000 bytes")


@pytest.mark.parametrize(
    "body",
    [
        part("prompt", b"x"),  # never closed
        b"--" + BOUNDARY + b"junk\r\n\r\nx",  # text after the boundary
    ],
)
def test_malformed_forms(body: bytes) -> None:
    status, message, _ = refusal(body)
    assert status == 400 and message.startswith("Malformed multipart body")
