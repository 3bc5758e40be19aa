"""The base of every event payload model and of the objects nested in them.

Strict and closed: a field the model does not declare, a wrong type ("3" for 3),
or a null where the contract says "absent" is a contract break, so a drift between
a service and SPEC.md fails a test instead of reaching a client. A payload that breaks
its model raises EventContractError (a bug, never the user's error) where it is
built, so no stream turns it into an `error` event and hides it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal, Self

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from socialgen.events.errors import EventContractError

# Where a piece of generated content came from: the model's answer, or the built-in
# template that stood in because the model gave nothing usable (DESIGN.md: the user
# is told).
Source = Literal["model", "template"]


class WireObject(BaseModel):
    """An object on the wire. Optional fields are absent when not given, never null."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    def __init__(self, /, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as error:
            raise _broken(type(self), error) from None

    @classmethod
    def from_wire(cls, data: Any) -> Self:
        """The object read from its JSON form (a client's, a stored view's dict)."""
        try:
            return cls.model_validate(data)
        except ValidationError as error:
            raise _broken(cls, error) from None

    @model_validator(mode="before")
    @classmethod
    def _absent_not_null(cls, data: Any) -> Any:
        if isinstance(data, dict):
            nulls = sorted(str(key) for key, value in data.items() if value is None)
            if nulls:
                raise ValueError(f"null is not a value here (leave the field out): {nulls}")
        return data

    def wire(self) -> dict[str, Any]:
        """The JSON object, with the optional fields that were not given left out, so a
        payload read from the wire dumps back to the same bytes."""
        return self.model_dump(mode="json", exclude_unset=True)


@dataclass
class Tally:
    """A stream's progress so far, as its events report it (`EventPayload.progress`):
    how many items are done of how many (None: not known yet)."""

    done: int = 0
    total: int | None = None


class EventPayload(WireObject):
    """The data of one event; `event_name` is its SSE/JSON-lines name (a pattern with
    {N} for post_{N}_post_ids)."""

    event_name: ClassVar[str]
    # A pattern name's highest N (post_{N}_post_ids: a batch's size); 0 for a name.
    max_index: ClassVar[int] = 0
    # Payloads as a service sends them, each optional field given in one at least
    # (for a pattern name, as event 1): the contract tests read every one back through
    # the model and render it, so an event declares its own and no list elsewhere
    # names it (tests/event_examples.py collects them from the features' streams).
    examples: ClassVar[tuple[dict[str, Any], ...]] = ()

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        # One model per event name, checked where the second one is defined: a reader
        # looks a name up by scanning the models (events.registry), which must not
        # depend on which of two it meets first.
        super().__pydantic_init_subclass__(**kwargs)
        name = vars(cls).get("event_name")
        if isinstance(name, str) and any(
            other is not cls and vars(other).get("event_name") == name
            for other in _subclasses(EventPayload)
        ):
            raise EventContractError(f"two models declare the event {name!r}")

    def reports_failure(self) -> bool:
        """True when this event says its stream failed (an error, a completion with
        failures): what `--json` makes the command's exit code. A stream's completion
        event says it, so the terminal lists none of them."""
        return False

    def progress(self, tally: Tally) -> str | None:
        """What this event says of its stream's progress, `tally` brought up to date:
        a status line (an MCP progress notification's message), or None when it says
        nothing of progress (a text delta). Each event says its own, so the faces
        that report progress name none of them."""
        return None


def _subclasses(base: type[EventPayload]) -> list[type[EventPayload]]:
    found = []
    for model in base.__subclasses__():
        found += [model, *_subclasses(model)]
    return found


def _broken(model: type[WireObject], error: ValidationError) -> EventContractError:
    name = getattr(model, "event_name", None)
    what = f"{model.__name__} ({name})" if name else model.__name__
    return EventContractError(f"{what} breaks its contract: {error}")
