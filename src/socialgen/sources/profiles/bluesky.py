"""Bluesky profiles (https://bsky.app/profile/HANDLE), read through the public
AppView's author feed, which needs no account.

SOCIALGEN_BLUESKY_APPVIEW replaces the AppView's base URL (default
https://public.api.bsky.app): for a self-hosted AppView, and for tests.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import SplitResult, quote, unquote, urlencode, urlsplit

from socialgen.kit.errors import BadRequest
from socialgen.sources.fetch import SourceError
from socialgen.sources.profiles.base import Adapter, RawPost, get_json, host_of
from socialgen.sources.profiles.dates import parse_date

if TYPE_CHECKING:
    from socialgen.config.loading import AppSettings

APPVIEW_ENV = "SOCIALGEN_BLUESKY_APPVIEW"
DEFAULT_APPVIEW = "https://public.api.bsky.app"
MAX_PAGE = 100  # the AppView's cap on `limit`
HOSTS = frozenset({"bsky.app"})
_PROFILE_PATH = re.compile(r"^/profile/([^/]+)(?:/.*)?$")
# A handle (a domain name) or a DID (did:plc:..., did:web:...).
_ACTOR = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.:_-]*$")
_REPOST = "app.bsky.feed.defs#reasonRepost"


def claims(parts: SplitResult) -> bool:
    return host_of(parts) in HOSTS


async def read(url: str, limit: int, settings: AppSettings) -> list[RawPost] | None:
    match = _PROFILE_PATH.match(urlsplit(url).path)
    handle = unquote(match.group(1)).removeprefix("@") if match else ""
    if not _ACTOR.match(handle):
        raise BadRequest(
            f"{url} is not a Bluesky profile: profile links look like "
            "https://bsky.app/profile/<handle>"
        )
    appview = (settings.bluesky_appview or "").strip().rstrip("/") or DEFAULT_APPVIEW
    # Reposts are dropped here, after the fact: ask for more so `limit` own posts remain.
    query = urlencode(
        {"actor": handle, "limit": min(limit * 2, MAX_PAGE), "filter": "posts_no_replies"}
    )
    try:
        answer = await get_json(
            f"{appview}/xrpc/app.bsky.feed.getAuthorFeed?{query}",
            allow_private=settings.allow_private_urls,
        )
    except SourceError as exc:  # e.g. 400 for an unknown handle
        raise SourceError(f"Could not read the Bluesky profile {handle}: {exc.message}") from None
    feed = answer.get("feed") if isinstance(answer, dict) else None
    if not isinstance(feed, list):
        raise SourceError(f"Could not read the Bluesky profile {handle}: unexpected answer")
    posts = []
    for item in feed:
        post = _own_post(item)
        if post is not None:
            posts.append(post)
    return posts


def _own_post(item: object) -> RawPost | None:
    """The post of a feed item, None for a repost (someone else's words)."""
    if not isinstance(item, dict):
        return None
    reason = item.get("reason")
    if isinstance(reason, dict) and reason.get("$type") == _REPOST:
        return None
    post = item.get("post")
    if not isinstance(post, dict):
        return None
    record = post.get("record")
    if not isinstance(record, dict) or not isinstance(record.get("text"), str):
        return None
    return RawPost(
        text=record["text"],  # plain text already: links and mentions are facets
        published=parse_date(record.get("createdAt")) or parse_date(post.get("indexedAt")),
        url=_web_link(post),
    )


def _web_link(post: dict[str, object]) -> str | None:
    """bsky.app/profile/<handle>/post/<rkey> from the at:// URI of the post."""
    uri, author = post.get("uri"), post.get("author")
    if not isinstance(uri, str) or not uri.startswith("at://"):
        return None
    handle = author.get("handle") if isinstance(author, dict) else None
    who = handle if isinstance(handle, str) and handle else uri[5:].split("/", 1)[0]
    rkey = uri.rsplit("/", 1)[-1]
    return f"https://bsky.app/profile/{quote(who)}/post/{quote(rkey)}"


ADAPTER = Adapter(name="bluesky", claims=claims, read=read)
