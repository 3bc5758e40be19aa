"""The events every streamed operation yields, and their two wire forms.

A service is an async generator of `Event`s and knows nothing of terminals or
HTTP: the CLI prints them (rich, or one JSON object per line with --json), the
API encodes them as Server-Sent Events. Names and payloads are SPEC.md's.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Event:
    name: str
    data: dict[str, Any]

    def json_line(self) -> str:
        return json.dumps({"event": self.name, "data": self.data}, ensure_ascii=False)

    def sse(self) -> str:
        payload = json.dumps(self.data, ensure_ascii=False, separators=(",", ":"))
        return f"event: {self.name}\ndata: {payload}\n\n"

    def typed_sse(self) -> str:
        """SSE whose data is the JSON object {type, data} (the carousel stream's form)."""
        envelope = {"type": self.name, "data": self.data}
        payload = json.dumps(envelope, ensure_ascii=False, separators=(",", ":"))
        return f"event: {self.name}\ndata: {payload}\n\n"


def event(name: str, **data: Any) -> Event:
    return Event(name, data)
