"""The event contract: every stream's events against their models (socialgen.events),
drift caught where an event is built, the renderers reading only declared fields, and
the docs' event tables written from the models."""

from __future__ import annotations

import ast
import asyncio
import inspect
import io
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from rich.console import Console

from socialgen.ai.model import ModelError
from socialgen.app.event_docs import BEGIN, END, event_tables, main, with_tables
from socialgen.app.features import streams
from socialgen.events import Event, EventContractError
from socialgen.events.chat import ChatDelta
from socialgen.events.payload import WireObject
from socialgen.events.registry import model_for, models, read
from socialgen.sources.articles import Article
from tests.carousel_support import CREATE_URL, typed_events
from tests.conftest import Store
from tests.doubles.scripted_model import Streamed
from tests.event_examples import EXAMPLES, check_round_trip, without_examples
from tests.generation_support import SseEvent, check_contract, parse_sse
from tests.scripted_support import CHAT_TEXT, POST_TEXT, ScriptedAI

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "http-api.md"
BASE = "/api/v1/ai-conversation"
RENDERERS = (
    "src/socialgen/generation/render.py",
    "src/socialgen/content_calendar/render.py",
    "src/socialgen/carousels/render_cli.py",
    "src/socialgen/cli/events.py",
)


# --- the models ----------------------------------------------------------------------


def test_every_event_has_a_model_and_every_model_an_example() -> None:
    # socialgen's own: a test's toy feature (tests/toy_feature.py) registers its events too
    own = {model for model in models().values() if model.__module__.startswith("socialgen.")}
    assert without_examples() == []  # each model declares its own (EventPayload.examples)
    assert {model_for(name) for name, _ in EXAMPLES} == own
    assert {m for stream in streams() for m in stream.events} == own


@pytest.mark.parametrize(("name", "data"), EXAMPLES, ids=[name for name, _ in EXAMPLES])
def test_a_payload_read_through_its_model_is_the_same_bytes(
    name: str, data: dict[str, Any]
) -> None:
    check_round_trip(name, data)


_PROGRESS = {"current": 1, "total": 5, "variationName": "Story-driven"}
_DAY = {"current": 1, "total": 7, "message": "Day 1"}
BROKEN: list[tuple[str, dict[str, Any]]] = [
    ("chat_delta", {"text": "x", "accumulated": "x"}),  # a field the model does not declare
    ("chat_delta", {}),  # a field missing
    ("post_ids", {"conversationId": "c", "postId": 3, "refinementQuestions": []}),  # a type
    ("keepalive", {"ping": "true"}),  # strict: no coercion
    ("batch_progress", {**_PROGRESS, "status": "generating", "postId": "p"}),
    ("batch_progress", {**_PROGRESS, "status": "completed"}),  # postId missing
    ("batch_progress", {**_PROGRESS, "status": "failed"}),  # error missing
    ("batch_progress", {**_PROGRESS, "status": "done"}),
    ("batch_progress", {**_PROGRESS, "current": 6, "status": "generating"}),
    ("post_6_post_ids", {"postId": "p", "conversationId": "c", "variationName": "v"}),
    ("post_0_post_ids", {"postId": "p", "conversationId": "c", "variationName": "v"}),
    ("calendar_progress", {**_DAY, "status": "saving", "source": "model"}),
    ("calendar_progress", {**_DAY, "status": "generating", "source": "guess"}),
    ("generation_started", {"calendarLength": 8, "sources": [], "message": "m"}),
    ("plan_generated", {"prompts": ["a"], "source": None}),  # absent, never null
    ("plan_generated", {"prompts": ["a"], "templateSlides": -1}),
    ("image_generated", {"slideIndex": 0, "slide": {"title": "t", "content": "c"}}),
    (
        "batch_complete",
        {
            "success": True,
            "originalPrompt": "x",
            "isRegeneration": False,
            "posts": [],
            "errors": [],
            "summary": {"total": 5, "generated": 1, "failed": 1},  # does not add up
        },
    ),
    ("made_up", {}),
]


@pytest.mark.parametrize(("name", "data"), BROKEN, ids=[name for name, _ in BROKEN])
def test_a_drifting_event_fails_where_it_is_built(name: str, data: dict[str, Any]) -> None:
    """Built by a service (its model's constructor) or read from the wire alike."""
    with pytest.raises(EventContractError):
        Event.of(model_for(name)(**data), name=name)
    with pytest.raises(EventContractError):
        read(name, data)


