"""Test support for the streams: SSE parsing and the check of events against their
models. The scripted models and their answers are in tests/scripted_support.py."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from socialgen.app.features import streams
from socialgen.events.registry import read


@dataclass(frozen=True)
class SseEvent:
    name: str
    data: Any


def parse_sse(text: str) -> list[SseEvent]:
    events = []
    for block in re.split(r"\r?\n\r?\n", text.strip()):
        if not block.strip():
            continue
        name, data = "message", ""
        for line in block.splitlines():
            if line.startswith("event:"):
                name = line[6:].strip()
            elif line.startswith("data:"):
                data += line[5:].strip()
        events.append(SseEvent(name, json.loads(data) if data else None))
    return events


def names(events: list[SseEvent]) -> list[str]:
    return [e.name for e in events if e.name != "keepalive"]


def check_contract(events: list[SseEvent], stream: str | None = None) -> None:
    """Every event is one SPEC.md (or socialgen) declares, its payload exactly its model
    (socialgen.events.registry): the contract lives with the models, not here. With
    `stream` ("chat", "post", "batch", "calendar", "carousel"), each event is also one
    that stream sends."""
    sent_by = {model for s in streams() if s.key == stream for model in s.events}
    for item in events:
        assert isinstance(item.data, dict), item
        payload = read(item.name, item.data)
        assert stream is None or type(payload) in sent_by, f"{stream} does not send {item.name}"
