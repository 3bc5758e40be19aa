"""The chat slice's own pieces: chat messages, its delta events, and the structured
side answers (refinement and follow-up questions)."""

from __future__ import annotations

from socialgen.ai.model import Message, TextModel
from socialgen.drafting.prompts import Prompts
from socialgen.events import Event
from socialgen.events.chat import ChatDelta, ContentDelta
from socialgen.generation.questions import plan_questions

_prompts = Prompts("socialgen.generation")


def chat_messages(
    question: str, *, style: str | None, sources: str, history: list[Message]
) -> list[Message]:
    system = _prompts.render("chat_system", style=style or "")
    content = f"{question}\n\n{sources}".strip()
    return [{"role": "system", "content": system}, *history, {"role": "user", "content": content}]


def content_delta(text: str, so_far: str) -> Event:
    """A piece of post text in the chat stream (SPEC.md: {text, accumulated})."""
    return Event.of(ContentDelta.token(text, so_far))


def chat_delta(text: str, _so_far: str) -> Event:
    return Event.of(ChatDelta.token(text))


def _side_answer_tokens(max_tokens: int) -> int:
    """Side questions stay short, and never longer than a post may be (`max_tokens`)."""
    return min(160, max_tokens)


async def refinement_questions(model: TextModel, post: str, *, max_tokens: int) -> list[str]:
    """Up to three whole questions that would make `post` better (generation/questions.py)."""
    return await _questions(model, _prompts.render("refinement", post=post), post, max_tokens)


async def suggested_questions(
    model: TextModel, question: str, answer: str, *, max_tokens: int
) -> list[str]:
    """Up to three whole follow-up questions to `answer`."""
    prompt = _prompts.render("suggestions", question=question, answer=answer)
    return await _questions(model, prompt, answer, max_tokens)


async def _questions(model: TextModel, prompt: str, about: str, max_tokens: int) -> list[str]:
    return await plan_questions(
        model, prompt, about=about, max_tokens=_side_answer_tokens(max_tokens)
    )
