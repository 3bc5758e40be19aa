"""The model of every event name, and the reading of an event from the wire (a
client's, a test's).

Every payload model declares its own name (`event_name`); defining it is what
registers it. The modules below (the events of the built-in streams) are imported
so a client can read them before anything sends them; a feature's own events live
in its own package and are found the first time one is asked for (a name not known
yet scans the models again), so adding a feature edits nothing here. Which stream
sends which events is the streams' own business: each slice declares its streams
(`<slice>/streams.py`), and the features list them (`socialgen.features`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

# Imported for their models: defining a payload model registers its event name.
from socialgen.events import batch, carousel, chat, common, content_calendar  # noqa: F401
from socialgen.events.batch import BATCH_SIZE
from socialgen.events.errors import EventContractError
from socialgen.events.payload import EventPayload

Model = type[EventPayload]


def _declared(base: Model) -> Iterator[Model]:
    """Every payload model under `base`, in the order the modules above define them."""
    for model in base.__subclasses__():
        if "event_name" in vars(model):
            yield model
        yield from _declared(model)


def _all_models() -> dict[str, Model]:
    models: dict[str, Model] = {}
    for model in _declared(EventPayload):
        if models.setdefault(model.event_name, model) is not model:
            raise EventContractError(f"two models declare the event {model.event_name!r}")
    return models


MODELS: dict[str, Model] = {}  # event name (or pattern) -> its model
PLAIN: dict[str, Model] = {}  # the same, patterns left out: the events' fast check
_PATTERNS: list[tuple[re.Pattern[str], Model]] = []


def _rescan() -> None:
    """Every payload model defined by now (constant once the features' events are
    imported: a scan adds, never changes, so readers keep the same dicts)."""
    found = _all_models()
    for name, model in found.items():
        if name in MODELS:
            continue
        MODELS[name] = model
        if "{N}" in name:
            pattern = re.escape(name).replace(re.escape("{N}"), "([1-9][0-9]*)")
            _PATTERNS.append((re.compile(pattern), model))
        else:
            PLAIN[name] = model


_rescan()


def model_for(name: str) -> Model:
    """The model of an event name; a pattern's instance (post_3_post_ids) finds its own."""
    if name not in MODELS:
        _rescan()  # a feature's event, defined since the last scan
    model = MODELS.get(name)
    if model is not None and "{N}" not in name:
        return model
    for pattern, candidate in _PATTERNS:
        found = pattern.fullmatch(name)
        if found and int(found.group(1)) <= BATCH_SIZE:  # N: a 1-based index in the batch
            return candidate
    raise EventContractError(f"event {name!r} is not one SPEC.md (or socialgen) declares")


def read(name: str, data: Any) -> EventPayload:
    """An event read from the wire as its model; a break of the contract raises
    EventContractError."""
    return model_for(name).from_wire(data)
