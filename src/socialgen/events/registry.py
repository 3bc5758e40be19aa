"""The model of every event name, and the reading of an event from the wire (a
client's, a test's).

Every payload model declares its own name (`event_name`); defining it is what
registers it. The events the drafting core sends (`chat.py`) and those several
streams share (`common.py`) are here; a feature's own events live in its own package
(generation/batch_events.py, carousels/events.py, content_calendar/events.py, a test's
toy) and count once their module is imported (every lookup scans the models; the
features' streams import them, `socialgen.app.features.streams`), so adding a feature
edits nothing here. Which stream sends which events is the streams' own business:
each slice declares its streams (`<slice>/streams.py`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

# Imported for their models: defining a payload model registers its event name.
from socialgen.events import chat, common  # noqa: F401
from socialgen.events.errors import EventContractError
from socialgen.events.payload import EventPayload
from socialgen.events.stream import Stream

Model = type[EventPayload]


def _declared(base: Model) -> Iterator[Model]:
    """Every payload model under `base`, in the order the modules above define them."""
    for model in base.__subclasses__():
        if "event_name" in vars(model):
            yield model
        yield from _declared(model)


def models() -> dict[str, Model]:
    """Every event name (or pattern) -> its model, among the models defined by now.

    A fresh scan of the class tree each time (about 30 us for the built-in events):
    the classes are the registry, so nothing here keeps one that could go stale or
    need resetting, and a feature's events count from the moment they are defined.
    Two models under one name are refused where the second is defined
    (EventPayload.__pydantic_init_subclass__)."""
    found: dict[str, Model] = {}
    for model in _declared(EventPayload):
        # The first: a second model under a name was refused where it was defined, but
        # its class may linger until the garbage collector's next pass.
        found.setdefault(model.event_name, model)
    return found


def declared_name(model: Model) -> str | None:
    """The event name `model` declares itself (not one it inherits)."""
    name = vars(model).get("event_name")
    return name if isinstance(name, str) else None


def _pattern(name: str) -> str:
    """post_{N}_post_ids as a regular expression (re caches its compiled form)."""
    return re.escape(name).replace(re.escape("{N}"), "([1-9][0-9]*)")


def model_for(name: str) -> Model:
    """The model of an event name; a pattern's instance (post_3_post_ids) finds its own."""
    found = models()
    model = found.get(name)
    if model is not None and "{N}" not in name:
        return model
    for declared, candidate in found.items():
        if "{N}" not in declared:
            continue
        matched = re.fullmatch(_pattern(declared), name)
        if matched and int(matched.group(1)) <= candidate.max_index:  # N: 1 to its highest
            return candidate
    raise EventContractError(f"event {name!r} is not one SPEC.md (or socialgen) declares")


def read(name: str, data: Any, among: Iterable[Stream] | None = None) -> EventPayload:
    """An event read from the wire as its model; a break of the contract raises
    EventContractError. `among`: the streams a Runtime knows (app.features.streams of
    its features): an event none of them sends is not one it reads, though its model
    is defined (a feature handed to another Runtime)."""
    model = model_for(name)
    if among is not None and not any(model in stream.events for stream in among):
        raise EventContractError(f"event {name!r} is not sent by any stream of these features")
    return model.from_wire(data)
