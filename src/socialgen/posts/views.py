"""Rows to SPEC.md shapes."""

from __future__ import annotations

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


def post_view(post: Post, conversation_title: str | None) -> PostView:
    return build_post_view(
        {
            "id": post.id,
            "conversation_id": post.conversation_id,
            "conversation_title": conversation_title,
            "content": post.content,
            "post_type": post.post_type,
            "status": post.status,
            "created_at": post.created_at,
            "scheduled_at": post.scheduled_at,
            "social_account_name": post.social_account_name,
            "social_account_email": post.social_account_email,
            "likes": post.likes,
            "comments": post.comments,
            "post_url": post.post_url,
            "carousel": post.carousel,
            "infographic": post.infographic,
            "generated_headshot": post.generated_headshot,
            "custom_image": post.custom_image,
        }
    )


def build_post_view(row: Any) -> PostView:
    """`row` is a mapping with the column names of Post plus conversation_title."""
    account: SocialAccount = {}
    if row["social_account_name"]:
        account["name"] = row["social_account_name"]
    if row["social_account_email"]:
        account["email"] = row["social_account_email"]
    return {
        "id": row["id"],
        "conversationId": row["conversation_id"],
        "conversationTitle": row["conversation_title"] or snippet(row["content"]),
        "postContent": row["content"],
        "postType": row["post_type"],
        "status": row["status"],
        "createdAt": iso(row["created_at"]) or "",
        "scheduledAt": iso(row["scheduled_at"]),
        "socialAccount": account,
        "metrics": {"likes": row["likes"], "comments": row["comments"]},
        "postUrl": row["post_url"],
        "carousel": row["carousel"],
        "infographic": row["infographic"],
        "generatedHeadshot": row["generated_headshot"],
        "customImage": row["custom_image"],
    }
