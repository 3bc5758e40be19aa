"""Conversations and their messages: the one module that starts, finds, pages,
deletes and appends to them. Posts (posts.service) and generation
(drafting.persist) both go through here, so a conversation is always made and
scoped to its workspace the same way. The queries are repository_conversations.py's.
Never commits.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from math import ceil
from typing import Any

from sqlmodel import Session

from socialgen.kit.clock import iso, utcnow
from socialgen.kit.limits import PAGE, PAGE_LIMIT
from socialgen.posts.repository_conversations import (
    conversation_count,
    conversations_by_update,
    delete_workspace_conversation,
    messages_in_order,
    newest_messages,
)
from socialgen.posts.schemas import ConversationPage, ConversationView, Pagination
from socialgen.store.tables import Conversation, Message

HISTORY_MESSAGES = 12
TITLE_CHARS = 300  # Conversation.title's column size


def start_conversation(
    session: Session,
    workspace_id: str,
    *,
    user_id: str | None,
    title: str,
    current_content: str | None = None,
    meta: dict[str, Any] | None = None,
) -> Conversation:
    """A new conversation; `title` is cut to fit its column."""
    conversation = Conversation(
        workspace_id=workspace_id,
        user_id=user_id,
        title=title[:TITLE_CHARS],
        current_content=current_content,
        meta=meta or {},
    )
    session.add(conversation)
    session.flush()
    return conversation


def find_conversation(
    session: Session, workspace_id: str, conversation_id: str
) -> Conversation | None:
    """The workspace's conversation, or None (also when it belongs to another one)."""
    conversation = session.get(Conversation, conversation_id)
    if conversation is None or conversation.workspace_id != workspace_id:
        return None
    return conversation


def find_or_start(
    session: Session,
    workspace_id: str,
    conversation_id: str | None,
    *,
    user_id: str | None,
    title: str,
    meta: dict[str, Any] | None = None,
) -> Conversation:
    """The given conversation when the workspace has it; else a new one. Generation
    continues a conversation by id, and an unknown id starts afresh."""
    if conversation_id is not None:
        existing = find_conversation(session, workspace_id, conversation_id)
        if existing is not None:
            return existing
    return start_conversation(session, workspace_id, user_id=user_id, title=title, meta=meta)


def conversation_title(session: Session, workspace_id: str, conversation_id: str) -> str | None:
    conversation = find_conversation(session, workspace_id, conversation_id)
    return conversation.title if conversation is not None else None


def follow_content(
    session: Session, workspace_id: str, conversation_id: str, content: str, now: datetime
) -> None:
    """The conversation's current content follows an edit of its post."""
    conversation = find_conversation(session, workspace_id, conversation_id)
    if conversation is not None:
        conversation.current_content = content
        conversation.updated_at = now
        session.add(conversation)


def delete_conversation(session: Session, workspace_id: str, conversation_id: str) -> None:
    """Messages go with it (ON DELETE CASCADE); any post of the conversation keeps
    existing, detached (ON DELETE SET NULL)."""
    delete_workspace_conversation(session, workspace_id, conversation_id)


def append_exchange(
    session: Session, conversation: Conversation, question: str, answer: str
) -> None:
    """A user message and the assistant's answer; the conversation is updated now."""
    now = utcnow()
    # The answer is stamped a microsecond later so history always reads in order.
    session.add(
        Message(conversation_id=conversation.id, role="user", content=question, created_at=now)
    )
    session.add(
        Message(
            conversation_id=conversation.id,
            role="assistant",
            content=answer,
            created_at=now + timedelta(microseconds=1),
        )
    )
    conversation.updated_at = now
    session.add(conversation)
    session.flush()


def recent_messages(
    session: Session, conversation_id: str, limit: int = HISTORY_MESSAGES
) -> list[dict[str, str]]:
    """The last messages of a conversation, oldest first, as model messages."""
    rows = newest_messages(session, conversation_id, limit)
    return [{"role": m.role, "content": m.content} for m in reversed(rows)]


def all_messages(session: Session, conversation_id: str) -> list[dict[str, str | None]]:
    """Every message of a conversation, oldest first, with its time."""
    rows = messages_in_order(session, conversation_id)
    return [{"role": m.role, "content": m.content, "createdAt": iso(m.created_at)} for m in rows]


def conversations_page(
    session: Session, workspace_id: str, page: int, limit: int
) -> ConversationPage:
    """One page of the workspace's conversations, most recently updated first."""
    check_page(page, limit)
    total = conversation_count(session, workspace_id)
    conversations = conversations_by_update(session, workspace_id, (page - 1) * limit, limit)
    return ConversationPage(
        conversations=[
            ConversationView(
                id_=c.id,
                title=c.title,
                createdAt=iso(c.created_at) or "",
                updatedAt=iso(c.updated_at) or "",
                status=c.status,
                metadata=c.meta,
            )
            for c in conversations
        ],
        pagination=Pagination(page=page, limit=limit, total=total, pages=ceil(total / limit)),
    )


def check_page(page: int, limit: int) -> None:
    PAGE.check(page)  # unbounded, (page - 1) * limit overflows the database's OFFSET
    PAGE_LIMIT.check(limit)
