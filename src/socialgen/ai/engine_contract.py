"""What an engine (ai/engine.py) is asked, and what it answers to."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from socialgen.ai.model import Message, Output

# Called with each piece of text as it is written; True asks the engine to stop.
Emit = Callable[[str], bool]


@dataclass(frozen=True, slots=True)
class Generation:
    """One chat completion, as both engines take it."""

    messages: list[Message]
    max_tokens: int | None
    temperature: float
    top_p: float
    repeat_penalty: float
    output: Output | None


class Engine(Protocol):
    def generate(self, path: Path, request: Generation, emit: Emit) -> None:
        """Write the answer to `request` with the GGUF at `path` (loaded once, kept),
        calling `emit` with each piece; stop early when it returns True. Blocks; the
        caller serialises calls. Raises on any failure."""
        ...

    def unload_all(self) -> None:
        """Free every loaded model (at exit, before interpreter teardown)."""
        ...
