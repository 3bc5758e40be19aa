"""The cursor of the post listings: where the next page starts.

Pages run in the listings' order, latest timeline time first, ties by id (latest
first too). A cursor names the last post of a page by those two values, so the next
page is one indexed range scan from there (no OFFSET), and posts added or moved
meanwhile neither repeat nor shift what follows. It is opaque to callers:
base64url (no padding) of `<timeline time, ISO 8601 with microseconds>|<post id>`.
"""

from __future__ import annotations

import base64
import binascii
from datetime import UTC, datetime
from typing import NamedTuple

from socialgen.errors import BadRequest

BAD_CURSOR = "cursor is not valid: pass the nextCursor of the previous page"
MAX_CURSOR_CHARS = 200


class Position(NamedTuple):
    timeline_at: datetime  # aware UTC
    post_id: str


def encode_cursor(position: Position) -> str:
    moment = position.timeline_at.astimezone(UTC).replace(tzinfo=None)
    text = f"{moment.isoformat(timespec='microseconds')}|{position.post_id}"
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> Position:
    """The position a cursor names, or a 400 for anything this module did not make."""
    if not cursor or len(cursor) > MAX_CURSOR_CHARS:
        raise BadRequest(BAD_CURSOR)
    try:
        text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        moment_text, post_id = text.split("|")
        moment = datetime.fromisoformat(moment_text)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        raise BadRequest(BAD_CURSOR) from None
    if not post_id or moment.tzinfo is not None:
        raise BadRequest(BAD_CURSOR)
    return Position(moment.replace(tzinfo=UTC), post_id)
