"""Writing one post as a stream, shared by the chat stream (when the user asks for a
post) and generate-post: stream the text, save it, ask for refinement questions,
then post_ids.

A `PostWriting` is both the stream and its result (as llm's Response is): iterate
it for the events; `saved` is the stored post once it exists. It spends the
caller's reservation the moment the post is saved, so a stream cut after that
(during the refinement questions) keeps the post's quota spent."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

from socialgen.ai.model import TextModel
from socialgen.app.caller import Caller
from socialgen.drafting import persist
from socialgen.drafting.persist import SavedPost
from socialgen.drafting.planning import short_prompts
from socialgen.drafting.post_prompt import post_messages
from socialgen.drafting.quota import Reservation
from socialgen.drafting.writing import TextWriter, finished_post
from socialgen.events import Event
from socialgen.events.chat import PostIds
from socialgen.generation.writing import refinement_questions


@dataclass(frozen=True)
class PostRequest:
    caller: Caller
    user_input: str
    conversation_id: str | None
    style: str | None
    history: list[dict[str, str]]
    post_id: str | None = None


class PostWriting:
    def __init__(
        self,
        request: PostRequest,
        model: TextModel,
        sources: str,
        delta: Callable[[str, str], Event],
        quota: Reservation,
    ) -> None:
        self.request = request
        self.model = model
        self.sources = sources
        self.delta = delta
        self.quota = quota
        self.saved: SavedPost | None = None

    def __aiter__(self) -> AsyncIterator[Event]:
        return self._write()

    async def _write(self) -> AsyncIterator[Event]:
        request = self.request
        writer = TextWriter(self.delta, max_tokens=request.caller.settings.max_tokens)
        messages = post_messages(
            request.user_input,
            style=request.style,
            sources=self.sources,
            history=request.history,
            small=short_prompts(self.model),
        )
        async for item in writer.run(self.model, messages, purpose="post"):
            yield item
        content = finished_post(writer.text)
        caller = request.caller
        self.saved = await asyncio.to_thread(
            persist.save_post,
            caller.engine,
            workspace_id=caller.workspace_id,
            user_id=caller.user_id,
            conversation_id=request.conversation_id,
            user_input=request.user_input,
            content=content,
            post_id=request.post_id,
            reservation_id=self.quota.ledger_id,
        )
        self.quota.spend()
        questions = await refinement_questions(
            self.model, content, max_tokens=caller.settings.max_tokens
        )
        yield Event.of(
            PostIds(
                conversationId=self.saved.conversation_id,
                postId=self.saved.post_id,
                refinementQuestions=questions,
            )
        )
