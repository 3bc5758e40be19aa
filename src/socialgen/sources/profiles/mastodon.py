"""Mastodon (and compatible: GoToSocial, Pleroma, Akkoma) profiles, read through the
instance's public API: no HTML scraping, and posts come with exact dates.

A `/@user` path is also used by Medium, YouTube, Misskey and others, so the URL
shape alone does not prove Mastodon: the account lookup does. When the instance
does not answer it, the reader returns None and the generic web reader takes over
(a Mastodon profile page that hides its API still links its RSS feed).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING
from urllib.parse import SplitResult, urlencode, urlsplit

from socialgen.sources.fetch import SourceError
from socialgen.sources.profiles.base import Adapter, RawPost, get_json, text_field
from socialgen.sources.profiles.dates import parse_date
from socialgen.sources.profiles.text import html_to_text

if TYPE_CHECKING:
    from socialgen.config.loading import AppSettings

# /@user, /@user@other.instance (a remote account as this instance shows it), /users/user
_PROFILE_PATH = re.compile(r"^/(?:@|users/)([A-Za-z0-9_.-]+(?:@[A-Za-z0-9.-]+)?)/?$")
MAX_PAGE = 40  # Mastodon's cap on the statuses `limit` parameter


def account_name(parts: SplitResult) -> str | None:
    match = _PROFILE_PATH.match(parts.path)
    return match.group(1) if match else None


def claims(parts: SplitResult) -> bool:
    return account_name(parts) is not None


async def read(url: str, limit: int, settings: AppSettings) -> list[RawPost] | None:
    parts = urlsplit(url)
    acct = account_name(parts)
    if acct is None:
        return None
    origin = f"{parts.scheme}://{parts.netloc}"
    try:
        account = await get_json(
            f"{origin}/api/v1/accounts/lookup?{urlencode({'acct': acct})}",
            allow_private=settings.allow_private_urls,
        )
    except SourceError:
        return None  # no Mastodon API here (or not for anonymous clients)
    if not isinstance(account, dict) or not isinstance(account.get("id"), str):
        return None
    account_id = account["id"]
    query = urlencode(
        {"exclude_replies": "true", "exclude_reblogs": "true", "limit": min(limit, MAX_PAGE)}
    )
    statuses = await get_json(
        f"{origin}/api/v1/accounts/{account_id}/statuses?{query}",
        allow_private=settings.allow_private_urls,
    )
    if not isinstance(statuses, list):
        raise SourceError(f"Could not read {url}: the instance sent no list of posts")
    return [
        _post(status)
        for status in statuses
        if isinstance(status, dict) and _own_post(status, account_id)
    ]


def _own_post(status: dict[str, object], account_id: str) -> bool:
    """Not a boost, not a reply to someone else (the query asks the instance for
    this already; older servers and compatible ones do not all honour it). A reply
    to oneself is a thread the author wrote, and stays."""
    if status.get("reblog"):
        return False
    replied_to = status.get("in_reply_to_account_id")
    return status.get("in_reply_to_id") is None or replied_to == account_id


def _post(status: dict[str, object]) -> RawPost:
    return RawPost(
        text=html_to_text(text_field(status, "content") or ""),
        published=parse_date(status.get("created_at")),
        url=text_field(status, "url", "uri"),
    )


ADAPTER = Adapter(name="mastodon", claims=claims, read=read)
