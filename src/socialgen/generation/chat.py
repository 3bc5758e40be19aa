"""The chat stream: a general answer, or a post when that is what the user asks for."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from socialgen.ai.model import TextModel
from socialgen.errors import SocialgenError
from socialgen.events import Event, event
from socialgen.generation import persist
from socialgen.generation.plan import ChatPlan
from socialgen.generation.url_context import UrlContext
from socialgen.generation.writing import (
    TextWriter,
    chat_messages,
    finished_post,
    post_messages,
    refinement_questions,
    suggested_questions,
    wants_a_post,
)
from socialgen.store.engine import transaction
from socialgen.workspaces.usage import reserve_posts


async def run_chat(plan: ChatPlan, model: TextModel) -> AsyncIterator[Event]:
    sources = UrlContext(model, plan.user_input)
    async for item in sources.process():
        yield item
    if await wants_a_post(model, plan.user_input):
        async for item in _write_post(plan, model, sources.text):
            yield item
    else:
        async for item in _answer(plan, model, sources.text):
            yield item


async def _answer(plan: ChatPlan, model: TextModel, sources: str) -> AsyncIterator[Event]:
    writer = TextWriter(lambda text, _so_far: event("chat_delta", text=text))
    messages = chat_messages(
        plan.user_input, style=plan.style, sources=sources, history=plan.history
    )
    async for item in writer.run(model, messages):
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
    suggestions = await suggested_questions(model, plan.user_input, answer)
    conversation = await asyncio.to_thread(
        persist.read_conversation_history, caller.engine, conversation_id
    )
    yield event(
        "chat_response",
        conversationId=conversation_id,
        response=answer,
        suggestedQuestions=suggestions,
        conversationHistory=conversation,
    )


async def _write_post(plan: ChatPlan, model: TextModel, sources: str) -> AsyncIterator[Event]:
    caller = plan.caller
    try:
        await asyncio.to_thread(_reserve_one, plan)
    except SocialgenError as error:
        yield event("error", message=error.message)
        return
    produced = 0
    try:
        writer = TextWriter(
            lambda text, so_far: event("content_delta", text=text, accumulated=so_far)
        )
        messages = post_messages(
            plan.user_input, style=plan.style, sources=sources, history=plan.history
        )
        async for item in writer.run(model, messages):
            yield item
        content = finished_post(writer.text)
        saved = await asyncio.to_thread(
            persist.save_post,
            caller.engine,
            workspace_id=caller.workspace_id,
            user_id=caller.user_id,
            conversation_id=plan.conversation_id,
            user_input=plan.user_input,
            content=content,
        )
        produced = 1
        questions = await refinement_questions(model, content)
        yield event(
            "post_ids",
            conversationId=saved.conversation_id,
            postId=saved.post_id,
            refinementQuestions=questions,
        )
    finally:
        persist.refund(caller.engine, caller.workspace_id, 1 - produced)


def _reserve_one(plan: ChatPlan) -> None:
    with transaction(plan.caller.engine) as session:
        reserve_posts(session, plan.caller.workspace_id, 1)
