"""The cursor of the post listings: where the next page starts.

Pages run in the listings' order, latest timeline time first, ties by id (latest
first too). A cursor names the last post of a page by those two values, so the next
page is one indexed range scan from there (no OFFSET), and posts added or moved
meanwhile neither repeat nor shift what follows.

Form: `<timeline time in microseconds since 1970-01-01 UTC>_<post id>`, e.g.
`1795322110123456_3f2a9c...`. Callers should treat it as opaque; it is kept this
plain so that CURSOR_PATTERN describes every valid cursor (the OpenAPI document
declares it): any string matching it names a position, and the page after it is
answered.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import NamedTuple

from socialgen.kit.errors import BadRequest

BAD_CURSOR = "cursor is not valid: pass the nextCursor of the previous page"
# 17 digits: up to year 5138, always a valid datetime.
CURSOR_PATTERN = r"^[0-9]{1,17}_[0-9A-Za-z-]{1,64}$"
MAX_CURSOR_CHARS = 17 + 1 + 64
_CURSOR = re.compile(CURSOR_PATTERN)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


class Position(NamedTuple):
    timeline_at: datetime  # aware UTC
    post_id: str


def encode_cursor(position: Position) -> str:
    micros = (position.timeline_at - _EPOCH) // _MICROSECOND
    return f"{max(micros, 0)}_{position.post_id}"


def decode_cursor(cursor: str) -> Position:
    """The position a cursor names, or a 400 for anything that is not a cursor."""
    if not _CURSOR.fullmatch(cursor):
        raise BadRequest(BAD_CURSOR)
    micros, _, post_id = cursor.partition("_")
    return Position(_EPOCH + int(micros) * _MICROSECOND, post_id)
