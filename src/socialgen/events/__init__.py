"""The events every streamed operation yields, and their two wire forms.

A service is an async generator of `Event`s and knows nothing of terminals or
HTTP: the CLI prints them (rich, or one JSON object per line with --json), the
API encodes them as Server-Sent Events. Names and payloads are SPEC.md's; each
payload has a pydantic model (`socialgen.events.registry`), from which the
renderers read and the docs' event tables are written.

Services build events with `event(name, **fields)`: the payload stays the plain
dict they give, so the wire is exactly what they wrote. With
`SOCIALGEN_CHECK_EVENTS=1` (the test suite sets it) every event is checked against
its model where it is built, so a drift fails at the line that caused it, whichever
face (SSE, --json, rich) or test consumes the stream. Off by default: a stream
should not pay a validation per token, and a production stream must not die over
a contract slip the tests exist to catch.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from socialgen.events.errors import EventContractError

if TYPE_CHECKING:
    from socialgen.events.payload import EventPayload

__all__ = ["Event", "EventContractError", "checking", "event"]

CHECK_ENV = "SOCIALGEN_CHECK_EVENTS"


@dataclass(frozen=True, slots=True)
class Event:
    name: str
    data: dict[str, Any]

    @classmethod
    def of(cls, payload: EventPayload, *, name: str | None = None) -> Event:
        """The event of a payload model; `name` only for a pattern (post_{N}_post_ids)."""
        name = name or payload.event_name
        if "{N}" in name:
            raise ValueError(f"{name} is a pattern: give the event's own name, e.g. post_1_…")
        return _checked(cls(name, payload.wire()))

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
    return _checked(Event(name, data))


def checking() -> bool:
    # Read on every event (a dict lookup) so a test's monkeypatch takes effect at once.
    return os.environ.get(CHECK_ENV) == "1"


def _checked(item: Event) -> Event:
    if checking():
        from socialgen.events.registry import check  # pydantic only when asked for

        check(item)
    return item
