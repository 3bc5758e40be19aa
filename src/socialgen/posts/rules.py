"""What a post's content and status may be, checked the same by every way in: the
CLI, the HTTP API, file imports (whose text never passes the request checks), and
whatever comes next. The same on SQLite and PostgreSQL: the check runs before the
store sees the text (PostgreSQL refuses NUL in text, SQLite keeps it)."""

from __future__ import annotations

from socialgen.errors import BadRequest
from socialgen.limits import MAX_POST_CHARS
from socialgen.store.tables.posts import EDITABLE_STATUSES, Post
from socialgen.text_check import bad_char, bad_char_message, shows_nothing

CONTENT_REQUIRED = "Content is required"


def valid_content(content: str | None) -> str:
    """The content to store (surrounding whitespace trimmed), or a 400: content that
    would look empty (whitespace, zero-width and other invisible characters only) is
    missing content, and a NUL or a lone surrogate cannot be stored or sent."""
    text = (content or "").strip()
    if shows_nothing(text):
        raise BadRequest(CONTENT_REQUIRED)
    if (char := bad_char(text)) is not None:
        raise BadRequest(bad_char_message("Content", char))
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
