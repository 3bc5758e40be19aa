"""The fake X's API v2 routes: /2/tweets, /2/users/me, /2/users/:id/tweets, media.

Written from X's API v2 reference (docs.x.com: Manage Posts, Post lookup, User
lookup, Timelines, Media upload): a Bearer user token with the route's scopes (401
with X's problem body otherwise, 403 for a missing scope), request bodies checked
against the published schema (an unknown field is a 400 "Invalid Request"), a text
heavier than 280 refused (403 "Your Tweet text is too long"), the same text twice
refused (403 "duplicate content"). What X stores is what a client reads back: links
become t.co links, `&`, `<` and `>` come back as entities, and each post with images
gets a t.co link to them at the end.

The weighted count here is the fake's own, simpler and stricter than twitter-text
(every pictographic cluster weighs 2, a link is any http(s):// run): a text the
adapter cut within 280 by the real rules must pass it too.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
import unicodedata
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any

import regex  # type: ignore[import-untyped]  # no stubs installed (types-regex)

TWEET_FIELDS = frozenset({"text", "reply", "media", "quote_tweet_id", "reply_settings", "poll"})
READ_SCOPES = frozenset({"tweet.read", "users.read"})
SCOPES_BY_ROUTE = {
    ("GET", "/2/users/me"): READ_SCOPES,
    ("POST", "/2/tweets"): READ_SCOPES | {"tweet.write"},
    ("GET", "/2/tweets"): READ_SCOPES,
    ("GET", "/2/users/:id/tweets"): READ_SCOPES,
    ("POST", "/2/media/upload"): frozenset({"media.write"}),
    ("POST", "/2/media/metadata"): frozenset({"media.write"}),
}
TIMELINE_PARAMS = frozenset(
    {"exclude", "tweet.fields", "max_results", "start_time", "end_time", "pagination_token"}
)
_LINK = re.compile(r"https?://\S+")


@dataclass
class Answer:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class FakeToken:
    user_id: str
    scopes: frozenset[str]
    expires_at: datetime


@dataclass
class Tweet:
    id: str
    author_id: str
    sent_text: str  # what the client sent
    text: str  # what X shows (t.co links, entities)
    created_at: datetime
    reply_to: str | None = None
    media_ids: tuple[str, ...] = ()
    metrics: dict[str, int] = field(default_factory=dict)


@dataclass
class XState:
    user_id: str
    username: str
    name: str
    lock: threading.Lock = field(default_factory=threading.Lock)
    tokens: dict[str, FakeToken] = field(default_factory=dict)
    tweets: list[Tweet] = field(default_factory=list)  # oldest first
    media: dict[str, dict[str, Any]] = field(default_factory=dict)  # id -> upload
    timeline_lag: timedelta = timedelta(0)  # a new post is listed only after this
    next_id: int = 1_800_000_000_000_000_000


def problem(status: int, title: str, detail: str, **extra: Any) -> Answer:
    return Answer(
        status, {"title": title, "detail": detail, "type": "about:blank", "status": status, **extra}
    )


def invalid(message: str) -> Answer:
    return Answer(
        400,
        {
            "errors": [{"message": message}],
            "title": "Invalid Request",
            "detail": "One or more parameters to your request was invalid.",
            "type": "https://api.twitter.com/2/problems/invalid-request",
        },
    )


def weight(text: str) -> int:
    """The fake's weighted count (see the module's note)."""
    text = unicodedata.normalize("NFC", text)
    total = 23 * len(_LINK.findall(text))
    for cluster in regex.findall(r"\X", _LINK.sub("", text)):
        if regex.search(r"\p{Extended_Pictographic}|[\ufe0f\u20e3\U0001F1E6-\U0001F1FF]", cluster):
            total += 2
            continue
        for char in cluster:
            point = ord(char)
            light = point <= 4351 or 8192 <= point <= 8205 or 8208 <= point <= 8223
            total += 1 if light or 8242 <= point <= 8247 else 2
    return total


def shown(text: str, with_media: bool) -> str:
    """The text as X stores and shows it."""
    text = _LINK.sub(lambda _: "https://t.co/" + secrets.token_urlsafe(7)[:10], text)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return text + (" https://t.co/" + secrets.token_urlsafe(7)[:10] if with_media else "")


def create_tweet(state: XState, token: FakeToken, raw: bytes) -> Answer:
    try:
        body = json.loads(raw or b"null")
    except ValueError:
        return invalid("Request body is not valid JSON")
    if not isinstance(body, dict):
        return invalid("Request body must be a JSON object")
    unknown = sorted(set(body) - TWEET_FIELDS)
    if unknown:
        return invalid(
            f"$.{unknown[0]}: is not defined in the schema and the schema does "
            "not allow additional properties"
        )
    text = body.get("text", "")
    media = body.get("media")
    reply = body.get("reply")
    if not isinstance(text, str):
        return invalid("$.text: string expected")
    media_ids: list[str] = []
    if media is not None:
        if not isinstance(media, dict) or set(media) - {"media_ids", "tagged_user_ids"}:
            return invalid("$.media: unexpected properties")
        media_ids = media.get("media_ids") or []
        bad = [m for m in media_ids if not isinstance(m, str) or m not in state.media]
        if not 1 <= len(media_ids) <= 4 or bad:
            return invalid("$.media.media_ids: 1 to 4 ids of media uploaded by this user")
    if not text and not media_ids:
        return invalid("$.text: text or media is required")
    reply_to = None
    if reply is not None:
        if not isinstance(reply, dict) or set(reply) - {
            "in_reply_to_tweet_id",
            "exclude_reply_user_ids",
        }:
            return invalid("$.reply: unexpected properties")
        reply_to = reply.get("in_reply_to_tweet_id")
        if not any(t.id == reply_to for t in state.tweets):
            return problem(403, "Forbidden", "The Tweet you are replying to does not exist")
    if weight(text) > 280:
        return problem(
            403,
            "Forbidden",
            "Your Tweet text is too long. For more information on "
            "how Twitter determines text length see https://github.com/twitter/twitter-text.",
        )
    if text and any(t.sent_text == text and t.author_id == token.user_id for t in state.tweets):
        return problem(
            403, "Forbidden", "You are not allowed to create a Tweet with duplicate content."
        )
    state.next_id += 1
    tweet = Tweet(
        str(state.next_id),
        token.user_id,
        text,
        shown(text, bool(media_ids)),
        datetime.now(UTC),
        reply_to,
        tuple(media_ids),
    )
    state.tweets.append(tweet)
    data = {"id": tweet.id, "text": tweet.text, "edit_history_tweet_ids": [tweet.id]}
    return Answer(201, {"data": data})


def view(tweet: Tweet, fields: set[str]) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": tweet.id,
        "text": tweet.text,
        "edit_history_tweet_ids": [tweet.id],
    }
    if "created_at" in fields:
        item["created_at"] = tweet.created_at.strftime("%Y-%m-%dT%H:%M:%S.000Z")
    if "public_metrics" in fields:
        counts = {
            "retweet_count": 0,
            "reply_count": 0,
            "like_count": 0,
            "quote_count": 0,
            "bookmark_count": 0,
            "impression_count": 0,
        }
        item["public_metrics"] = counts | tweet.metrics
    if "referenced_tweets" in fields and tweet.reply_to:
        item["referenced_tweets"] = [{"type": "replied_to", "id": tweet.reply_to}]
    return item


def timeline(state: XState, user_id: str, query: dict[str, str]) -> Answer:
    unknown = sorted(set(query) - TIMELINE_PARAMS)
    if unknown:
        return invalid(
            f"The query parameter [{unknown[0]}] is not one of {sorted(TIMELINE_PARAMS)}"
        )
    size = query.get("max_results", "10")
    if not size.isdigit() or not 5 <= int(size) <= 100:
        return invalid(f"The `max_results` query parameter value [{size}] is not between 5 and 100")
    since = None
    if "start_time" in query:
        if not re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?Z", query["start_time"]):
            return invalid(f"Invalid start_time [{query['start_time']}]")
        since = datetime.fromisoformat(query["start_time"].replace("Z", "+00:00"))
    exclude = set(filter(None, query.get("exclude", "").split(",")))
    if exclude - {"replies", "retweets"}:
        return invalid("The `exclude` query parameter value is not one of [replies, retweets]")
    listed_before = datetime.now(UTC) - state.timeline_lag
    found = [
        t
        for t in reversed(state.tweets)
        if t.author_id == user_id
        and t.created_at <= listed_before
        and (since is None or t.created_at >= since)
        and not ("replies" in exclude and t.reply_to)
    ]
    start = int(query.get("pagination_token", "p0")[1:] or 0)
    page = found[start : start + int(size)]
    fields = set(query.get("tweet.fields", "").split(","))
    meta: dict[str, Any] = {"result_count": len(page)}
    if page:
        meta |= {"newest_id": page[0].id, "oldest_id": page[-1].id}
    if start + int(size) < len(found):
        meta["next_token"] = f"p{start + int(size)}"
    body: dict[str, Any] = {"meta": meta}
    if page:
        body["data"] = [view(t, fields) for t in page]
    return Answer(200, body)


def lookup(state: XState, query: dict[str, str]) -> Answer:
    ids = [i for i in query.get("ids", "").split(",") if i]
    if not 1 <= len(ids) <= 100:
        return invalid("The `ids` query parameter value must hold 1 to 100 ids")
    fields = set(query.get("tweet.fields", "").split(","))
    by_id = {t.id: t for t in state.tweets}
    body: dict[str, Any] = {}
    data = [view(by_id[i], fields) for i in ids if i in by_id]
    if data:
        body["data"] = data
    missing = [i for i in ids if i not in by_id]
    if missing:
        body["errors"] = [
            {
                "value": i,
                "detail": f"Could not find tweet with ids: [{i}].",
                "title": "Not Found Error",
                "resource_type": "tweet",
                "parameter": "ids",
                "resource_id": i,
            }
            for i in missing
        ]
    return Answer(200, body)


def upload_media(state: XState, content_type: str, raw: bytes) -> Answer:
    if not content_type.startswith("multipart/form-data"):
        return invalid("Request must be multipart/form-data")
    message = BytesParser(policy=HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + raw
    )
    fields: dict[str, Any] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        fields[str(name)] = part.get_payload(decode=True)
    unknown = sorted(set(fields) - {"media", "media_category", "media_type", "shared"})
    if unknown or not fields.get("media"):
        return invalid(f"$.{unknown[0] if unknown else 'media'}: invalid or missing")
    category = (fields.get("media_category") or b"").decode()
    if category not in {"tweet_image", "tweet_gif", "tweet_video", "dm_image", "subtitles"}:
        return invalid(f"$.media_category: [{category}] is not a valid category")
    state.next_id += 1
    media_id = str(state.next_id)
    state.media[media_id] = {"bytes": fields["media"], "category": category, "alt": None}
    data = {
        "id": media_id,
        "media_key": f"3_{media_id}",
        "size": len(fields["media"]),
        "expires_after_secs": 86400,
        "image": {"image_type": "image/png", "w": 1, "h": 1},
    }
    return Answer(200, {"data": data})


def describe_media(state: XState, raw: bytes) -> Answer:
    try:
        body = json.loads(raw or b"null")
    except ValueError:
        return invalid("Request body is not valid JSON")
    if not isinstance(body, dict) or set(body) - {"id", "metadata"}:
        return invalid("$: only id and metadata are allowed")
    metadata = body.get("metadata")
    alt = metadata.get("alt_text") if isinstance(metadata, dict) else None
    if body.get("id") not in state.media or not isinstance(alt, dict) or set(alt) != {"text"}:
        return invalid("$.metadata.alt_text.text: required, for an uploaded media id")
    if len(alt["text"]) > 1000:
        return invalid("$.metadata.alt_text.text: at most 1000 characters")
    state.media[body["id"]]["alt"] = alt["text"]
    return Answer(200, {"data": {"id": body["id"], "associated_metadata": True}})
