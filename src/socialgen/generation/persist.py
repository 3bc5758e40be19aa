"""Saving what generation produced. A post is stored only once its content exists;
every function here runs in one transaction and is called off the event loop."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from socialgen.clock import iso, utcnow
from socialgen.posts.service import create_draft, get_post, update_content
from socialgen.posts.views import snippet
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import Conversation, Message, Post
from socialgen.workspaces.usage import release_posts

HISTORY_MESSAGES = 12


@dataclass(frozen=True)
class SavedPost:
    post_id: str
    conversation_id: str


def history(session: Session, conversation_id: str) -> list[dict[str, str]]:
    """The last messages of a conversation, oldest first, as model messages."""
    rows = session.exec(
        select(Message)
        .where(col(Message.conversation_id) == conversation_id)
        .order_by(col(Message.created_at).desc(), col(Message.id).desc())
        .limit(HISTORY_MESSAGES)
    ).all()
    return [{"role": m.role, "content": m.content} for m in reversed(rows)]


def conversation_history(session: Session, conversation_id: str) -> list[dict[str, str | None]]:
    rows = session.exec(
        select(Message)
        .where(col(Message.conversation_id) == conversation_id)
        .order_by(col(Message.created_at), col(Message.id))
    ).all()
    return [{"role": m.role, "content": m.content, "createdAt": iso(m.created_at)} for m in rows]


def read_conversation_history(engine: Engine, conversation_id: str) -> list[dict[str, str | None]]:
    with read_session(engine) as session:
        return conversation_history(session, conversation_id)


def save_exchange(
    engine: Engine,
    *,
    workspace_id: str,
    user_id: str | None,
    conversation_id: str | None,
    user_input: str,
    answer: str,
) -> str:
    """Store one question and answer; returns the conversation id (new if none given)."""
    with transaction(engine) as session:
        conversation = _conversation(session, workspace_id, user_id, conversation_id, user_input)
        _append(session, conversation, user_input, answer)
        return conversation.id


def save_post(
    engine: Engine,
    *,
    workspace_id: str,
    user_id: str | None,
    conversation_id: str | None,
    user_input: str,
    content: str,
    post_id: str | None = None,
    variation_name: str | None = None,
    title: str | None = None,
    meta: dict[str, Any] | None = None,
) -> SavedPost:
    """A new draft, or a new version of `post_id`, with the exchange that produced it.
    `title` and `meta` describe a new conversation (e.g. a calendar day's theme)."""
    with transaction(engine) as session:
        post = write_post(
            session,
            workspace_id=workspace_id,
            user_id=user_id,
            conversation_id=conversation_id,
            user_input=user_input,
            content=content,
            post_id=post_id,
            variation_name=variation_name,
            title=title,
            meta=meta,
        )
        assert post.conversation_id is not None
        return SavedPost(post_id=post.id, conversation_id=post.conversation_id)


def write_post(
    session: Session,
    *,
    workspace_id: str,
    user_id: str | None,
    conversation_id: str | None,
    user_input: str,
    content: str,
    post_id: str | None = None,
    variation_name: str | None = None,
    title: str | None = None,
    meta: dict[str, Any] | None = None,
    post_type: str = "text",
) -> Post:
    """save_post inside the caller's transaction (e.g. with a carousel's rows)."""
    conversation = _conversation(
        session, workspace_id, user_id, conversation_id, title or user_input, meta
    )
    if post_id is not None:
        post = update_content(session, workspace_id, post_id, content, source="generated")
        if post.conversation_id != conversation.id:
            post.conversation_id = conversation.id
            session.add(post)
    else:
        post = create_draft(
            session,
            workspace_id,
            content,
            conversation_id=conversation.id,
            user_id=user_id,
            variation_name=variation_name,
            post_type=post_type,
        )
    conversation.current_content = post.content
    _append(session, conversation, user_input, post.content)
    return post


def refund(engine: Engine, workspace_id: str, count: int) -> None:
    if count > 0:
        with transaction(engine) as session:
            release_posts(session, workspace_id, count)


def post_conversation(engine: Engine, workspace_id: str, post_id: str) -> str | None:
    with transaction(engine) as session:
        return get_post(session, workspace_id, post_id).conversation_id


def _conversation(
    session: Session,
    workspace_id: str,
    user_id: str | None,
    conversation_id: str | None,
    user_input: str,
    meta: dict[str, Any] | None = None,
) -> Conversation:
    if conversation_id is not None:
        existing = session.exec(
            select(Conversation).where(
                col(Conversation.id) == conversation_id,
                col(Conversation.workspace_id) == workspace_id,
            )
        ).first()
        if existing is not None:
            return existing
    conversation = Conversation(
        workspace_id=workspace_id, user_id=user_id, title=snippet(user_input)[:300], meta=meta or {}
    )
    session.add(conversation)
    session.flush()
    return conversation


def _append(session: Session, conversation: Conversation, question: str, answer: str) -> None:
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
