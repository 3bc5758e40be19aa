"""The contract every text model meets: one method that streams chunks."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from socialgen.kit.errors import SocialgenError

Message = dict[str, str]  # {"role": "system" | "user" | "assistant", "content": ...}

OutputMode = Literal["json_schema", "json_object", "text"]


@dataclass(frozen=True, slots=True)
class Chunk:
    text: str = ""
    reasoning: str = ""


@dataclass(frozen=True, slots=True)
class Output:
    """The shape an answer must take, as the provider is asked to enforce it.

    mode: "json_schema" (the provider enforces `schema`, sent under `name`),
        "json_object" (any JSON; the caller writes the schema into the prompt),
        or "text" (free text; the caller finds the JSON in it).
    grammar: a llama.cpp GBNF grammar for small models' line lists; the embedded
        model enforces it, a remote one gets it as the `grammar` body field.
    """

    mode: OutputMode = "text"
    schema: dict[str, Any] | None = None
    name: str = "answer"
    grammar: str | None = None


class TextModel(Protocol):
    name: str
    # Small models (under a billion parameters, or any SOCIALGEN_SMALL_MODEL marks) plan
    # in short line lists rather than JSON: they can write the first, not the second.
    small: bool

    def stream(
        self,
        messages: list[Message],
        *,
        output: Output | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        purpose: str | None = None,
    ) -> AsyncIterator[Chunk]:
        """Yield the answer as it is written. Raises ModelError on any provider failure.

        `purpose` names what the call is for ("post", "chat", "summary", or a structured
        answer's schema name such as "calendar_themes"): providers ignore it; a test
        double answers by it, never by the prompt's wording."""
        ...


class ModelError(SocialgenError):
    """The model could not answer: provider error, timeout, cut stream."""

    status_code = 502


class StreamCut(ModelError):
    """The provider ended an answer before it was finished (no finish reason). A local
    server that answers one request at a time (llama_cpp.server's default) does this
    to a running answer when another request arrives."""


class FormatRefused(ModelError):
    """The provider refused the requested output format (response_format or grammar):
    the caller asks again in a plainer one."""


async def complete(
    model: TextModel,
    messages: list[Message],
    *,
    output: Output | None = None,
    max_tokens: int | None = None,
    temperature: float | None = None,
    purpose: str | None = None,
) -> str:
    """The whole answer as one string."""
    parts = [
        chunk.text
        async for chunk in model.stream(
            messages,
            output=output,
            max_tokens=max_tokens,
            temperature=temperature,
            purpose=purpose,
        )
    ]
    return "".join(parts)
