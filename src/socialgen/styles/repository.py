"""Queries over content styles and their example posts, for `service.py`. Every
function takes the caller's session and never commits; a style is looked up within
one workspace, and its examples through the style (already scoped)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import Session, col, select

from socialgen.store.tables import ContentStyle, StylePost


def styles_of(session: Session, workspace_id: str) -> list[ContentStyle]:
    """The workspace's styles, oldest first."""
    return list(
        session.exec(
            select(ContentStyle)
            .where(col(ContentStyle.workspace_id) == workspace_id)
            .order_by(col(ContentStyle.created_at), col(ContentStyle.id))
        )
    )


def style_in(session: Session, workspace_id: str, style_id: str) -> ContentStyle | None:
    """The style `style_id` when the workspace has it, else None."""
    return session.exec(
        select(ContentStyle).where(
            col(ContentStyle.id) == style_id,
            col(ContentStyle.workspace_id) == workspace_id,
        )
    ).first()


def posts_of_style(session: Session, style_id: str) -> list[StylePost]:
    """A style's examples in the order they were added."""
    return list(
        session.exec(
            select(StylePost)
            .where(col(StylePost.style_id) == style_id)
            .order_by(col(StylePost.created_at), col(StylePost.id))
        )
    )


def posts_of_styles(session: Session, style_ids: Sequence[str]) -> list[StylePost]:
    """The examples of several styles in one query, each style's in the order added."""
    return list(
        session.exec(
            select(StylePost)
            .where(col(StylePost.style_id).in_(list(style_ids)))
            .order_by(col(StylePost.created_at), col(StylePost.id))
        )
    )


def style_post_in(session: Session, style_id: str, post_id: str) -> StylePost | None:
    """The example `post_id` when it belongs to the style, else None."""
    return session.exec(
        select(StylePost).where(col(StylePost.id) == post_id, col(StylePost.style_id) == style_id)
    ).first()
