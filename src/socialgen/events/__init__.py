"""The events every streamed operation yields, and their two wire forms.

A service is an async generator of `Event`s and knows nothing of terminals or
HTTP: the CLI prints them (rich, or one JSON object per line with --json), the
API encodes them as Server-Sent Events. Names and payloads are SPEC.md's; each
payload has a pydantic model (`socialgen.events.registry`), from which the
renderers read and the docs' event tables are written.

An event is built from its payload model, and only from it: `Event.of(ChatDelta(
text=...))`. The model checks the payload where it is built (a drift raises
EventContractError at the line that caused it, whichever face or test consumes the
stream), the event carries the model (printers read its attributes, no second
check), and the wire dict is dumped from it once, when a face first asks for it.

The payload models are on `payload.py`'s base; each declares its name, which registers
it (`registry.py`), and says what it tells of its stream's progress (`progress`). Here
are the drafting core's (`chat.py`) and those several streams share (`common.py`); a
feature's own live in its package (`generation/batch_events.py`,
`carousels/events.py`, `content_calendar/events.py`). `stream.py`'s `Stream` says which
events an endpoint sends; each slice lists its own in `streams.py`. `errors.py` holds
`EventContractError`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from socialgen.events.errors import EventContractError
from socialgen.events.payload import EventPayload
from socialgen.events.registry import declared_name, model_for

__all__ = ["Event", "EventContractError"]

# The fast check: a payload model under the name it declares itself (names are unique:
# EventPayload refuses a second model under one); patterns take the slow path.


@dataclass(frozen=True, slots=True)
class Event:
    """One event: its name and its payload model. Build it with `Event.of(payload)`;
    the constructor refuses anything but a declared model under its own name."""

    name: str
    payload: EventPayload
    _wire: dict[str, Any] | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if "{" in self.name or declared_name(type(self.payload)) != self.name:
            _refuse_unless_declared(self.name, self.payload)

    @classmethod
    def of(cls, payload: EventPayload, *, name: str | None = None) -> Event:
        """The event of a payload model; `name` only for a pattern (post_{N}_post_ids)."""
        if not isinstance(payload, EventPayload):
            raise EventContractError(
                f"an event is built from its payload model, not from {type(payload).__name__}"
            )
        name = name or payload.event_name
        if "{N}" in name:
            raise ValueError(f"{name} is a pattern: give the event's own name, e.g. post_1_…")
        return cls(name, payload)

    @property
    def data(self) -> dict[str, Any]:
        """The payload as its JSON object (dumped once, on first use)."""
        wire = self._wire
        if wire is None:
            wire = self.payload.wire()
            object.__setattr__(self, "_wire", wire)
        return wire

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


def _refuse_unless_declared(name: str, payload: object) -> None:
    """The slow path of the check: a pattern's instance (post_3_post_ids) passes; a dict,
    a nested object, an undeclared model or a model under another's name does not."""
    if not isinstance(payload, EventPayload):
        raise EventContractError(
            f"event {name!r} is built from its payload model, not from {type(payload).__name__}"
        )
    if "{N}" not in name and model_for(name) is type(payload):
        return
    raise EventContractError(f"event {name!r} cannot carry a {type(payload).__name__} payload")
