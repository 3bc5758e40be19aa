"""A LinkedIn member's own past posts with their counts, when the token may read them.

Two permissions are needed, both granted only to apps LinkedIn approved for its
Community Management API: r_member_social to list the member's posts
(`GET /rest/posts?q=author`) and r_member_postAnalytics for their counts
(`GET /rest/memberCreatorPostAnalytics?q=entity`, since July 2025). socialgen keeps
the scopes LinkedIn granted with the token (client.token_request); without
both, or when they are not known (a token given by hand comes without them, as does
an account connected before socialgen kept them), the refusal comes at once, before
any call, naming what is missing and what to ask LinkedIn for. A 403 at call time
(LinkedIn withdrew a permission) gives the same refusal.

The posts come newest first (sortBy=CREATED), 100 a page (`start`/`count`), until one
is older than `since` or the pull's bounds stop it (pull.py). Reposts of other
people's posts (a `reshareContext` without text of one's own) and posts that are
not published (drafts, processing) are left out. Each post's counts take four calls,
one per metric, lifetime totals (aggregation=TOTAL): reactions as likes, reshares as
reposts, comments, impressions.
An answer that is not JSON, or a count that is not a whole number >= 0, stops the
read: nothing is stored (publishing/accounts/history.py writes only after reading
everything). A pull stopped by its bounds keeps the posts whose counts were read.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

import httpx

from socialgen.kit.clock import in_range
from socialgen.kit.control_chars import without_controls
from socialgen.kit.errors import Forbidden
from socialgen.publishing.networks.base import Metrics, PastPost, PublishError
from socialgen.publishing.networks.linkedin.client import (
    SCOPE_FIELD,
    LinkedInClient,
    network_message,
)
from socialgen.publishing.networks.linkedin.text import little_to_text
from socialgen.publishing.networks.pull import Pull

ANALYTICS_SCOPE = "r_member_postAnalytics"
POSTS_SCOPE = "r_member_social"
HISTORY_SCOPES = (ANALYTICS_SCOPE, POSTS_SCOPE)
PAGE_SIZE = 100  # the most the Posts API gives per page
# LinkedIn's metric -> the snapshot's column.
METRICS = (
    ("REACTION", "likes"),
    ("RESHARE", "reposts"),
    ("COMMENT", "comments"),
    ("IMPRESSION", "impressions"),
)
_POST_KINDS = {"share": "share", "ugcPost": "ugc"}  # URN type -> the entity's key

NO_HISTORY = (
    "LinkedIn does not let socialgen read your past posts and their counts: that needs "
    f"the {ANALYTICS_SCOPE} permission (the counts) and {POSTS_SCOPE} (the list of your "
    "posts), which LinkedIn grants only to apps approved for its Community Management API"
)
ASK = (
    "Ask LinkedIn for Community Management API access for your app "
    "(linkedin.com/developers > your app > Products), then connect again with "
    "`socialgen accounts add linkedin --client-id ID --history`; or bring your "
    "LinkedIn posts in from a file with `socialgen posts import FILE`"
)


def refusal(secret: dict[str, str]) -> Forbidden | None:
    """Why this account's token cannot read history (None: it holds both scopes)."""
    raw = secret.get(SCOPE_FIELD)
    if raw is None:
        why = (
            "socialgen does not know whether this account's token holds them (a token "
            "given by hand comes without its scopes, as does an account connected "
            "before socialgen kept them)"
        )
        return Forbidden(f"{NO_HISTORY}, and {why}. {ASK}")
    granted = set(raw.split())
    missing = [scope for scope in HISTORY_SCOPES if scope not in granted]
    if not missing:
        return None
    lacks = " and ".join(missing)
    return Forbidden(f"{NO_HISTORY}, and the token LinkedIn granted lacks {lacks}. {ASK}")


def read_history(
    client: LinkedInClient, author: str, since: datetime | None, pull: Pull
) -> Iterator[PastPost]:
    """The member's posts, newest first, down to `since` (all without), with counts."""
    # Each post's counts as it comes: a pull stopped by its bounds keeps those read.
    for urn, text, published_at in _own_posts(client, author, since, pull):
        yield PastPost(
            remote_id=urn,
            url=f"https://www.linkedin.com/feed/update/{urn}/",
            text=without_controls(text),
            published_at=published_at,
            metrics=_counts(client, urn),
        )


