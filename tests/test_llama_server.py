"""A real OpenAI-compatible provider: llama-cpp-python's own server on the embedded
GGUF, through SOCIALGEN_MODEL=openai/... and SOCIALGEN_API_BASE (the httpx client of
ai/openai_compatible.py, for real).

It refuses `json_schema`, as many self-hosted providers do: these tests prove the
ladder steps down on a real refusal, and that the plan the model writes (as line
lists under a grammar, for a model marked small) reaches the events."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from socialgen.ai.structured import current_rung
from socialgen.app.runtime import Runtime
from socialgen.carousels.outline import outline_carousel
from socialgen.content_calendar.themes import plan_themes
from socialgen.http.server import create_app
from tests.carousel_support import create
from tests.conftest import Store
from tests.generation_support import parse_sse
from tests.llama_server import LlamaServer


@pytest.fixture(scope="module")
def llama_server() -> Iterator[LlamaServer]:
    with LlamaServer() as server:
        yield server


@pytest.fixture
def provider(llama_server: LlamaServer, monkeypatch: pytest.MonkeyPatch) -> LlamaServer:
    for name, value in llama_server.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("SOCIALGEN_SMALL_MODEL", raising=False)
    return llama_server


def test_chat_answers_and_its_structured_side_answer_steps_down_the_ladder(
    provider: LlamaServer, client: TestClient, store: Store
) -> None:
    """(`provider` first: the app reads its settings when it starts.)"""
    runtime = client.app.state.runtime  # the app's: it keeps its model
    assert current_rung(runtime.text_model()) == "json_schema"
    response = client.post(
        f"/api/v1/ai-conversation/chat/{store.workspace_id}",
        headers={"x-api-key": store.api_key()},
        json={"userInput": "What makes a good hook in the first line?"},
    )
    assert response.status_code == 200, response.text
    events = parse_sse(response.text)
    answer = next(e.data for e in events if e.name == "chat_response")
    assert answer["response"].strip()
    assert isinstance(answer["suggestedQuestions"], list)
    # The follow-up questions asked for json_schema; the server refused (422) and the
    # model is now asked for json_object, for the life of the app's Runtime.
    assert current_rung(runtime.text_model()) == "json_object"


def test_a_json_outline_from_a_refusing_provider_still_reaches_a_plan(
    provider: LlamaServer,
) -> None:
    model = Runtime().text_model()
    outline = asyncio.run(outline_carousel(model, "why small teams ship weekly", 4))
    assert current_rung(model) == "json_object"
    assert len(outline.slides) == 4
    assert outline.template_slides == sum(s.source == "template" for s in outline.slides)


def test_a_small_model_plans_a_carousel_and_the_plan_reaches_the_events(
    store: Store, provider: LlamaServer
) -> None:
    with TestClient(create_app(Runtime(options={"small_model": True}))) as client:
        events = create(
            client,
            store,
            {"x-api-key": store.api_key()},
            json={"prompt": "5 habits of teams that ship every week", "slideCount": 4},
        )
    plan = events[0].data
    slides = [e.data["slide"] for e in events if e.name == "image_generated"]
    model_slides = [s for s in slides if s["source"] == "model"]
    assert plan["templateSlides"] == len(slides) - len(model_slides)
    assert len(model_slides) >= 3, slides  # titles under a grammar, then one text each
    # The stored carousel says the same of each slide as its image event did.
    streamed = {
        e.data["slideIndex"]: e.data["slide"]["source"]
        for e in events
        if e.name == "image_generated"
    }
    stored = events[-1].data["data"]["slides"]
    assert [s["source"] for s in stored] == [streamed[i] for i in sorted(streamed)]


def test_a_small_model_plans_calendar_themes_of_its_own(
    provider: LlamaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALGEN_SMALL_MODEL", "1")
    bakery = asyncio.run(
        plan_themes(Runtime().text_model(), "Topic: running a bakery", "running a bakery", 7)
    )
    salary = asyncio.run(
        plan_themes(
            Runtime().text_model(), "Topic: negotiating a salary", "negotiating a salary", 7
        )
    )
    for themes in (bakery, salary):
        assert sum(t.source == "model" for t in themes) >= 5, themes
    # Unrelated topics get different plans, not the same template.
    assert not {t.theme for t in bakery} & {t.theme for t in salary}


@pytest.mark.parametrize("small", [True, False], ids=["small", "not-small"])
def test_a_batch_through_a_local_server_writes_every_post(
    store: Store, provider: LlamaServer, monkeypatch: pytest.MonkeyPatch, small: bool
) -> None:
    """llama_cpp.server cuts a running answer short when another request arrives. A
    small model's drafts are written one at a time; a capable model's five start
    together, and those cut short are written again, alone, after the others: none
    is lost either way (bench/quality.py saw 6 of 30 before)."""
    from socialgen.app.caller import Caller
    from socialgen.generation.batch import run_batch
    from socialgen.generation.plan import prepare_batch
    from socialgen.generation.schemas import BatchRequest

    if small:
        monkeypatch.setenv("SOCIALGEN_SMALL_MODEL", "1")
    monkeypatch.setenv("SOCIALGEN_MAX_TOKENS", "120")  # short posts: this is about count
    monkeypatch.delenv("SOCIALGEN_BATCH_CONCURRENCY", raising=False)
    plan = prepare_batch(
        Caller(store.engine, store.workspace_id, None, Runtime().settings, files=store.files()),
        BatchRequest(userInput="why small teams ship weekly"),
    )

    async def run() -> dict[str, int]:
        async for item in run_batch(plan, Runtime().text_model()):
            if item.name == "batch_complete":
                return dict(item.data["summary"])
        raise AssertionError("no batch_complete")

    assert asyncio.run(run()) == {"total": 5, "generated": 5, "failed": 0}
