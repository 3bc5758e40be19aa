"""A stream's declaration: which events an endpoint sends, for the docs' event tables
and the contract tests. Each slice declares its own (`<slice>/streams.py`)."""

from __future__ import annotations

from dataclasses import dataclass

from socialgen.events.payload import EventPayload


@dataclass(frozen=True)
class Stream:
    key: str
    title: str
    endpoint: str  # "METHOD /path", as the docs show it
    events: tuple[type[EventPayload], ...]
    typed: bool = False  # each SSE data is {type, data} (the carousel stream)
