"""The chat slice's own pieces: chat messages, its delta events, and the structured
side answers (refinement and follow-up questions)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from socialgen.ai.line_lists import ask_lines
from socialgen.ai.model import Message, TextModel
from socialgen.ai.structured import ask_structured
from socialgen.drafting.prompts import Prompts
from socialgen.events import Event
from socialgen.events.chat import ChatDelta, ContentDelta

_prompts = Prompts("socialgen.generation")
MAX_QUESTION_CHARS = 100


class Questions(BaseModel):
    questions: list[str] = Field(description="Three short questions.")


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
    return await _questions(model, _prompts.render("refinement", post=post), max_tokens)


async def suggested_questions(
    model: TextModel, question: str, answer: str, *, max_tokens: int
) -> list[str]:
    prompt = _prompts.render("suggestions", question=question, answer=answer)
    return await _questions(model, prompt, max_tokens)


async def _questions(model: TextModel, prompt: str, max_tokens: int) -> list[str]:
    """Three short questions: a JSON answer from capable models, three lines under
    a grammar from small ones (which cannot write the JSON)."""
    messages: list[Message] = [{"role": "user", "content": prompt}]
    if model.small:
        lines = await ask_lines(
            model,
            [{"role": "user", "content": f"{prompt}\nOne question per line."}],
            3,
            purpose="questions",
            max_chars=MAX_QUESTION_CHARS,
            max_tokens=_side_answer_tokens(max_tokens),
            sentences=True,
        )
        return [line if line.endswith("?") else f"{line}?" for line in lines]
    answer = await ask_structured(
        model, messages, Questions, max_tokens=_side_answer_tokens(max_tokens)
    )
    return _clean_questions(answer)


def _clean_questions(answer: Questions | None) -> list[str]:
    if answer is None:
        return []
    cleaned = [q.strip() for q in answer.questions if q and q.strip()]
    return cleaned[:3]
