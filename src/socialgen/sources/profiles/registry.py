"""Which adapter reads a profile URL: the first in order that claims the URL and
does not decline once it looks (Mastodon declines when the API is missing)."""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from socialgen.sources.profiles import bluesky, linkedin, mastodon, web
from socialgen.sources.profiles.base import Adapter, RawPost

if TYPE_CHECKING:
    from socialgen.config.loading import AppSettings

# By host first (exact), then by path shape (a guess Mastodon confirms), then the
# generic web reader, which takes anything.
ADAPTERS: tuple[Adapter, ...] = (linkedin.ADAPTER, bluesky.ADAPTER, mastodon.ADAPTER, web.ADAPTER)


async def read_posts(url: str, limit: int, settings: AppSettings) -> list[RawPost]:
    parts = urlsplit(url)
    for adapter in ADAPTERS:
        if adapter.claims(parts):
            posts = await adapter.read(url, limit, settings)
            if posts is not None:
                return posts
    return []
