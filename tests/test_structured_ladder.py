"""Structured answers on any provider: every rung of the format ladder, the step
down on a refusal (without spending an attempt), the memory per model, and the
JSON found in prose. Real clients (litellm, and httpx for OpenAI-compatible
endpoints: tests/provider_clients.py) against the fake OpenAI-compatible server."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel

from socialgen.ai.json_text import find_json
from socialgen.ai.model import TextModel
from socialgen.ai.structured import ask_structured, current_rung
from tests.fakes.openai_server import FAKE_API_KEY, FakeOpenAI, Reply, last_user_message
from tests.provider_clients import CLIENTS, ClientFake

PLAN = {"items": ["Ship small", "Ship often"]}


class DayPlan(BaseModel):
    items: list[str]


@pytest.fixture(params=CLIENTS)
def fake(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[ClientFake]:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_API_KEY)
    with ClientFake(request.param, lambda _body: Reply.json(PLAN)) as server:
        yield server


def model_of(fake: FakeOpenAI) -> TextModel:
    assert isinstance(fake, ClientFake)
    return fake.kept_model()


def ask(fake: FakeOpenAI, *, attempts: int = 1) -> DayPlan | None:
    messages = [{"role": "user", "content": "Plan my day."}]
    return asyncio.run(ask_structured(model_of(fake), messages, DayPlan, attempts=attempts))


def formats(fake: FakeOpenAI) -> list[str]:
    return [(body.get("response_format") or {}).get("type", "none") for body in fake.requests]


def test_json_schema_is_asked_first_under_the_schemas_own_name(fake: FakeOpenAI) -> None:
    assert ask(fake) == DayPlan(**PLAN)
    response_format = fake.requests[0]["response_format"]
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["name"] == "day_plan"
    assert response_format["json_schema"]["schema"]["required"] == ["items"]
    # The provider enforces the schema: the prompt is left as it was.
    assert last_user_message(fake.requests[0]) == "Plan my day."


def test_a_refused_json_schema_steps_down_at_once_and_the_model_remembers(
    fake: FakeOpenAI,
) -> None:
    fake.refused_formats = {"json_schema"}  # llama_cpp.server's own refusal
    # One attempt is enough: the refusal does not spend it.
    assert ask(fake, attempts=1) == DayPlan(**PLAN)
    assert formats(fake) == ["json_schema", "json_object"]
    prompt = last_user_message(fake.requests[1])
    assert prompt.startswith("Plan my day.")
    assert "a day_plan matching this shape" in prompt
    assert '"items"' in prompt  # the schema itself, for the model to follow
    assert current_rung(model_of(fake)) == "json_object"
    # The next structured answer from this model goes straight to the rung that worked.
    assert ask(fake) == DayPlan(**PLAN)
    assert formats(fake) == ["json_schema", "json_object", "json_object"]


@pytest.mark.parametrize("status", [400, 422, 500])
def test_a_refusal_steps_down_whatever_its_status(fake: FakeOpenAI, status: int) -> None:
    fake.refused_formats = {"json_schema"}
    fake.refusal_status = status
    assert ask(fake) == DayPlan(**PLAN)
    assert formats(fake) == ["json_schema", "json_object"]


def test_a_provider_that_takes_no_format_gets_plain_text_and_the_json_is_found(
    fake: FakeOpenAI,
) -> None:
    fake.refused_formats = {"json_schema", "json_object"}
    fake.responder = lambda _body: Reply(
        text=f"Sure! Here is your plan:\n```json\n{json.dumps(PLAN)}\n```\nHope it helps."
    )
    assert ask(fake) == DayPlan(**PLAN)
    assert formats(fake) == ["json_schema", "json_object", "none"]
    assert "a day_plan matching this shape" in last_user_message(fake.requests[2])
    assert current_rung(model_of(fake)) == "text"


def test_a_failure_that_is_not_about_the_format_does_not_step_down(fake: FakeOpenAI) -> None:
    fake.responder = lambda _body: Reply(status=400, text="The prompt is too long")
    assert ask(fake, attempts=2) is None
    assert formats(fake) == ["json_schema"]  # a provider failure ends it: no retry either
    assert current_rung(model_of(fake)) == "json_schema"


def test_an_unusable_answer_spends_an_attempt(fake: FakeOpenAI) -> None:
    answers = iter([Reply(text="I would rather not."), Reply.json(PLAN)])
    fake.responder = lambda _body: next(answers)
    assert ask(fake, attempts=2) == DayPlan(**PLAN)
    assert formats(fake) == ["json_schema", "json_schema"]


def test_one_attempt_and_an_unusable_answer_gives_nothing(fake: FakeOpenAI) -> None:
    fake.responder = lambda _body: Reply.json({"something": "else"})
    assert ask(fake, attempts=1) is None
    assert len(fake.requests) == 1


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"items": ["a"]}', {"items": ["a"]}),
        ('```json\n{"items": ["a"]}\n```', {"items": ["a"]}),
        ('Here you go: {"items": ["a"]} - enjoy {not json}', {"items": ["a"]}),
        ('{"items": ["a\nb"]}', {"items": ["a\nb"]}),  # a raw newline, as small models write
        ('{"items": [{"x": 1}, {"x": 2}, {"x"', {"items": [{"x": 1}, {"x": 2}]}),  # cut off
    ],
)
def test_the_json_is_found_in_what_a_model_writes(text: str, expected: dict[str, Any]) -> None:
    assert find_json(text) == expected


@pytest.mark.parametrize("text", ["", "no json here", "[1, 2]", "{broken"])
def test_an_answer_without_a_json_object_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        find_json(text)
