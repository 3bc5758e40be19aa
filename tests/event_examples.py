"""One payload (or more) per event, as a service sends it, with the optional fields
given where they exist, so every field a renderer may read is exercised.

Each event's model declares its own (`EventPayload.examples`); they are collected here
from the streams the features declare, so a feature's new event (the toy feature's,
tests/toy_feature.py) is covered without an edit to this file."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from socialgen.app.features import streams
from socialgen.app.registration import Feature
from socialgen.events import Event
from socialgen.events.payload import EventPayload
from socialgen.events.registry import read


def event_models(features: Sequence[Feature] = ()) -> list[type[EventPayload]]:
    """Every event model some stream sends, once, in the streams' order."""
    models: list[type[EventPayload]] = []
    for stream in streams(features):
        models.extend(model for model in stream.events if model not in models)
    return models


def examples(features: Sequence[Feature] = ()) -> list[tuple[str, dict[str, Any]]]:
    """(event name, payload) for every example of every streamed event; a pattern name
    (post_{N}_post_ids) as event 1."""
    return [
        (model.event_name.replace("{N}", "1"), data)
        for model in event_models(features)
        for data in model.examples
    ]


def without_examples(features: Sequence[Feature] = ()) -> list[str]:
    """The streamed events that declare no example."""
    return [model.event_name for model in event_models(features) if not model.examples]


def wire_bytes(name: str, data: dict[str, Any]) -> tuple[str, str, str]:
    """The three wire forms of a payload, written from its dict by hand."""

    def dumps(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))

    return (
        f"event: {name}\ndata: {dumps(data)}\n\n",
        json.dumps({"event": name, "data": data}, ensure_ascii=False),
        f"event: {name}\ndata: {dumps({'type': name, 'data': data})}\n\n",
    )


def check_round_trip(name: str, data: dict[str, Any]) -> None:
    """The payload read through its model is the same bytes on every wire form."""
    payload = read(name, data)
    built = Event.of(payload, name=name)
    assert built.payload is payload and built.data == data
    assert payload.wire() == payload.model_dump(mode="json", exclude_unset=True)  # hand wire()s
    assert (built.sse(), built.json_line(), built.typed_sse()) == wire_bytes(name, data)


EXAMPLES = examples()
