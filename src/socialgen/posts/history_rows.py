"""Published posts of an import file: the date, link and counts a row brings.

A published row (`status` published) needs `publishedAt` (ISO 8601; without an offset
it is UTC; `date`, as `posts export` writes it, is read when `publishedAt` is absent),
and may carry `postUrl` and the counts `likes`, `reposts`, `comments`, `impressions`
(whole numbers, 0 or more). A row with at least one count was measured: it gets one
metrics snapshot at those values (a missing count is 0, a missing `impressions`
stays unknown). A row with no count at all, such as a post a `posts export` found
never measured (its counts empty), comes in as published but unmeasured, which
insights leave out: zero likes and "never read" are not the same thing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from socialgen.kit.clock import DateOutOfRange, iso, parse_iso
from socialgen.kit.errors import BadRequest
from socialgen.kit.text_check import text_problem
from socialgen.store.tables import PostStatus

MAX_URL_CHARS = 2048  # Post.post_url
MAX_COUNT = 2**31 - 1  # the count columns are 32-bit integers on PostgreSQL

# Accepted names of each field, compared case-insensitively (keys are lower-cased).
HISTORY_FIELDS: dict[str, tuple[str, ...]] = {
    "publishedAt": ("publishedat", "published_at", "date"),
    "postUrl": ("posturl", "post_url", "url"),
}
COUNT_NAMES = ("likes", "reposts", "comments", "impressions")  # one name each


@dataclass(frozen=True, slots=True)
class PublishedHistory:
    """What a published row brings besides its content."""

    published_at: datetime  # UTC
    post_url: str | None = None
    likes: int = 0
    reposts: int = 0
    comments: int = 0
    impressions: int | None = None
    measured: bool = True  # carries counts: one snapshot at these values


def published_history(
    record: Mapping[str, Any],
    now: datetime,
    read_date: Callable[[str], datetime] = parse_iso,
) -> PublishedHistory:
    """The published part of a row, or a BadRequest naming the field at fault.
    `read_date` reads publishedAt (an import's: naive times in the creator's zone)."""
    date_text = _text(record, "publishedAt")
    if date_text is None:
        raise BadRequest("a published post needs publishedAt (ISO 8601, e.g. 2025-03-01T09:00:00Z)")
    try:
        published_at = read_date(date_text)
    except DateOutOfRange as error:
        raise BadRequest(f"publishedAt: {error}") from None
    except ValueError:
        raise BadRequest(
            f"publishedAt: bad date {date_text!r}: use ISO 8601, e.g. 2025-03-01T09:00:00Z"
        ) from None
    if published_at > now:
        raise BadRequest(f"publishedAt is in the future ({iso(published_at)})")
    url = _text(record, "postUrl")
    if url is not None and (problem := text_problem(url, "postUrl")) is not None:
        raise BadRequest(problem)  # a URL is printed as it is: no control characters
    if url is not None and (
        not url.lower().startswith(("https://", "http://")) or len(url) > MAX_URL_CHARS
    ):
        raise BadRequest(
            f"postUrl must be an http(s) address of at most {MAX_URL_CHARS} characters"
        )
    counts = [_count(record.get(name), name) for name in COUNT_NAMES]
    likes, reposts, comments, impressions = counts
    return PublishedHistory(
        published_at=published_at,
        post_url=url,
        likes=likes or 0,
        reposts=reposts or 0,
        comments=comments or 0,
        impressions=impressions,
        measured=counts != [None] * len(COUNT_NAMES),
    )


def implied_status(record: Mapping[str, Any]) -> str:
    """The status of a row that names none: published when it has a publishedAt (a
    history file without a status column), else draft."""
    dated = any(record.get(key) not in (None, "") for key in ("publishedat", "published_at"))
    return PostStatus.PUBLISHED if dated else PostStatus.DRAFT


def _raw(record: Mapping[str, Any], name: str) -> Any:
    """The first non-empty value among the field's accepted names."""
    for key in HISTORY_FIELDS[name]:
        value = record.get(key)
        if value is not None and value != "":
            return value
    return None


def _text(record: Mapping[str, Any], name: str) -> str | None:
    value = _raw(record, name)
    if value is None:
        return None
    if not isinstance(value, str):
        raise BadRequest(f"{name} must be text, not {type(value).__name__}")
    return value.strip() or None


def _count(value: Any, name: str) -> int | None:
    """A whole number 0 or more: a JSON number, or text of digits (CSV cells); None
    when absent (or an empty cell)."""
    number: int | None = None
    if type(value) is str:  # first: every count of a CSV file
        text = value.strip()
        if text.isascii() and text.isdigit():
            number = int(text)
        elif not value:
            return None
    elif value is None:
        return None
    elif isinstance(value, bool):  # a JSON true is not a count
        number = None
    elif isinstance(value, int):
        number = value
    elif isinstance(value, float) and value.is_integer():
        number = int(value)
    if number is None or number < 0:
        raise BadRequest(f"{name} must be a whole number, 0 or more (got {value!r})")
    if number > MAX_COUNT:
        raise BadRequest(f"{name} is too large (at most {MAX_COUNT:,})")
    return number


def history_snapshot(
    snapshot_id: str, post_id: str, history: PublishedHistory, taken_at: datetime
) -> dict[str, Any]:
    """The one metrics snapshot row of a measured row (an unmeasured one has none): no
    publication, since the counts were read elsewhere."""
    return {
        "id": snapshot_id,
        "post_id": post_id,
        "publication_id": None,
        "taken_at": taken_at,
        "likes": history.likes,
        "reposts": history.reposts,
        "comments": history.comments,
        "impressions": history.impressions,
    }
