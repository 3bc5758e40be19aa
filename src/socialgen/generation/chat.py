"""The chat stream: a general answer, or a post when that is what the user asks for."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from socialgen.ai.model import TextModel
from socialgen.drafting import persist
from socialgen.drafting.quota import Reservation
from socialgen.drafting.writing import TextWriter
from socialgen.events import Event
from socialgen.events.chat import ChatResponse, HistoryItem
from socialgen.events.common import StreamError
from socialgen.generation.intent import classify_intent
from socialgen.generation.plan import ChatPlan
from socialgen.generation.posting import PostRequest, PostWriting
from socialgen.generation.url_context import UrlContext
from socialgen.generation.writing import (
    chat_delta,
    chat_messages,
    content_delta,
    suggested_questions,
)
from socialgen.kit.errors import SocialgenError
from socialgen.store.engine import transaction
from socialgen.workspaces.usage import reserve_posts


async def run_chat(plan: ChatPlan, model: TextModel) -> AsyncIterator[Event]:
    sources = UrlContext(
        model, plan.user_input, allow_private=plan.caller.settings.allow_private_urls
    )
    async for item in sources.process():
        yield item
    if await classify_intent(model, plan.user_input) == "post":
        async for item in _write_post(plan, model, sources.text):
            yield item
    else:
        async for item in _answer(plan, model, sources.text):
            yield item


async def _answer(plan: ChatPlan, model: TextModel, sources: str) -> AsyncIterator[Event]:
    writer = TextWriter(chat_delta, max_tokens=plan.caller.settings.max_tokens)
    messages = chat_messages(
        plan.user_input, style=plan.style, sources=sources, history=plan.history
    )
    async for item in writer.run(model, messages, purpose="chat"):
        yield item
    answer = writer.text.strip()
    caller = plan.caller
    conversation_id = await asyncio.to_thread(
        persist.save_exchange,
        caller.engine,
        workspace_id=caller.workspace_id,
        user_id=caller.user_id,
        conversation_id=plan.conversation_id,
        user_input=plan.user_input,
        answer=answer,
    )
    suggestions = await suggested_questions(
        model, plan.user_input, answer, max_tokens=caller.settings.max_tokens
    )
    conversation = await asyncio.to_thread(
        persist.read_conversation_history, caller.engine, conversation_id
    )
    yield Event.of(
        ChatResponse(
            conversationId=conversation_id,
            response=answer,
            suggestedQuestions=suggestions,
            conversationHistory=[HistoryItem.from_wire(message) for message in conversation],
        )
    )


async def _write_post(plan: ChatPlan, model: TextModel, sources: str) -> AsyncIterator[Event]:
    caller = plan.caller
    try:
        reservation_id = await asyncio.to_thread(_reserve_one, plan)
    except SocialgenError as error:
        yield Event.of(StreamError(message=error.message))
        return
    request = PostRequest(caller, plan.user_input, plan.conversation_id, plan.style, plan.history)
    async with Reservation(caller, 1, reservation_id) as quota:
        async for item in PostWriting(request, model, sources, content_delta, quota):
            yield item


def _reserve_one(plan: ChatPlan) -> str:
    with transaction(plan.caller.engine) as session:
        return reserve_posts(session, plan.caller.workspace_id, 1)
