"""Writing a post with the model: prompts to messages, streaming text with reasoning
events, and the finished post cleaned for LinkedIn."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

from socialgen.ai.model import Message, ModelError, TextModel
from socialgen.ai.settings import ai_settings
from socialgen.drafting.linkedin import to_linkedin_text
from socialgen.drafting.prompts import render
from socialgen.events import Event, event


def post_messages(
    topic: str,
    *,
    style: str | None,
    sources: str,
    history: list[Message],
    variation: str = "",
) -> list[Message]:
    system = render("post_system", style=style or "")
    user = render("post_user", topic=topic, variation=variation, sources=sources)
    return [{"role": "system", "content": system}, *history, {"role": "user", "content": user}]


class TextWriter:
    """Streams a model answer as events and keeps the whole text.

    `delta` builds the event for each new piece of text (chat_delta or
    content_delta); reasoning, when the model shows it, is framed by
    reasoning_started / reasoning_ended.
    """

    def __init__(self, delta: Callable[[str, str], Event]) -> None:
        self.delta = delta
        self.text = ""

    async def run(self, model: TextModel, messages: list[Message]) -> AsyncIterator[Event]:
        reasoning = False
        async for chunk in model.stream(messages, max_tokens=ai_settings().max_tokens):
            if chunk.reasoning:
                if not reasoning:
                    reasoning = True
                    yield event("reasoning_started")
                yield event("reasoning_delta", text=chunk.reasoning)
            if chunk.text:
                if reasoning:
                    reasoning = False
                    yield event("reasoning_ended")
                self.text += chunk.text
                yield self.delta(chunk.text, self.text)
        if reasoning:
            yield event("reasoning_ended")


def finished_post(raw: str) -> str:
    post = to_linkedin_text(raw)
    if not post:
        raise ModelError("The model returned an empty post; try again or rephrase the topic")
    return post
