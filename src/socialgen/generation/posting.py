"""Writing one post as a stream, shared by the chat stream (when the user asks for a
post) and generate-post: stream the text, save it, ask for refinement questions,
then post_ids. The caller holds the quota and refunds it unless `saved` is set."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from socialgen.ai.model import TextModel
from socialgen.events import Event, event
from socialgen.generation import persist
from socialgen.generation.plan import Caller
from socialgen.generation.writing import (
    TextWriter,
    finished_post,
    post_messages,
    refinement_questions,
)


@dataclass
class PostRequest:
    caller: Caller
    user_input: str
    conversation_id: str | None
    style: str | None
    history: list[dict[str, str]]
    post_id: str | None = None
    saved: bool = False  # set once the post is stored: its quota is spent


async def write_post(
    request: PostRequest,
    model: TextModel,
    sources: str,
    delta: Callable[[str, str], Event],
) -> AsyncIterator[Event]:
    writer = TextWriter(delta)
    messages = post_messages(
        request.user_input, style=request.style, sources=sources, history=request.history
    )
    async for item in writer.run(model, messages):
        yield item
    content = finished_post(writer.text)
    caller = request.caller
    saved = await asyncio.to_thread(
        persist.save_post,
        caller.engine,
        workspace_id=caller.workspace_id,
        user_id=caller.user_id,
        conversation_id=request.conversation_id,
        user_input=request.user_input,
        content=content,
        post_id=request.post_id,
    )
    request.saved = True
    questions = await refinement_questions(model, content)
    yield event(
        "post_ids",
        conversationId=saved.conversation_id,
        postId=saved.post_id,
        refinementQuestions=questions,
    )
