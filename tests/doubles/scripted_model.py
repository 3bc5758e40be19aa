"""A text model that answers from a script, in-process: the test double of every
test above the wire (the fake OpenAI server in tests/fakes tests ai/remote.py).

Like simonw/llm's MockModel: no network, no weights. Each call takes the next
queued reply, or else asks the responder, given the call: its messages, its Output
and its `purpose` (what the pipeline asked for: "post", "chat", "summary", or a
structured answer's schema name such as "carousel_outline"), so a responder routes
on the purpose, never on the prompt's wording. Every call is recorded for
assertions. A reply is text (streamed in small chunks, as a provider would), a
JSON-able value (sent as its JSON), an exception (raised when the stream starts,
e.g. ModelError or FormatRefused), a `CutOff` (some text, then a failure) or a
`Streamed` (reasoning first, pauses between chunks).
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import AsyncIterator, Callable, Collection, Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from socialgen.ai.model import Chunk, FormatRefused, Message, Output, OutputMode

CHUNK_CHARS = 6  # small enough that any answer arrives in several chunks


@dataclass(frozen=True)
class CutOff:
    """A stream that breaks: `text` arrives, then `error` is raised."""

    text: str
    error: Exception


@dataclass(frozen=True)
class Streamed:
    """An answer streamed as a slow or thinking model does: `reasoning` chunks first
    (as Chunk.reasoning), then `text`; `first_delay` seconds before anything and
    `chunk_delay` seconds between chunks."""

    text: str
    reasoning: str = ""
    first_delay: float = 0.0
    chunk_delay: float = 0.0


Reply = str | dict[str, Any] | list[Any] | BaseModel | Exception | CutOff | Streamed


@dataclass(frozen=True)
class ScriptedCall:
    """One request the model was given, as the caller made it."""

    messages: list[Message]
    output: Output | None
    max_tokens: int | None
    temperature: float | None
    purpose: str | None = None

    @property
    def prompt(self) -> str:
        """The last user message (where the pipeline puts its instructions)."""
        users = [m["content"] for m in self.messages if m.get("role") == "user"]
        return users[-1] if users else ""

    @property
    def schema_name(self) -> str | None:
        """The structured answer asked for ("intent", "calendar_themes" ...), on every
        rung of the ladder; None for free text and for line lists under a grammar."""
        if self.output is None or self.output.schema is None:
            return None
        return self.output.name


Responder = Callable[[ScriptedCall], Reply]


class NoScriptedReply(LookupError):
    """The script ran out. Not a ModelError on purpose: services treat those as a
    provider failure and carry on, which would hide a test's missing reply."""


class ScriptedModel:
    """A `TextModel` (see ai/model.py) whose answers are scripted.

    replies: answered first, in order, one per call.
    responder: answers every call after the queue is empty.
    refuses: output modes the "provider" rejects (FormatRefused) before any reply is
        used, to walk the structured-output ladder down.
    """

    def __init__(
        self,
        *replies: Reply,
        responder: Responder | None = None,
        name: str = "scripted",
        small: bool = False,
        refuses: Collection[OutputMode] = (),
        chunk_chars: int = CHUNK_CHARS,
    ) -> None:
        self.name = name
        self.small = small
        self.responder = responder
        self.refuses = frozenset(refuses)
        self.chunk_chars = max(1, chunk_chars)
        self.replies: deque[Reply] = deque(replies)
        self.calls: list[ScriptedCall] = []

    def queue(self, *replies: Reply) -> None:
        self.replies.extend(replies)

    def calls_for(self, purpose: str) -> list[ScriptedCall]:
        """The calls made for `purpose` ("post", "intent", "carousel_outline" ...)."""
        return [call for call in self.calls if call.purpose == purpose]

    async def stream(
        self,
        messages: list[Message],
        *,
        output: Output | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        purpose: str | None = None,
    ) -> AsyncIterator[Chunk]:
        # A copy: callers reuse and extend their message lists.
        messages_copy = [dict(m) for m in messages]
        call = ScriptedCall(messages_copy, output, max_tokens, temperature, purpose)
        self.calls.append(call)
        if output is not None and output.mode in self.refuses:
            raise FormatRefused(f"{self.name} refuses response_format {output.mode}")
        reply = self._reply(call)
        if isinstance(reply, Exception):
            raise reply
        streamed = reply if isinstance(reply, Streamed) else Streamed(text=_text_of(reply))
        await asyncio.sleep(streamed.first_delay)
        # A turn of the event loop per chunk (sleep(0) at the least), as a network
        # stream gives: concurrent generations interleave and a cancelled one stops
        # between chunks.
        for piece in self._pieces(streamed.reasoning):
            yield Chunk(reasoning=piece)
            await asyncio.sleep(streamed.chunk_delay)
        for piece in self._pieces(streamed.text):
            yield Chunk(text=piece)
            await asyncio.sleep(streamed.chunk_delay)
        if isinstance(reply, CutOff):
            raise reply.error

    def _pieces(self, text: str) -> Iterator[str]:
        for start in range(0, len(text), self.chunk_chars):
            yield text[start : start + self.chunk_chars]

    def _reply(self, call: ScriptedCall) -> str | Exception | CutOff | Streamed:
        if self.replies:
            reply = self.replies.popleft()
        elif self.responder is not None:
            reply = self.responder(call)
        else:
            raise NoScriptedReply(f"{self.name} has no reply left for: {call.prompt[:200]!r}")
        return as_text(reply)


def _text_of(reply: str | CutOff) -> str:
    return reply.text if isinstance(reply, CutOff) else reply


def as_text(reply: Reply) -> str | Exception | CutOff | Streamed:
    """Text, an exception or a cut-off or paced stream stay as they are; anything
    else is sent as the JSON a provider would write."""
    if isinstance(reply, str | Exception | CutOff | Streamed):
        return reply
    if isinstance(reply, BaseModel):
        return reply.model_dump_json()
    return json.dumps(reply)
