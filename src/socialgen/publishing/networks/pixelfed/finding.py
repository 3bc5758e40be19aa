"""Looking on the account for the post an earlier attempt may have made.

Pixelfed refuses a repeated Idempotency-Key instead of answering with the post the
first request made, so "did it go live?" is answered by reading the account: before a
publication whose earlier attempt may be live is sent again, after a create call that
got no answer, and when Pixelfed says the key was sent before. The post is the newest
one created since that attempt (give or take the two clocks) with the same caption
and as many images.

A look is small and bounded: a few pages of the account's own posts, newest first,
within a short deadline (pull.py); an account does not post a hundred photos within
the hour Pixelfed remembers a key.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime, timedelta
from typing import Any

from mastodon import Mastodon

from socialgen.publishing.networks.answers import moment_from
from socialgen.publishing.networks.pull import Pull, PullLimits
from socialgen.sources.profiles.text import html_to_text

PAGE_SIZE = 40  # the most Pixelfed gives per page
LOOK = PullLimits(seconds=30.0, pages=3)
CLOCK_SLACK = timedelta(minutes=5)  # the instance's clock against ours


def find_post(
    api: Callable[[], Mastodon],
    calls: Callable[[], AbstractContextManager[None]],
    caption: str,
    images: int,
    since: datetime,
) -> Any | None:
    """The account's status that is this post, or None when none is (within the look's
    bounds). `api` gives the adapter's client, `calls` its error translation."""
    with calls():
        account_id = api().account_verify_credentials().id
    wanted = _plain(caption)
    pull = Pull(LOOK)
    max_id: Any = None
    while pull.next_page(max_id):
        with calls():
            page = api().account_statuses(
                account_id,
                exclude_replies=True,
                exclude_reblogs=True,
                max_id=max_id,
                limit=PAGE_SIZE,
            )
        statuses = list(page or [])
        for status in statuses:
            made = moment_from("Pixelfed", status.get("created_at"), f"the time of {status.id}")
            if made < since - CLOCK_SLACK:
                return None  # newest first: the rest is older still
            if _plain(_text(status)) == wanted and _images(status) == images:
                return status
        if not statuses:
            return None
        max_id = str(statuses[-1].id)
    return None


def _text(status: Any) -> str:
    """Pixelfed's own `content_text` is the caption as kept; else the HTML as text."""
    kept = status.get("content_text")
    if isinstance(kept, str):
        return kept
    return html_to_text(str(status.get("content") or ""))


def _images(status: Any) -> int:
    return len(list(status.get("media_attachments") or []))


def _plain(text: str) -> str:
    return " ".join(text.split())
