"""Rows to the JSON objects of SPEC.md's shapes (posts/schemas.py's models).

The listings return up to thousands of posts per call, so their rows arrive raw
(timestamps as the database gives them, JSON as text on SQLite) and are turned
into JSON objects here in one pass, without SQLAlchemy's per-value processing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, NamedTuple

from socialgen.kit.clock import iso

if TYPE_CHECKING:
    from socialgen.store.tables import Post

TITLE_SNIPPET_CHARS = 60

# A listing as both paths give it: PostList's JSON object (posts/schemas.py), never
# the model. 1,000 PostView models cost 3 ms more than their objects (the listing's
# whole budget is 10) and a GC pass now and then; the faces serialize the objects as
# they are, and tests/test_posts_listing_model.py holds them to the model.
PostListJson = dict[str, Any]


def snippet(content: str, limit: int = TITLE_SNIPPET_CHARS) -> str:
    """The first line of the content, cut at a word boundary."""
    line = content.strip().split("\n", 1)[0].strip()
    if len(line) <= limit:
        return line
    cut = line[:limit].rsplit(" ", 1)[0] or line[:limit]
    return cut.rstrip(" ,.;:-") + "…"


def raw_timestamp(value: str | datetime | None) -> str | None:
    """ISO 8601 UTC from a stored timestamp: SQLite's naive-UTC text
    ("2026-11-22 04:53:51.128000") or a driver's datetime."""
    if value is None:
        return None
    if isinstance(value, str):
        day, _, clock = value.replace("T", " ").partition(" ")
        seconds, _, fraction = clock.partition(".")
        return f"{day}T{seconds[:8]}.{(fraction + '000')[:3]}Z"
    return iso(value)


def stored_moment(value: str | datetime) -> datetime:
    """A raw stored timestamp back to an aware UTC datetime."""
    moment = datetime.fromisoformat(value) if isinstance(value, str) else value
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment


def raw_json(value: Any) -> Any:
    """A JSON column's value: text on SQLite ("null" for None), decoded elsewhere."""
    if value is None or value == "null":
        return None
    if isinstance(value, str):
        return json.loads(value)
    return value


class PostRow(NamedTuple):
    """One post as the listings read it. The listing query selects one column per
    field, labelled with its name, in this order (listing builds its SELECT from
    `PostRow._fields`), so a result row becomes a PostRow in one step and everything
    after reads it by name.

    Timestamps and JSON come raw from the listings (text on SQLite); `post_view`
    fills it from an ORM Post, whose decoded values the raw_* helpers also accept.
    `timeline_at` is not shown: the listing reads it to date the range's end.
    """

    id: str
    conversation_id: str | None
    conversation_title: str | None
    content: str
    post_type: str
    status: str
    created_at: str | datetime
    scheduled_at: str | datetime | None
    social_account_name: str | None
    social_account_email: str | None
    likes: int
    comments: int
    post_url: str | None
    carousel: Any
    infographic: Any
    generated_headshot: Any
    custom_image: Any
    published_at: str | datetime | None
    timeline_at: str | datetime


def post_view(post: Post, conversation_title: str | None) -> dict[str, Any]:
    """A PostView's JSON object."""
    return build_post_view(
        PostRow(
            id=post.id,
            conversation_id=post.conversation_id,
            conversation_title=conversation_title,
            content=post.content,
            post_type=post.post_type,
            status=post.status,
            created_at=post.created_at,
            scheduled_at=post.scheduled_at,
            social_account_name=post.social_account_name,
            social_account_email=post.social_account_email,
            likes=post.likes,
            comments=post.comments,
            post_url=post.post_url,
            carousel=post.carousel,
            infographic=post.infographic,
            generated_headshot=post.generated_headshot,
            custom_image=post.custom_image,
            published_at=post.published_at,
            timeline_at=post.timeline_at,
        )
    )


def post_views(rows: Iterable[Iterable[Any]]) -> list[dict[str, Any]]:
    """PostViews' JSON objects of result rows whose columns are PostRow's fields, in its order
    (`_make` refuses a row with a column too many or too few)."""
    make = PostRow._make
    return [build_post_view(make(row)) for row in rows]


def build_post_view(row: PostRow) -> dict[str, Any]:
    account: dict[str, str] = {}  # a key only for what the post names
    if row.social_account_name:
        account["name"] = row.social_account_name
    if row.social_account_email:
        account["email"] = row.social_account_email
    content = row.content
    return {
        "id": row.id,
        "conversationId": row.conversation_id,
        "conversationTitle": row.conversation_title or snippet(content),
        "postContent": content,
        "postType": row.post_type,
        "status": row.status,
        "createdAt": raw_timestamp(row.created_at) or "",
        "scheduledAt": raw_timestamp(row.scheduled_at),
        "publishedAt": raw_timestamp(row.published_at),
        "socialAccount": account,
        "metrics": {"likes": row.likes, "comments": row.comments},
        "postUrl": row.post_url,
        "carousel": raw_json(row.carousel),
        "infographic": raw_json(row.infographic),
        "generatedHeadshot": raw_json(row.generated_headshot),
        "customImage": raw_json(row.custom_image),
    }
