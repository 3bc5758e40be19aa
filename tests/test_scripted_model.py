"""The scripted model itself, then services and endpoints driven by it in-process:
no HTTP provider, no litellm, each answer chosen by the test."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func
from sqlmodel import select

from socialgen.ai.model import ModelError, complete
from socialgen.ai.structured import ask_structured
from socialgen.carousels.outline import outline_carousel
from socialgen.content_calendar.plan import prepare_calendar
from socialgen.content_calendar.schemas import CalendarRequest
from socialgen.content_calendar.service import run_calendar
from socialgen.events import Event
from socialgen.generation.batch import run_batch
from socialgen.generation.chat import run_chat
from socialgen.generation.intent import Intent, intent_from_wording
from socialgen.generation.plan import prepare_batch, prepare_chat
from socialgen.generation.schemas import BatchRequest, ChatRequest
from socialgen.store.engine import read_session
from socialgen.store.tables import Post
from socialgen.workspaces.service import get_usage
from tests.carousel_support import CREATE_URL, counts, typed_events
from tests.conftest import Store
from tests.doubles.scripted_images import ScriptedImageModel
from tests.doubles.scripted_model import CutOff, NoScriptedReply, ScriptedCall, ScriptedModel
from tests.generation_support import check_contract, parse_sse
from tests.scripted_support import (
    CHAT_TEXT,
    POST_TEXT,
    QUESTIONS,
    Reply,
    caller,
    run,
    standard_reply,
)

OPEN_WORDING = "Our team shipped v2 today"  # neither a request nor a question


@pytest.fixture
def headers(store: Store) -> dict[str, str]:
    return {"x-api-key": store.api_key()}


def names(events: list[Event]) -> list[str]:
    return [e.name for e in events]


def only(events: list[Event], name: str) -> dict[str, Any]:
    found = [e.data for e in events if e.name == name]
    assert len(found) == 1, names(events)
    return found[0]


def posts_used(store: Store) -> int:
    with read_session(store.engine) as session:
        return get_usage(session, store.workspace_id).posts_used


def post_count(store: Store) -> int:
    return int(store.scalar(select(func.count()).select_from(Post)))


# --- the model ------------------------------------------------------------------------


def test_replies_come_from_the_queue_then_the_responder_in_small_chunks() -> None:
    model = ScriptedModel("first answer", {"ok": True}, responder=lambda call: call.prompt.upper())

    async def talk() -> list[list[str]]:
        answers = []
        for prompt in ("one", "two", "three"):
            stream = model.stream([{"role": "user", "content": prompt}], max_tokens=5)
            answers.append([chunk.text async for chunk in stream])
        return answers

    first, second, third = asyncio.run(talk())
    assert first == ["first ", "answer"]
    assert "".join(second) == '{"ok": true}'
    assert third == ["THREE"]
    assert [call.prompt for call in model.calls] == ["one", "two", "three"]
    assert model.calls[0].max_tokens == 5


def test_errors_on_demand_a_cut_stream_and_an_empty_script() -> None:
    model = ScriptedModel(ModelError("provider down"), CutOff("half a po", ModelError("cut")))
    chunks: list[str] = []

    async def cut() -> None:
        async for chunk in model.stream([{"role": "user", "content": "x"}]):
            chunks.append(chunk.text)

    with pytest.raises(ModelError, match="provider down"):
        asyncio.run(complete(model, [{"role": "user", "content": "x"}]))
    with pytest.raises(ModelError, match="cut"):
        asyncio.run(cut())
    assert "".join(chunks) == "half a po"
    # Not a ModelError: a service would take it for a provider failure and hide it.
    with pytest.raises(NoScriptedReply):
        asyncio.run(complete(model, [{"role": "user", "content": "one too many"}]))


def test_a_refused_format_walks_the_structured_ladder_down() -> None:
    model = ScriptedModel({"intent": "chat"}, refuses={"json_schema"}, name="refuses-schemas")
    answer = asyncio.run(
        ask_structured(model, [{"role": "user", "content": "post or chat?"}], Intent)
    )
    assert answer == Intent(intent="chat")
    assert [c.output.mode for c in model.calls if c.output] == ["json_schema", "json_object"]
    assert [c.schema_name for c in model.calls] == ["intent", "intent"]
    assert "matching this shape" in model.calls[1].prompt  # the shape moved into the prompt


# --- chat: the model routes only what the wording leaves open -------------------------


def test_a_question_is_answered_without_asking_the_model_its_intent(
    store: Store, scripted_model: ScriptedModel
) -> None:
    plan = prepare_chat(caller(store), ChatRequest(userInput="What is a hook?"))
    events = run(run_chat(plan, scripted_model))

    assert set(names(events)) == {"chat_delta", "chat_response"}
    assert "".join(e.data["text"] for e in events if e.name == "chat_delta") == CHAT_TEXT
    assert only(events, "chat_response")["suggestedQuestions"] == QUESTIONS
    assert scripted_model.calls_for("intent") == []
    assert post_count(store) == 0


@pytest.mark.parametrize(("intent", "expected"), [("post", "post_ids"), ("chat", "chat_response")])
def test_open_wording_is_routed_by_the_model(
    store: Store, scripted_model: ScriptedModel, intent: str, expected: str
) -> None:
    assert intent_from_wording(OPEN_WORDING) is None

    def responder(call: ScriptedCall) -> Reply:
        return {"intent": intent} if call.schema_name == "intent" else standard_reply(call)

    scripted_model.responder = responder
    plan = prepare_chat(caller(store), ChatRequest(userInput=OPEN_WORDING))
    events = run(run_chat(plan, scripted_model))

    assert names(events)[-1] == expected
    [asked] = scripted_model.calls_for("intent")
    assert OPEN_WORDING in asked.prompt
    assert post_count(store) == (1 if intent == "post" else 0)
    assert posts_used(store) == (1 if intent == "post" else 0)


# --- generate-post and batch ------------------------------------------------------------


def test_the_generate_post_stream_saves_the_post(
    scripted_client: TestClient,
    store: Store,
    headers: dict[str, str],
    scripted_model: ScriptedModel,
) -> None:
    response = scripted_client.post(
        f"/api/v1/ai-conversation/generate-post/{store.workspace_id}",
        headers=headers,
        json={"userInput": "Write a post about shipping weekly"},
    )
    assert response.status_code == 200, response.text
    events = [e for e in parse_sse(response.text) if e.name != "keepalive"]
    check_contract(events, "post")

    deltas = [e.data["text"] for e in events if e.name == "chat_delta"]
    assert len(deltas) > 3 and "".join(deltas) == POST_TEXT
    ids = events[-1].data
    assert events[-1].name == "post_ids"
    with read_session(store.engine) as session:
        post = session.get(Post, ids["postId"])
        assert post is not None and post.content == POST_TEXT
    assert scripted_model.calls[0].purpose == "post"
    assert scripted_model.calls[0].prompt.startswith("Write a LinkedIn post about")
    assert posts_used(store) == 1


def test_a_batch_keeps_the_variations_that_did_not_fail(
    store: Store, scripted_model: ScriptedModel
) -> None:
    def responder(call: ScriptedCall) -> Reply:
        if "(Educational)" in call.prompt:
            return ModelError("The AI provider failed: rate limited")
        return standard_reply(call)

    scripted_model.responder = responder
    plan = prepare_batch(caller(store), BatchRequest(userInput="Shipping weekly"))
    events = run(run_batch(plan, scripted_model))

    complete_ = only(events, "batch_complete")
    assert complete_["summary"] == {"total": 5, "generated": 4, "failed": 1}
    assert [p["index"] for p in complete_["posts"]] == [1, 3, 4, 5]
    assert complete_["errors"] == [
        {
            "index": 2,
            "variationName": "Educational",
            "message": "The AI provider failed: rate limited",
        }
    ]
    assert post_count(store) == 4
    assert posts_used(store) == 4  # the failed variation gave its quota back


# --- carousels ---------------------------------------------------------------------------


def test_the_carousel_outline_is_the_models_answer(scripted_model: ScriptedModel) -> None:
    outline = asyncio.run(outline_carousel(scripted_model, "why small teams ship weekly", 3))

    assert outline.name == "Ship weekly"
    assert [s.title for s in outline.slides] == ["Lesson 1", "Lesson 2", "Lesson 3"]
    assert outline.source == "model" and outline.template_slides == 0
    [asked] = scripted_model.calls_for("carousel_outline")
    assert "why small teams ship weekly" in asked.prompt


def test_a_carousel_over_http_uses_the_scripted_models(
    scripted_client: TestClient,
    store: Store,
    headers: dict[str, str],
    scripted_images: ScriptedImageModel,
) -> None:
    response = scripted_client.post(
        f"{CREATE_URL}/{store.workspace_id}", headers=headers, json={"prompt": "x", "slideCount": 2}
    )
    events = typed_events(response.text)

    assert events[0].data["source"] == "model"
    assert events[-1].name == "complete"
    # Slide images are made concurrently: in any order.
    assert sorted(c.prompt for c in scripted_images.calls) == [
        "An illustration for slide 1",
        "An illustration for slide 2",
    ]
    assert counts(store)["used"] == 1


def test_a_failed_image_leaves_nothing_and_refunds_the_quota(
    scripted_client: TestClient,
    store: Store,
    headers: dict[str, str],
    scripted_images: ScriptedImageModel,
) -> None:
    scripted_images.fail = ModelError("The AI provider failed to make an image: 400")
    before = counts(store)
    response = scripted_client.post(
        f"{CREATE_URL}/{store.workspace_id}", headers=headers, json={"prompt": "x"}
    )
    events = typed_events(response.text)

    assert [events[0].name, events[-1].name] == ["plan_generated", "error"]
    assert counts(store) == before


# --- the content calendar ------------------------------------------------------------------


def calendar(client: TestClient, store: Store, headers: dict[str, str]) -> dict[str, Any]:
    response = client.post(
        f"/api/v1/content-calendar/generate/{store.workspace_id}",
        headers=headers,
        json={"calendarLength": 7, "prompt": "shipping weekly"},
    )
    assert response.status_code == 200, response.text
    events = [e for e in parse_sse(response.text) if e.name != "keepalive"]
    check_contract(events, "calendar")
    assert events[-1].name == "calendar_complete", [e.name for e in events]
    data: dict[str, Any] = events[-1].data
    return data


def test_calendar_themes_from_the_model(
    scripted_client: TestClient,
    store: Store,
    headers: dict[str, str],
    scripted_model: ScriptedModel,
) -> None:
    complete_ = calendar(scripted_client, store, headers)

    assert complete_["summary"] == {"total": 7, "generated": 7, "failed": 0}
    assert [p["theme"] for p in complete_["posts"]] == [f"Idea {n}" for n in range(1, 8)]
    assert {p["source"] for p in complete_["posts"]} == {"model"}
    assert len(scripted_model.calls_for("calendar_themes")) == 1


def test_calendar_days_come_from_templates_when_the_model_fails_to_plan(
    scripted_client: TestClient,
    store: Store,
    headers: dict[str, str],
    scripted_model: ScriptedModel,
) -> None:
    def responder(call: ScriptedCall) -> Reply:
        if call.schema_name == "calendar_themes":
            return ModelError("The AI provider failed: timeout")
        return standard_reply(call)

    scripted_model.responder = responder
    complete_ = calendar(scripted_client, store, headers)

    assert complete_["summary"]["generated"] == 7  # the days are still written
    assert {p["source"] for p in complete_["posts"]} == {"template"}
    assert {p["content"] for p in complete_["posts"]} == {POST_TEXT}


def test_a_calendar_service_run_with_the_model_passed_in(
    store: Store, scripted_model: ScriptedModel
) -> None:
    plan = prepare_calendar(caller(store), CalendarRequest(calendar_length=7, prompt="shipping"))
    events = run(run_calendar(plan, scripted_model))

    assert names(events)[0] == "generation_started"
    assert only(events, "calendar_complete")["summary"]["generated"] == 7
    day_prompts = scripted_model.calls_for("post")
    assert len(day_prompts) == 7
    assert posts_used(store) == 7
