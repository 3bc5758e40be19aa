"""Running an event stream in the terminal: shared by chat, post, batch, calendar and
carousel. `stream_in_terminal` is the one way a command streams: JSON lines or the
slice's printer, the model line, the payload the command needs, the exit policy."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

import typer

from socialgen.cli.support import current_runtime, fail
from socialgen.kit.control_chars import escape_json_controls

if TYPE_CHECKING:
    from rich.console import Console

    from socialgen.ai.model import TextModel
    from socialgen.app.operations import Resources
    from socialgen.events import Event
    from socialgen.events.payload import EventPayload

P = TypeVar("P", bound="EventPayload")


class EventPrinter(Protocol):
    @property
    def failed(self) -> bool: ...

    def __call__(self, item: Event) -> None: ...


class JsonLines:
    """--json: each event as one JSON line, flushed at once for pipes and cron."""

    def __init__(self) -> None:
        self.failed = False

    def __call__(self, item: Event) -> None:
        # Each event says whether it reports a failure (events.payload.EventPayload):
        # a new stream's completion event needs nothing here.
        self.failed = self.failed or item.payload.reports_failure()
        sys.stdout.write(escape_json_controls(item.json_line()) + "\n")
        sys.stdout.flush()


def current_model() -> TextModel:
    """The running command's text model (its Runtime's: a test may hand one in)."""
    return current_runtime().text_model()


def command_resources() -> Resources:
    """What a streamed operation's run uses, from the running command's Runtime."""
    from socialgen.app.operations import resources_of

    return resources_of(current_runtime())


BETTER_MODEL_HINT = (
    "Better drafts are one command away: socialgen models pull qwen2.5-1.5b "
    "(1.1 GB, runs here), or socialgen config set model PROVIDER/MODEL"
)


def hint_better_model(json_output: bool) -> None:
    """Until the user picks a model, what the embedded one wrote ends with one dim line
    naming the way up. For a person only: never in --json output."""
    if json_output or not getattr(current_model(), "embedded", False):
        return
    from socialgen.cli.support import console

    console(stderr=True).print(BETTER_MODEL_HINT, style="dim")


def consume(events: AsyncIterator[Event], printer: EventPrinter) -> bool:
    """Run the stream to its end on a fresh event loop; True when it reported a failure."""
    import asyncio

    from socialgen.http.streaming import guarded

    async def run() -> None:
        async for item in guarded(events):
            printer(item)

    try:
        asyncio.run(run())
    except KeyboardInterrupt:
        raise fail("Cancelled: nothing half-written was kept", code=130) from None
    return printer.failed


# ------------------------------------------------------------- one stream, one way


class PrinterFactory(Protocol):
    """A slice's printer class: made from stdout's and stderr's consoles."""

    def __call__(self, out: Console, notes: Console, /) -> EventPrinter: ...


@dataclass(frozen=True)
class StreamResult(Generic[P]):
    """How a stream in the terminal ended: the same on both paths (rich or --json)."""

    failed: bool
    completed: P | None  # the last payload of the kind asked for, as the model
    json_output: bool

    def exit_if_failed(self) -> None:
        if self.failed:
            raise typer.Exit(1)

    def finish(self) -> None:
        """A failed stream exits 1; one that went well ends with the model hint."""
        self.exit_if_failed()
        hint_better_model(self.json_output)


def announce_model(json_output: bool) -> None:
    """One dim line naming the model that writes; for a person only."""
    if not json_output:
        from socialgen.cli.support import console

        console(stderr=True).print(f"model: {current_model().name}", style="dim")


def stream_in_terminal(
    events: AsyncIterator[Event],
    *,
    json_output: bool,
    printer: PrinterFactory,
    completed: type[P] | tuple[type[P], ...],
    announce: bool = True,
) -> StreamResult[P]:
    """Run a stream as JSON lines (--json) or through the slice's printer, after the
    model line (`announce`) for a person. The caller decides what a failure means:
    `finish()` for the usual exit 1 / hint, or its own steps first."""
    from socialgen.cli.support import console

    shown: EventPrinter
    if json_output:
        shown = JsonLines()
    else:
        if announce:
            announce_model(json_output)
        shown = printer(console(), console(stderr=True))
    keeping = _Keeping(shown, completed)
    with shown if isinstance(shown, AbstractContextManager) else nullcontext():
        failed = consume(events, keeping)
    return StreamResult(failed=failed, completed=keeping.last, json_output=json_output)


class _Keeping(Generic[P]):
    """A printer that also keeps the last payload of one kind, whichever path prints."""

    def __init__(self, printer: EventPrinter, kind: type[P] | tuple[type[P], ...]) -> None:
        self.printer = printer
        self.kind = kind
        self.last: P | None = None

    @property
    def failed(self) -> bool:
        return self.printer.failed

    def __call__(self, item: Event) -> None:
        if isinstance(item.payload, self.kind):
            self.last = item.payload
        self.printer(item)
