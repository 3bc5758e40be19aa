"""Queries over conversations and their messages, for posts.conversations. Every
function takes the caller's session and never commits; a conversation is reached
through its workspace (a conversation id alone, for its messages, is one the caller
already found there)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import delete, func
from sqlmodel import Session, col, select

from socialgen.store.tables import Conversation, Message


def delete_workspace_conversation(
    session: Session, workspace_id: str, conversation_id: str
) -> None:
    """Delete the conversation if the workspace has it (its messages go by ON DELETE
    CASCADE, its posts stay, detached, by ON DELETE SET NULL)."""
    session.execute(
        delete(Conversation).where(
            col(Conversation.id) == conversation_id,
            col(Conversation.workspace_id) == workspace_id,
        )
    )


def newest_messages(session: Session, conversation_id: str, limit: int) -> Sequence[Message]:
    """The conversation's `limit` latest messages, newest first."""
    return session.exec(
        select(Message)
        .where(col(Message.conversation_id) == conversation_id)
        .order_by(col(Message.created_at).desc(), col(Message.id).desc())
        .limit(limit)
    ).all()


def messages_in_order(session: Session, conversation_id: str) -> Sequence[Message]:
    """Every message of the conversation, oldest first."""
    return session.exec(
        select(Message)
        .where(col(Message.conversation_id) == conversation_id)
        .order_by(col(Message.created_at), col(Message.id))
    ).all()


def conversation_count(session: Session, workspace_id: str) -> int:
    """How many conversations the workspace has."""
    return session.exec(
        select(func.count())
        .select_from(Conversation)
        .where(col(Conversation.workspace_id) == workspace_id)
    ).one()


def conversations_by_update(
    session: Session, workspace_id: str, offset: int, limit: int
) -> Sequence[Conversation]:
    """The workspace's conversations most recently updated first (ties by id), `limit`
    of them after skipping `offset`."""
    return session.exec(
        select(Conversation)
        .where(col(Conversation.workspace_id) == workspace_id)
        .order_by(col(Conversation.updated_at).desc(), col(Conversation.id))
        .offset(offset)
        .limit(limit)
    ).all()
