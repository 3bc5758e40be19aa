"""Finding a post that may already be live, on the account's own timeline.

X has no idempotency key: a create call that went out without an answer (a timeout, a
dropped connection, a 5xx) may or may not have made the post. Before saying "unknown",
and before sending again after such an attempt (`OutgoingPost.earlier_attempt_at`),
the adapter reads the account's posts since the attempt began (`GET
/2/users/:id/tweets` with `start_time`, a minute earlier for clock drift) and looks
for the part it meant to send: the same text, replying to the same post (none for a
thread's first part).

"The same text" allows for what X does to a text: links become t.co links (a link of
ours, and the t.co link X appends for images, are left out of both sides), `&`, `<`
and `>` come back as HTML entities, and runs of whitespace are compared as one space.
Two posts whose words match this way, in the same place of the same thread, within
minutes of each other, are taken to be the same post.

The timeline is eventually consistent: a post made a second ago may not be listed
yet. So "not found" right after a timeout proves nothing, and the adapter says the
outcome is unknown rather than sending again.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from socialgen.publishing.networks.base import PublishError
from socialgen.publishing.networks.x.client import XClient
from socialgen.publishing.networks.x.text import normalised, url_spans

CLOCK_MARGIN = timedelta(seconds=60)  # our clock and X's may differ this much
PAGES = 5  # at most 500 posts since the attempt: more is not a recent attempt
_ANY_LINK = re.compile(r"https?://\S+")
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Seen:
    """One of the account's recent posts, as far as matching needs it."""

    id: str
    text: str
    replied_to: str | None


def comparable(text: str) -> str:
    """Ours: the text without the links X turns into t.co links, whitespace squeezed."""
    text = normalised(text)
    kept: list[str] = []
    position = 0
    for start, end in url_spans(text):
        kept.append(text[position:start])
        position = end
    kept.append(text[position:])
    return _SPACE.sub(" ", " ".join(kept)).strip()


def comparable_seen(text: str) -> str:
    """X's: entities undone, every link (t.co) left out, whitespace squeezed."""
    text = normalised(html.unescape(text))
    return _SPACE.sub(" ", _ANY_LINK.sub(" ", text)).strip()


def recent_posts(client: XClient, user_id: str, since: datetime) -> list[Seen]:
    """The account's posts (replies included: a thread's parts are replies) created
    since `since` less the clock margin, oldest first."""
    start = (since - CLOCK_MARGIN).strftime("%Y-%m-%dT%H:%M:%SZ")
    seen: list[Seen] = []
    token = ""
    what = "looking for the post on your timeline"
    for _ in range(PAGES):
        params = {
            "exclude": "retweets",
            "tweet.fields": "referenced_tweets",
            "max_results": "100",
            "start_time": start,
        }
        if token:
            params["pagination_token"] = token
        path = f"/2/users/{user_id}/tweets"
        body = client.json_of(client.request("GET", path, what=what, params=params), what)
        for item in body.get("data") or []:
            seen.append(_seen(item, what))
        meta = body.get("meta")
        token = str(meta.get("next_token") or "") if isinstance(meta, dict) else ""
        if not token:
            break
    return list(reversed(seen))


def find_part(posts: list[Seen], text: str, reply_to: str | None, taken: set[str]) -> str | None:
    """The id of the post among `posts` that is this part, if one is."""
    wanted = comparable(text)
    for post in posts:
        if post.id in taken or post.replied_to != reply_to:
            continue
        if comparable_seen(post.text) == wanted:
            return post.id
    return None


def _seen(item: object, what: str) -> Seen:
    if not isinstance(item, dict):
        raise PublishError(f"X's answer while {what} was not understood", retryable=True)
    post_id, text = item.get("id"), item.get("text")
    if not isinstance(post_id, str) or not isinstance(text, str):
        raise PublishError(f"X's answer while {what} was not understood", retryable=True)
    replied_to = None
    for reference in item.get("referenced_tweets") or []:
        if isinstance(reference, dict) and reference.get("type") == "replied_to":
            replied_to = str(reference.get("id") or "") or None
    return Seen(id=post_id, text=text, replied_to=replied_to)
