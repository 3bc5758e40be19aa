"""What a network's answer says, read as a file import reads it: counts are whole
numbers from 0 to MAX_COUNT (the store's columns are 32-bit), a post's time is within
the dates socialgen keeps (kit/clock.py), and a post's address is an http(s) URL or
nothing.

A server that says a post has -3 likes, 10**30 of them, or "many", is not understood:
its answer is refused with a `PublishError` naming the count, rather than stored (a
negative count would make insights' baseline meaningless; 10**30 would not fit the
column). A `javascript:` or `data:` address is dropped: it would be served to the web
app and printed as a link.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from socialgen.kit.clock import in_range, parse_iso
from socialgen.publishing.networks.base import PublishError

MAX_COUNT = 2**31 - 1  # the count columns are 32-bit integers on PostgreSQL
_LONGEST_DIGITS = 12  # more digits than any count can have: refused before int()


def count_from(network: str, value: Any, what: str) -> int:
    """A count from `network`'s answer (`what`: "likes of 123"); absent is 0."""
    number: int | None = None
    if value is None:
        return 0
    if isinstance(value, bool):
        number = None  # a JSON true is not a count
    elif isinstance(value, int):
        number = value
    elif isinstance(value, str) and value.isascii() and value.isdigit():
        number = int(value) if len(value) <= _LONGEST_DIGITS else MAX_COUNT + 1
    if number is None or not 0 <= number <= MAX_COUNT:
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
        raise PublishError(
            f"{network}'s answer was not understood: {what} is {shown}, not a whole number "
            f"from 0 to {MAX_COUNT:,}",
            retryable=False,
        )
    return number


def web_address(value: Any) -> str:
    """A post's address as the network gives it, if it is an http(s) URL; else ""."""
    text = str(value or "").strip()
    parts = urlsplit(text) if len(text) <= 2048 else None
    if parts is None or parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return ""
    return text


def moment_from(network: str, value: Any, what: str) -> datetime:
    """A time from `network`'s answer (a datetime a client library made, or ISO 8601
    text), in UTC; one that is not a time, or outside the accepted range, is an answer
    not understood."""
    try:
        if isinstance(value, datetime):
            moment = value if value.tzinfo else value.replace(tzinfo=UTC)
            return in_range(moment.astimezone(UTC))
        return parse_iso(str(value))
    except (ValueError, OverflowError) as error:
        raise PublishError(
            f"{network}'s answer was not understood: {what}: {error}", retryable=False
        ) from None
