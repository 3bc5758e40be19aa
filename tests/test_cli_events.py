"""`cli_events.stream_in_terminal`: one way every command streams. The rich printer and
--json give the command the same result (the payload it asked for, as its model), a
printer that is a context manager is entered and left, and a failure exits 1."""

from __future__ import annotations

from collections.abc import AsyncIterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import typer
from rich.console import Console

from socialgen.carousels.events import CarouselComplete
from socialgen.carousels.render_cli import CarouselPrinter
from socialgen.cli.events import StreamResult, stream_in_terminal
from socialgen.content_calendar.events import CalendarComplete
from socialgen.content_calendar.render import CalendarPrinter
from socialgen.events import Event
from socialgen.events.chat import ChatResponse, PostIds
from socialgen.events.registry import read
from socialgen.generation.batch_events import BatchComplete
from socialgen.generation.render import BatchPrinter, StreamPrinter
from tests.event_examples import EXAMPLES

KINDS: list[tuple[Any, Any, str]] = [
    (partial(CarouselPrinter, path_for_url=Path), CarouselComplete, "complete"),
    (CalendarPrinter, CalendarComplete, "calendar_complete"),
    (BatchPrinter, BatchComplete, "batch_complete"),
]


async def examples(names: set[str] | None = None) -> AsyncIterator[Event]:
    for name, data in EXAMPLES:
        if names is None or name in names:
            yield Event.of(read(name, data), name=name)


@pytest.fixture(autouse=True)
def _files_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    monkeypatch.setenv("SOCIALGEN_HOME", str(tmp_path))  # the printers name file paths


@pytest.mark.parametrize(("printer", "kind", "name"), KINDS, ids=[k[2] for k in KINDS])
@pytest.mark.parametrize("json_output", [False, True], ids=["rich", "json"])
def test_both_paths_give_the_complete_payload_as_its_model(
    capsys: pytest.CaptureFixture[str], printer: Any, kind: Any, name: str, json_output: bool
) -> None:
    result = stream_in_terminal(
        examples(), json_output=json_output, printer=printer, completed=kind, announce=False
    )

    assert isinstance(result.completed, kind)
    assert result.completed.wire() == dict(EXAMPLES)[name]
    assert result.failed  # the examples hold an error event
    out = capsys.readouterr().out
    assert ('"event": "keepalive"' in out) is json_output  # JSON lines only with --json


@pytest.mark.parametrize("json_output", [False, True], ids=["rich", "json"])
def test_a_chat_keeps_the_last_of_its_two_endings(
    capsys: pytest.CaptureFixture[str], json_output: bool
) -> None:
    result: StreamResult[PostIds | ChatResponse] = stream_in_terminal(
        examples({"post_ids", "chat_response", "chat_delta"}),
        json_output=json_output,
        printer=StreamPrinter,
        completed=(PostIds, ChatResponse),
        announce=False,
    )

    last = [name for name, _ in EXAMPLES if name in ("post_ids", "chat_response")][-1]
    assert result.completed is not None
    assert result.completed.wire() == dict(EXAMPLES)[last]
    assert not result.failed


def test_nothing_asked_for_in_the_stream_gives_none() -> None:
    result = stream_in_terminal(
        examples({"keepalive"}),
        json_output=True,
        printer=StreamPrinter,
        completed=CarouselComplete,
        announce=False,
    )

    assert result.completed is None and not result.failed


class Recording:
    """A printer that is a context manager, as BatchPrinter and CalendarPrinter are."""

    entered = exited = 0

    def __init__(self, out: Console, notes: Console) -> None:
        self.failed = False

    def __enter__(self) -> Recording:
        Recording.entered += 1
        return self

    def __exit__(self, *_exc: Any) -> None:
        Recording.exited += 1

    def __call__(self, item: Event) -> None:
        self.failed = self.failed or item.name == "error"


def test_a_context_manager_printer_is_entered_and_left() -> None:
    Recording.entered = Recording.exited = 0

    result = stream_in_terminal(
        examples(), json_output=False, printer=Recording, completed=BatchComplete, announce=False
    )

    assert (Recording.entered, Recording.exited) == (1, 1)
    assert result.failed
    with pytest.raises(typer.Exit) as exited:
        result.exit_if_failed()
    assert exited.value.exit_code == 1
    with pytest.raises(typer.Exit):
        result.finish()
