"""What a post's content and status may be, checked the same by CLI and API."""

from __future__ import annotations

from socialgen.errors import BadRequest
from socialgen.limits import MAX_POST_CHARS
from socialgen.store.tables.posts import EDITABLE_STATUSES, Post

CONTENT_REQUIRED = "Content is required"


def valid_content(content: str | None) -> str:
    """The content to store (surrounding whitespace trimmed), or a 400."""
    text = (content or "").strip()
    if not text:
        raise BadRequest(CONTENT_REQUIRED)
    if len(text) > MAX_POST_CHARS:
        raise BadRequest(
            f"Content exceeds the character limit of {MAX_POST_CHARS} characters "
            f"({len(text)} given)"
        )
    return text


def ensure_editable(post: Post) -> None:
    if post.status not in EDITABLE_STATUSES:
        raise BadRequest(
            f"Cannot edit a post with status {post.status}: "
            "only draft and scheduled posts can be edited"
        )


def ensure_deletable(post: Post) -> None:
    if post.status not in EDITABLE_STATUSES:
        raise BadRequest(
            f"Cannot delete a {post.status} post here: "
            "a published post must be deleted on the social network directly"
        )
