"""Queries over posts and their versions, for posts.service and for the plans and
faces that need them, so SQL stays out of those (tests/test_architecture_sql.py,
tests/test_architecture_sql_repositories.py). Every function takes the caller's
session and never commits; a post is reached through its workspace (a post id alone,
for its versions and publications, is one the caller already found there).

The other queries of posts/ live beside this file, one purpose each:
repository_conversations.py, repository_listing.py, repository_quick_listing.py
(sqlite3 alone), repository_imports.py, repository_exports.py and repository_counts.py."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import delete, func
from sqlmodel import Session, col, select

from socialgen.store.tables import (
    Conversation,
    Post,
    PostStatus,
    PostVersion,
    Publication,
    SocialAccount,
)


def post_in_workspace(session: Session, workspace_id: str, post_id: str) -> Post | None:
    """The post, or None when the workspace has no post of that id."""
    return session.exec(
        select(Post).where(col(Post.id) == post_id, col(Post.workspace_id) == workspace_id)
    ).first()


def lock_publications_of_post(
    session: Session, post_id: str
) -> Sequence[tuple[Publication, SocialAccount]]:
    """Every publication of the post with its account, the publication rows locked
    FOR UPDATE (PostgreSQL; SQLite ignores it) until the caller's transaction ends."""
    return session.exec(
        select(Publication, SocialAccount)
        .join(SocialAccount, col(SocialAccount.id) == col(Publication.account_id))
        .where(col(Publication.post_id) == post_id)
        .with_for_update(of=Publication)
    ).all()


def delete_post_and_versions(session: Session, post_id: str) -> None:
    """Delete the post's versions, then the post (its conversation is the caller's)."""
    session.execute(delete(PostVersion).where(col(PostVersion.post_id) == post_id))
    session.execute(delete(Post).where(col(Post.id) == post_id))


def versions_in_order(session: Session, post_id: str) -> Sequence[PostVersion]:
    """The post's versions, first to latest."""
    return session.exec(
        select(PostVersion)
        .where(col(PostVersion.post_id) == post_id)
        .order_by(col(PostVersion.version))
    ).all()


def latest_version_number(session: Session, post_id: str) -> int | None:
    """The highest version number the post has, None before its first version."""
    return session.exec(
        select(func.max(PostVersion.version)).where(col(PostVersion.post_id) == post_id)
    ).one()


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
