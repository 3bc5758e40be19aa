"""The contract every text model meets: one method that streams chunks."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Protocol

from socialgen.errors import SocialgenError

Message = dict[str, str]  # {"role": "system" | "user" | "assistant", "content": ...}


@dataclass(frozen=True, slots=True)
class Chunk:
    text: str = ""
    reasoning: str = ""


class TextModel(Protocol):
    name: str

    def stream(
        self,
        messages: list[Message],
        *,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
    ) -> AsyncIterator[Chunk]:
        """Yield the answer as it is written. Raises ModelError on any provider failure."""
        ...


class ModelError(SocialgenError):
    """The model could not answer: provider error, timeout, cut stream."""

    status_code = 502


async def complete(
    model: TextModel,
    messages: list[Message],
    *,
    json_schema: dict[str, Any] | None = None,
    max_tokens: int | None = None,
    temperature: float | None = None,
) -> str:
    """The whole answer as one string."""
    parts = [
        chunk.text
        async for chunk in model.stream(
            messages, json_schema=json_schema, max_tokens=max_tokens, temperature=temperature
        )
    ]
    return "".join(parts)
