"""Reading an upload (a request body, a file part) with a size cap.

Below every user: the request-body reader and the carousel API read HTTP bodies
with it, and the PDF reader (`sources/pdf.py`) wraps it with its own cap and
wording. Only the foundation (errors) is needed, so any layer may use it.
"""

from __future__ import annotations

from collections.abc import AsyncIterable

from socialgen.kit.errors import BadRequest


async def read_capped(chunks: AsyncIterable[bytes], limit: int, *, too_large: str) -> bytes:
    """Collect an upload, refusing it (413, `too_large`) as soon as it passes `limit` bytes.

    Stops reading the stream at the first chunk over the limit, so an oversized
    upload costs at most `limit` plus one chunk of memory, never the whole file.
    """
    body = bytearray()
    async for chunk in chunks:
        body += chunk
        if len(body) > limit:
            raise BadRequest(too_large, status_code=413)
    return bytes(body)


def size_text(count: int) -> str:
    """A byte count for a message: "10 MB", "256 kB", "10 bytes"."""
    mib = 1024 * 1024  # binary units, as the caps are meant
    if count >= mib:
        return f"{count / mib:.4g} MB"
    if count >= 1024:
        return f"{count / 1024:g} kB"
    return f"{count} bytes"
