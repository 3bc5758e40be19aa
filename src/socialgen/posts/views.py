"""Rows to SPEC.md shapes.

The listings return up to thousands of posts per call, so their rows arrive raw
(timestamps as the database gives them, JSON as text on SQLite) and are turned
into SPEC.md shapes here in one pass, without SQLAlchemy's per-value processing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from socialgen.clock import iso
from socialgen.posts.schemas import PostView, SocialAccount
from socialgen.store.tables import Post

TITLE_SNIPPET_CHARS = 60


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


def post_view(post: Post, conversation_title: str | None) -> PostView:
    return build_post_view(
        (
            post.id,
            post.conversation_id,
            conversation_title,
            post.content,
            post.post_type,
            post.status,
            post.created_at,
            post.scheduled_at,
            post.social_account_name,
            post.social_account_email,
            post.likes,
            post.comments,
            post.post_url,
            post.carousel,
            post.infographic,
            post.generated_headshot,
            post.custom_image,
        )
    )


def build_post_view(row: Sequence[Any]) -> PostView:
    """`row` holds, in order: id, conversation_id, conversation title, content,
    post_type, status, created_at, scheduled_at, social account name and email,
    likes, comments, post_url, carousel, infographic, generated_headshot, custom_image."""
    (
        post_id,
        conversation_id,
        title,
        content,
        post_type,
        status,
        created_at,
        scheduled_at,
        account_name,
        account_email,
        likes,
        comments,
        post_url,
        carousel,
        infographic,
        headshot,
        custom_image,
    ) = row[:17]
    account: SocialAccount = {}
    if account_name:
        account["name"] = account_name
    if account_email:
        account["email"] = account_email
    return {
        "id": post_id,
        "conversationId": conversation_id,
        "conversationTitle": title or snippet(content),
        "postContent": content,
        "postType": post_type,
        "status": status,
        "createdAt": raw_timestamp(created_at) or "",
        "scheduledAt": raw_timestamp(scheduled_at),
        "socialAccount": account,
        "metrics": {"likes": likes, "comments": comments},
        "postUrl": post_url,
        "carousel": raw_json(carousel),
        "infographic": raw_json(infographic),
        "generatedHeadshot": raw_json(headshot),
        "customImage": raw_json(custom_image),
    }
