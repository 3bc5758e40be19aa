"""Saving what generation produced. A post is stored only once its content exists;
every function here runs in one transaction and is called off the event loop."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session

from socialgen.kit.control_chars import without_controls
from socialgen.posts import conversations
from socialgen.posts.service import create_draft, update_content
from socialgen.posts.views import snippet
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import Conversation, Post
from socialgen.workspaces.usage import spend_reserved


@dataclass(frozen=True)
class SavedPost:
    post_id: str
    conversation_id: str


# The conversation helpers here (history, conversation_history,
# read_conversation_history, _conversation, _append) keep their names for their
# callers and hand the work to posts.conversations, which owns conversations.


def history(session: Session, conversation_id: str) -> list[dict[str, str]]:
    """The last messages of a conversation, oldest first, as model messages."""
    return conversations.recent_messages(session, conversation_id)


def conversation_history(session: Session, conversation_id: str) -> list[dict[str, str | None]]:
    return conversations.all_messages(session, conversation_id)


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
    reservation_id: str | None = None,
) -> SavedPost:
    """A new draft, or a new version of `post_id`, with the exchange that produced it.
    `title` and `meta` describe a new conversation (e.g. a calendar day's theme);
    `reservation_id` is the quota reservation the post spends (same transaction)."""
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
            reservation_id=reservation_id,
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
    reservation_id: str | None = None,
) -> Post:
    """save_post inside the caller's transaction (e.g. with a carousel's rows)."""
    # What the model wrote: a control character it let slip is dropped, not a reason
    # to lose the draft (stored text holds none: kit/control_chars.py).
    content = without_controls(content)
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
    if reservation_id is not None:
        # With the post, or not at all: a kill after this commit must not refund it.
        spend_reserved(session, workspace_id, reservation_id)
    return post


def _conversation(
    session: Session,
    workspace_id: str,
    user_id: str | None,
    conversation_id: str | None,
    user_input: str,
    meta: dict[str, Any] | None = None,
) -> Conversation:
    return conversations.find_or_start(
        session,
        workspace_id,
        conversation_id,
        user_id=user_id,
        title=snippet(user_input),
        meta=meta,
    )


def _append(session: Session, conversation: Conversation, question: str, answer: str) -> None:
    conversations.append_exchange(session, conversation, question, answer)
