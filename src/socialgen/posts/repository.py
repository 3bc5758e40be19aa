"""Queries over posts and conversations for the plans and faces that need them, so
SQL stays out of those (tests/test_architecture_sql.py). Every function takes the
caller's session, is scoped to one workspace, and never commits."""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import Session, col, select

from socialgen.posts.export_item import ExportItem
from socialgen.store.tables import Conversation, Post, PostStatus


def conversation_id_in(session: Session, workspace_id: str, conversation_id: str) -> str | None:
    """`conversation_id` when the workspace has that conversation, else None."""
    return session.exec(
        select(Conversation.id).where(
            col(Conversation.id) == conversation_id,
            col(Conversation.workspace_id) == workspace_id,
        )
    ).first()


def latest_editable_post_id(
    session: Session, workspace_id: str, conversation_id: str
) -> str | None:
    """The newest draft or scheduled post of a conversation: the one it is refining."""
    return session.exec(
        select(Post.id)
        .where(
            col(Post.workspace_id) == workspace_id,
            col(Post.conversation_id) == conversation_id,
            col(Post.status).in_([PostStatus.DRAFT, PostStatus.SCHEDULED]),
        )
        .order_by(col(Post.created_at).desc())
    ).first()


def drafts_by_id(session: Session, workspace_id: str, post_ids: Sequence[str]) -> dict[str, Post]:
    """The drafts among `post_ids`, by id (a post of another workspace, or no longer a
    draft, is left out)."""
    return {
        post.id: post
        for post in session.exec(
            select(Post).where(
                col(Post.id).in_(list(post_ids)),
                col(Post.workspace_id) == workspace_id,
                col(Post.status) == PostStatus.DRAFT,
            )
        )
    }


def export_items(
    session: Session, workspace_id: str, statuses: Sequence[str] = ()
) -> list[ExportItem]:
    """Every post of the workspace (or those with one of `statuses`) as export items,
    newest first, each dated by when it is scheduled, was published or (drafts) was
    created. The theme is the conversation title."""
    statement = (
        select(Post, Conversation.title)
        .outerjoin(Conversation, col(Conversation.id) == col(Post.conversation_id))
        .where(col(Post.workspace_id) == workspace_id)
    )
    if statuses:
        statement = statement.where(col(Post.status).in_(list(statuses)))
    items = []
    for post, title in session.exec(statement).all():
        if post.status == PostStatus.PUBLISHED:
            moment = post.published_at or post.scheduled_at or post.created_at
        elif post.status == PostStatus.SCHEDULED:
            moment = post.scheduled_at or post.created_at
        else:
            moment = post.created_at
        items.append(
            ExportItem(
                post_id=post.id,
                content=post.content,
                date=moment,
                status=post.status,
                theme=title or None,
                variation=post.variation_name,
            )
        )
    items.sort(key=lambda item: (item.moment, item.post_id), reverse=True)
    return items
