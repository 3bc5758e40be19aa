"""The pieces every generation shares: prompts to messages, streaming text with
reasoning events, structured side answers."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

from pydantic import BaseModel, Field

from socialgen.ai.model import Message, ModelError, TextModel
from socialgen.ai.settings import ai_settings
from socialgen.ai.structured import ask_structured
from socialgen.events import Event, event
from socialgen.generation.linkedin import to_linkedin_text
from socialgen.generation.prompts import render


class Questions(BaseModel):
    questions: list[str] = Field(description="Three short questions.")


class Intent(BaseModel):
    intent: str = Field(description='"post" or "chat"', pattern="^(post|chat)$")


_POST_WORDS = ("write", "draft", "rewrite", "post", "linkedin", "create")


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


def chat_messages(
    question: str, *, style: str | None, sources: str, history: list[Message]
) -> list[Message]:
    system = render("chat_system", style=style or "")
    content = f"{question}\n\n{sources}".strip()
    return [{"role": "system", "content": system}, *history, {"role": "user", "content": content}]


def content_delta(text: str, so_far: str) -> Event:
    """A piece of post text in the chat stream (SPEC.md: {text, accumulated})."""
    return event("content_delta", text=text, accumulated=so_far)


def chat_delta(text: str, _so_far: str) -> Event:
    return event("chat_delta", text=text)


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


def _side_answer_tokens() -> int:
    """Side questions stay short, and never longer than a post may be."""
    return min(160, ai_settings().max_tokens)


async def refinement_questions(model: TextModel, post: str) -> list[str]:
    answer = await ask_structured(
        model,
        [{"role": "user", "content": render("refinement", post=post)}],
        Questions,
        max_tokens=_side_answer_tokens(),
    )
    return _clean_questions(answer)


async def suggested_questions(model: TextModel, question: str, answer: str) -> list[str]:
    reply = await ask_structured(
        model,
        [{"role": "user", "content": render("suggestions", question=question, answer=answer)}],
        Questions,
        max_tokens=_side_answer_tokens(),
    )
    return _clean_questions(reply)


async def wants_a_post(model: TextModel, message: str) -> bool:
    answer = await ask_structured(
        model,
        [{"role": "user", "content": render("intent", message=message)}],
        Intent,
        max_tokens=20,
    )
    if answer is not None:
        return answer.intent == "post"
    lowered = message.lower()  # the model could not say: a plain keyword guess
    return any(word in lowered for word in _POST_WORDS)


def _clean_questions(answer: Questions | None) -> list[str]:
    if answer is None:
        return []
    cleaned = [q.strip() for q in answer.questions if q and q.strip()]
    return cleaned[:3]
