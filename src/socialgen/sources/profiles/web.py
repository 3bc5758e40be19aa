"""Any other web address: a feed, or an HTML page that links a feed or marks its
posts up. One fetch decides which, by what the server actually sent."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING
from urllib.parse import SplitResult

from socialgen.kit.errors import BadRequest
from socialgen.sources.fetch import SourceError
from socialgen.sources.profiles import feeds, html
from socialgen.sources.profiles.base import Adapter, RawPost, get

if TYPE_CHECKING:
    from socialgen.config.loading import AppSettings

WEB_ACCEPT = f"{feeds.FEED_ACCEPT}, text/html;q=0.8, application/xhtml+xml;q=0.8, */*;q=0.1"


def claims(parts: SplitResult) -> bool:
    return True  # the fallback: any http(s) URL may hold a feed or marked-up posts


async def read(url: str, limit: int, settings: AppSettings) -> list[RawPost] | None:
    page = await get(url, WEB_ACCEPT, allow_private=settings.allow_private_urls)
    # Parsing is CPU-bound (up to the 2 MB cap): off the event loop.
    if feeds.is_feed(page):
        return await asyncio.to_thread(feeds.parse, page)
    if not html.looks_like_html(page):
        shown = page.media_type or "no content type"
        raise SourceError(f"Could not read {url}: it is neither a web page nor a feed ({shown})")
    document = await asyncio.to_thread(html.parse_document, page)

    # A feed states dates and separates posts reliably; markup in the page is the
    # fallback for sites without one (or whose feed is broken or empty).
    feed_error: BadRequest | None = None
    feed_url = feeds.discover(document, page.final_url)
    if feed_url is not None:
        try:
            feed = await get(feed_url, feeds.FEED_ACCEPT, allow_private=settings.allow_private_urls)
            posts = await asyncio.to_thread(feeds.parse, feed)
        except BadRequest as exc:  # also the guard refusing where the link points
            feed_error = exc
        else:
            if posts:
                return posts
    posts = await asyncio.to_thread(html.entries, document, page.final_url)
    if not posts and feed_error is not None:
        raise feed_error  # the page has nothing, and its feed said why
    return posts


ADAPTER = Adapter(name="web", claims=claims, read=read)
