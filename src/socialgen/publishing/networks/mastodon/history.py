"""The account's own Mastodon statuses with their counts: GET
/api/v1/accounts/:id/statuses, without boosts and replies, page by page (max_id),
newest first, until a status is older than `since` or the pull's bounds stop it
(pull.py: a deadline, a page cap, a max_id that does not move).

Through the adapter's own Mastodon.py client and error handling, so a refused token
or a 429 reads as it does when publishing. Counts: favourites as likes, boosts as
reposts, replies as comments. The text is the status's HTML read as plain text (the
same reading `style import` gives a Mastodon profile); a content warning goes before
it, as a reader sees it first. Direct messages are not posts and are left out.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from datetime import datetime
from typing import Any

from mastodon import Mastodon

from socialgen.kit.control_chars import without_controls
from socialgen.publishing.networks.answers import count_from, moment_from, web_address
from socialgen.publishing.networks.base import Metrics, PastPost
from socialgen.publishing.networks.pull import Pull
from socialgen.sources.profiles.text import html_to_text

PAGE_SIZE = 40  # the most Mastodon gives per page


def read_history(
    api: Callable[[], Mastodon],
    calls: Callable[[], AbstractContextManager[None]],
    since: datetime | None,
    pull: Pull,
) -> Iterator[PastPost]:
    """`api` gives the adapter's client, `calls` its error translation (a context)."""
    with calls():
        account_id = api().account_verify_credentials().id
    max_id: Any = None
    while pull.next_page(max_id):
        with calls():
            page = api().account_statuses(
                account_id,
                exclude_replies=True,
                exclude_reblogs=True,
                exclude_direct=True,
                max_id=max_id,
                limit=PAGE_SIZE,
            )
        statuses = list(page or [])
        for status in statuses:
            if status.get("reblog") or status.get("visibility") == "direct":
                continue  # an instance that ignored the query's filters
            past = _past_post(status)
            if since is not None and past.published_at < since:
                return
            yield past
        if not statuses:
            return
        max_id = str(statuses[-1].id)


def _past_post(status: Any) -> PastPost:
    text = html_to_text(str(status.get("content") or ""))
    warning = str(status.get("spoiler_text") or "").strip()
    if warning:
        text = f"{warning}\n\n{text}".strip()
    return PastPost(
        remote_id=str(status.id),
        url=web_address(status.get("url")) or web_address(status.get("uri")),
        text=without_controls(text),
        published_at=moment_from(
            "Mastodon", status.get("created_at"), f"the time of status {status.id}"
        ),
        metrics=mastodon_metrics(status, 0),
    )


def mastodon_metrics(status: Any, own_replies: int) -> Metrics:
    """A status's counts: favourites as likes, boosts as reposts, replies as comments
    (but `own_replies`, socialgen's own thread parts), each checked (answers.py)."""
    where = f"status {status.get('id')}"
    replies = count_from("Mastodon", status.get("replies_count"), f"the replies of {where}")
    return Metrics(
        likes=count_from("Mastodon", status.get("favourites_count"), f"the likes of {where}"),
        reposts=count_from("Mastodon", status.get("reblogs_count"), f"the boosts of {where}"),
        comments=max(0, replies - own_replies),
    )
