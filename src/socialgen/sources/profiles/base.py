"""What every profile adapter shares: the post it finds, the adapter interface,
the fetch caps and a JSON GET through the SSRF guard."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING
from urllib.parse import SplitResult

from socialgen.kit.errors import BadRequest
from socialgen.sources.fetch import FetchedPage, SourceError, fetch

if TYPE_CHECKING:
    from socialgen.config.loading import AppSettings

# A profile page or feed is small; a 2 MB answer is a wrong link or an attack.
MAX_BYTES = 2_000_000
# Per request; an import makes at most three (a failed Mastodon lookup, page, feed).
TIMEOUT = 10.0
JSON_ACCEPT = "application/json"


class NoPostsFound(BadRequest):
    """The profile URL was read but holds no posts: the request cannot be served as
    asked, which is not a malformed request, hence 422 rather than 400."""

    status_code = 422


@dataclass(frozen=True)
class RawPost:
    """A post as an adapter found it: plain text (HTML already turned into text),
    not yet normalised; `published` is timezone-aware, None when the source has none."""

    text: str
    published: datetime | None
    url: str | None = None


# Reads the posts at a profile URL. None means "not this kind of source after all"
# (e.g. a /@user path on a site without the Mastodon API): the next adapter tries.
# The settings are the caller's Runtime's (the LinkedIn endpoint, the Bluesky AppView).
Reader = Callable[[str, int, "AppSettings"], Awaitable[list[RawPost] | None]]


@dataclass(frozen=True)
class Adapter:
    name: str
    claims: Callable[[SplitResult], bool]  # cheap test on the URL alone, no network
    read: Reader


def host_of(parts: SplitResult) -> str:
    """Lower-case host without a trailing dot or a leading www."""
    host = (parts.hostname or "").rstrip(".")
    return host.removeprefix("www.")


async def get(url: str, accept: str, *, allow_private: bool) -> FetchedPage:
    """GET through the guard; `allow_private`: the caller's allow_private_urls setting."""
    return await fetch(
        url, max_bytes=MAX_BYTES, timeout=TIMEOUT, accept=accept, allow_private=allow_private
    )


async def get_json(url: str, *, allow_private: bool) -> object:
    page = await get(url, JSON_ACCEPT, allow_private=allow_private)
    try:
        data: object = json.loads(page.body)
    except ValueError:
        raise SourceError(f"Could not read {url}: the answer is not JSON") from None
    return data


def text_field(item: dict[str, object], *keys: str) -> str | None:
    """The first of `keys` holding a non-blank string."""
    for key in keys:
        value = item.get(key)
        if isinstance(value, str) and value.strip():
            return value
    return None