def test_a_broken_event_is_not_turned_into_an_error_event() -> None:
    """guarded() turns failures into the stream's error event, but a contract break is a
    bug: it must reach the test, not hide as 'Generation failed unexpectedly'."""
    from socialgen.http.streaming import guarded

    async def broken() -> AsyncIterator[Event]:
        yield Event.of(ChatDelta(text="fine"))
        yield Event.of(ChatDelta(txt="drifted"))  # type: ignore[call-arg]

    async def drain() -> list[Event]:
        return [item async for item in guarded(broken())]

    with pytest.raises(EventContractError, match="chat_delta"):
        asyncio.run(drain())


# --- every stream, run for real --------------------------------------------------------


@pytest.fixture
def headers(store: Store) -> dict[str, str]:
    return {"x-api-key": store.api_key(), "Accept": "text/event-stream"}


@pytest.fixture
def readable_links(monkeypatch: pytest.MonkeyPatch) -> None:
    """Links are "read" without a network: one page reads, any URL with 'gone' fails."""
    from socialgen.kit.errors import BadRequest
    from socialgen.sources import articles, guard

    async def extract(url: str, *, allow_private: bool = False) -> Article:
        if "gone" in url:
            raise BadRequest(f"Could not fetch {url}")
        return Article(url=url, final_url=url, title="Weekly releases", text="Ship weekly. " * 40)

    monkeypatch.setattr(articles, "extract_article", extract)
    monkeypatch.setattr(guard, "check_url", lambda url, *, allow_private=False: url)


def sse(client: TestClient, path: str, headers: dict[str, str], **body: Any) -> list[SseEvent]:
    response = client.post(path, headers=headers, **body)
    assert response.status_code == 200, response.text
    return parse_sse(response.text)


def test_every_stream_sends_only_events_of_its_models(
    ai_client: TestClient,
    store: Store,
    headers: dict[str, str],
    scripted_ai: ScriptedAI,
    readable_links: None,
) -> None:
    ws = store.workspace_id
    seen: dict[str, set[str]] = {}

    def run(stream: str, events: list[SseEvent]) -> None:
        check_contract(events, stream)
        seen.setdefault(stream, set()).update(e.name for e in events)

    links = "See https://example.com/weekly and https://example.com/gone"
    scripted_ai.intent = "chat"
    scripted_ai.chat_reply = lambda _call: Streamed(CHAT_TEXT, reasoning="Hooks first.")
    run("chat", sse(ai_client, f"{BASE}/chat/{ws}", headers, json={"userInput": f"Hooks? {links}"}))
    scripted_ai.intent = "post"
    run("chat", sse(ai_client, f"{BASE}/chat/{ws}", headers, json={"userInput": "Write a post"}))
    scripted_ai.post_reply = lambda _call: Streamed(POST_TEXT, reasoning="Short lines.")
    run(
        "post",
        sse(
            ai_client, f"{BASE}/generate-post/{ws}", headers, json={"userInput": f"A post. {links}"}
        ),
    )
    scripted_ai.post_reply = lambda call: (
        ModelError("the provider failed") if "Educational" in call.prompt else POST_TEXT
    )
    run(
        "batch",
        sse(ai_client, f"{BASE}/generate-batch-posts/{ws}", headers, json={"userInput": "ship"}),
    )
    scripted_ai.post_reply = lambda _call: POST_TEXT
    calendar = {
        "calendarLength": 7,
        "prompt": "shipping weekly",
        "articleUrls": ["https://example.com/weekly"],
    }
    run(
        "calendar",
        sse(ai_client, f"/api/v1/content-calendar/generate/{ws}", headers, json=calendar),
    )
    response = ai_client.post(
        f"{CREATE_URL}/{ws}", headers=headers, json={"prompt": "ship weekly", "slideCount": 2}
    )
    assert response.status_code == 200, response.text
    run("carousel", typed_events(response.text))

    assert seen["chat"] >= {
        "url_processing_start",
        "scraping_url",
        "summarizing_content",
        "extraction_completed",
        "reasoning_started",
        "reasoning_delta",
        "reasoning_ended",
        "chat_delta",
        "chat_response",
        "content_delta",
        "post_ids",
    }
    assert seen["post"] >= {"url_processing_start", "reasoning_delta", "chat_delta", "post_ids"}
    assert seen["batch"] >= {"batch_progress", "post_1_post_ids", "batch_complete", "chat_delta"}
    assert seen["calendar"] >= {
        "generation_started",
        "source_processing",
        "calendar_progress",
        "calendar_complete",
    }
    assert seen["carousel"] >= {"plan_generated", "image_generated", "generating_pdf", "complete"}


