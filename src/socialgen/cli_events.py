"""Running an event stream in the terminal: shared by chat, post, batch and calendar."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, Protocol

from socialgen.cli_support import current_runtime, fail

if TYPE_CHECKING:
    from socialgen.ai.model import TextModel
    from socialgen.events import Event


class EventPrinter(Protocol):
    failed: bool

    def __call__(self, item: Event) -> None: ...


class JsonLines:
    """--json: each event as one JSON line, flushed at once for pipes and cron."""

    def __init__(self) -> None:
        self.failed = False
        self.completed: dict[str, Any] | None = None  # the payload of the *complete event

    def __call__(self, item: Event) -> None:
        from socialgen.events.batch import BatchComplete
        from socialgen.events.carousel import CarouselComplete
        from socialgen.events.common import StreamError
        from socialgen.events.content_calendar import CalendarComplete

        match item.payload:
            case (
                BatchComplete(success=success, summary=summary)
                | CalendarComplete(success=success, summary=summary)
            ):
                self.completed = item.data
                self.failed = self.failed or not success or summary.failed > 0
            case CarouselComplete(success=success):
                self.completed = item.data
                self.failed = self.failed or not success
            case StreamError():
                self.failed = True
        sys.stdout.write(item.json_line() + "\n")
        sys.stdout.flush()


def current_model() -> TextModel:
    """The running command's text model (its Runtime's: a test may hand one in)."""
    return current_runtime().text_model()


BETTER_MODEL_HINT = (
    "Better drafts are one command away: socialgen models pull qwen2.5-1.5b "
    "(1.1 GB, runs here), or socialgen config set model PROVIDER/MODEL"
)


def hint_better_model(json_output: bool) -> None:
    """Until the user picks a model, what the embedded one wrote ends with one dim line
    naming the way up. For a person only: never in --json output."""
    if json_output or not getattr(current_model(), "embedded", False):
        return
    from socialgen.cli_support import console

    console(stderr=True).print(BETTER_MODEL_HINT, style="dim")


def consume(events: AsyncIterator[Event], printer: EventPrinter) -> bool:
    """Run the stream to its end on a fresh event loop; True when it reported a failure."""
    import asyncio

    from socialgen.streaming import guarded

    async def run() -> None:
        async for item in guarded(events):
            printer(item)

    try:
        asyncio.run(run())
    except KeyboardInterrupt:
        raise fail("Cancelled: nothing half-written was kept", code=130) from None
    return printer.failed
