"""The generate-post stream: one post, written as chat_delta, saved as a draft
(or a new version of the post being refined), then post_ids."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from socialgen.ai.model import TextModel
from socialgen.events import Event, event
from socialgen.generation import persist
from socialgen.generation.plan import PostPlan
from socialgen.generation.url_context import UrlContext
from socialgen.generation.writing import (
    TextWriter,
    finished_post,
    post_messages,
    refinement_questions,
)


async def run_generate_post(plan: PostPlan, model: TextModel) -> AsyncIterator[Event]:
    caller = plan.caller
    produced = 0
    try:
        sources = UrlContext(model, plan.user_input)
        async for item in sources.process():
            yield item
        writer = TextWriter(lambda text, _so_far: event("chat_delta", text=text))
        messages = post_messages(
            plan.user_input, style=plan.style, sources=sources.text, history=plan.history
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
            post_id=plan.post_id,
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
        # Whatever stopped us (error, cancel, disconnect), an unproduced post is refunded.
        persist.refund(caller.engine, caller.workspace_id, plan.reserved - produced)
