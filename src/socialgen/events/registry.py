"""The model of every event name, and the reading of an event from the wire (a
client's, a test's).

Every payload model declares its own name (`event_name`); importing the modules
below is what registers them. Which stream sends which events is the streams' own
business: each slice declares its streams (`<slice>/streams.py`), and the features
list them (`socialgen.features`).
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


MODELS: dict[str, Model] = _all_models()  # event name (or pattern) -> its model
_PATTERNS: tuple[tuple[re.Pattern[str], Model], ...] = tuple(
    (re.compile(re.escape(name).replace(re.escape("{N}"), "([1-9][0-9]*)")), model)
    for name, model in MODELS.items()
    if "{N}" in name
)


def model_for(name: str) -> Model:
    """The model of an event name; a pattern's instance (post_3_post_ids) finds its own."""
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