# --- renderers -------------------------------------------------------------------------


def _declared_fields(model: type[WireObject]) -> set[str]:
    names = set(model.model_fields)
    for info in model.model_fields.values():
        for inner in _objects_in(info.annotation):
            names |= _declared_fields(inner)
    return names


def _objects_in(annotation: Any) -> list[type[WireObject]]:
    if inspect.isclass(annotation) and issubclass(annotation, WireObject):
        return [annotation]
    return [found for arg in getattr(annotation, "__args__", ()) for found in _objects_in(arg)]


def _keys_read(source: str) -> set[str]:
    """String keys a module reads: x["key"] and x.get("key")."""
    keys = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            keys.add(node.slice.value)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            keys.add(node.args[0].value)
    return {key for key in keys if isinstance(key, str)}


@pytest.mark.parametrize("path", RENDERERS)
def test_a_renderer_reads_no_field_the_models_do_not_declare(path: str) -> None:
    """Renderers read payloads through the models (attribute reads, checked by mypy);
    any key still read from a dict must be one a model declares."""
    declared = set().union(*(_declared_fields(model) for model in models().values()))
    assert _keys_read((ROOT / path).read_text(encoding="utf-8")) <= declared


def test_every_example_renders(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from socialgen.carousels.render_cli import CarouselPrinter
    from socialgen.cli.events import JsonLines
    from socialgen.content_calendar.render import CalendarPrinter
    from socialgen.generation.render import BatchPrinter, StreamPrinter

    monkeypatch.setenv("SOCIALGEN_HOME", str(tmp_path))
    screen = io.StringIO()
    out = Console(file=screen, width=200)
    items = [Event.of(read(name, data), name=name) for name, data in EXAMPLES]
    stream, lines = StreamPrinter(out, out), JsonLines()
    calendar = CalendarPrinter(out, out)
    carousel = CarouselPrinter(out, out, path_for_url=Path)
    with BatchPrinter(out, out) as batch, calendar:
        for item in items:
            for printer in (stream, lines, batch, calendar, carousel):
                printer(item)
    shown = screen.getvalue()
    assert "Saved draft p1" in shown and "skipped https://example.com/b: 404" in shown
    assert "1 of 2 drafts saved." in shown and "Educational failed:" in shown
    assert "Why weekly (template)" in shown  # a calendar day whose theme the template gave
    assert "the model gave no usable outline; 1 of 1 slides use the plain outline" in shown
    assert all(printer.failed for printer in (stream, lines, batch, calendar, carousel))
    assert len(capsys.readouterr().out.splitlines()) >= len(items)  # JSON lines and deltas


# --- docs ------------------------------------------------------------------------------


def test_the_docs_event_tables_are_written_from_the_models() -> None:
    document = DOCS.read_text(encoding="utf-8")
    assert document.count(BEGIN) == document.count(END) == 1
    assert with_tables(document, event_tables()) == document, (
        "docs/http-api.md is out of date: run `python -m socialgen.app.event_docs`"
    )
    assert main(["--check", str(DOCS)]) == 0


def test_a_second_model_under_an_event_name_is_refused_where_it_is_defined() -> None:
    from typing import ClassVar

    from socialgen.events.payload import EventPayload

    with pytest.raises(EventContractError, match="two models declare the event 'chat_delta'"):

        class SecondChatDelta(EventPayload):
            event_name: ClassVar[str] = "chat_delta"
            text: str

    # The refused class may linger until the garbage collector runs: the first stays.
    assert model_for("chat_delta") is ChatDelta
    assert Event.of(ChatDelta(text="hi")).name == "chat_delta"


def test_a_model_defined_later_is_found_without_registering_it() -> None:
    from typing import ClassVar

    from socialgen.events.payload import EventPayload

    with pytest.raises(EventContractError, match=r"not one SPEC\.md"):
        model_for("late_test_event")

    class LateTestEvent(EventPayload):
        event_name: ClassVar[str] = "late_test_event"
        n: int

    assert model_for("late_test_event") is LateTestEvent
    assert Event.of(LateTestEvent(n=1)).data == {"n": 1}
    assert "late_test_event" in models()