def _own_posts(
    client: LinkedInClient, author: str, since: datetime | None, pull: Pull
) -> Iterator[tuple[str, str, datetime]]:
    start = 0
    seen: set[str] = set()
    what = "reading your posts"
    while pull.next_page(start):
        path = (
            f"/rest/posts?q=author&author={quote(author, safe='')}"
            f"&count={PAGE_SIZE}&start={start}&sortBy=CREATED"
        )
        body = _answer(client, path, what)
        elements = body.get("elements")
        if not isinstance(elements, list):
            raise _not_understood(what, "it holds no list of posts")
        fresh = 0
        for element in elements:
            post = _post(element, what)
            if post is None or post[0] in seen:
                continue
            seen.add(post[0])
            fresh += 1
            if since is not None and post[2] < since:
                return
            yield post
        # The last page is short, names no next page, or repeats what came before.
        if len(elements) < PAGE_SIZE or not fresh or not _has_next(body):
            return
        start += len(elements)


def _post(element: Any, what: str) -> tuple[str, str, datetime] | None:
    """(URN, text, published at) of one listed post; None for one that is not the
    member's own published post."""
    if not isinstance(element, dict):
        raise _not_understood(what, "a post in it is not an object")
    raw_id = element.get("id")
    urn = raw_id if isinstance(raw_id, str) else ""
    parts = urn.split(":")
    if len(parts) != 4 or parts[:2] != ["urn", "li"] or parts[2] not in _POST_KINDS:
        raise _not_understood(what, "a post in it has no post id")
    if element.get("lifecycleState", "PUBLISHED") != "PUBLISHED":
        return None  # a draft, or a post still processing
    raw = element.get("commentary") or ""
    if not isinstance(raw, str):
        raise _not_understood(what, f"the text of {urn} is not text")
    text = little_to_text(raw)
    if element.get("reshareContext") and not text.strip():
        return None  # a repost of someone else's post, nothing of the member's own
    millis = element.get("publishedAt", element.get("createdAt"))
    if isinstance(millis, bool) or not isinstance(millis, int) or millis < 0:
        raise _not_understood(what, f"{urn} has no publication time")
    try:
        published_at = in_range(datetime.fromtimestamp(millis / 1000, tz=UTC))
    except (OverflowError, OSError, ValueError):  # DateOutOfRange is a ValueError
        raise _not_understood(what, f"{urn} has no publication time we keep") from None
    return urn, text, published_at


def _has_next(body: dict[str, Any]) -> bool:
    paging = body.get("paging")
    links = paging.get("links") if isinstance(paging, dict) else None
    if not isinstance(links, list):
        return True  # no links given: a full page says there may be more
    return any(isinstance(link, dict) and link.get("rel") == "next" for link in links)


def _counts(client: LinkedInClient, urn: str) -> Metrics:
    kind = _POST_KINDS[urn.split(":")[2]]
    entity = f"({kind}:{quote(urn, safe='')})"
    values: dict[str, int | None] = {}
    for metric, column in METRICS:
        what = f"reading the {metric.lower()} count of {urn}"
        path = (
            f"/rest/memberCreatorPostAnalytics?q=entity&entity={entity}"
            f"&queryType={metric}&aggregation=TOTAL"
        )
        values[column] = _total(_answer(client, path, what), what)
    return Metrics(
        likes=values["likes"] or 0,
        reposts=values["reposts"] or 0,
        comments=values["comments"] or 0,
        impressions=values["impressions"],
    )


def _total(body: dict[str, Any], what: str) -> int | None:
    """The sum of the answer's counts; None when LinkedIn has no data point."""
    elements = body.get("elements")
    if not isinstance(elements, list):
        raise _not_understood(what, "it holds no list of counts")
    if not elements:
        return None
    total = 0
    for element in elements:
        count = element.get("count") if isinstance(element, dict) else None
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise _not_understood(what, f"{count!r} is not a count")
        total += count
    return total


def _answer(client: LinkedInClient, path: str, what: str) -> dict[str, Any]:
    response = client.request(
        "GET", path, what=what, accept=(403,), headers={"X-RestLi-Method": "FINDER"}
    )
    if response.status_code == 403:
        said = network_message(response, _secret_values(client))
        refused = f"LinkedIn refused this token while {what} ({said})"
        raise Forbidden(f"{NO_HISTORY}, and {refused}. {ASK}")
    return _json(response, what)


def _json(response: httpx.Response, what: str) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        raise _not_understood(what, "it is not JSON") from None
    if not isinstance(body, dict):
        raise _not_understood(what, "it is not a JSON object")
    return body


def _secret_values(client: LinkedInClient) -> list[str]:
    return [v for k, v in client.secret.items() if k != SCOPE_FIELD]


def _not_understood(what: str, why: str) -> PublishError:
    # Retryable: a garbled answer is LinkedIn's failure (HTTP 502), not the user's.
    return PublishError(f"LinkedIn's answer while {what} was not understood: {why}", retryable=True)
