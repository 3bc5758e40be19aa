"""Test support for the in-process scripted models (socialgen.ai.scripted): fixtures
that hand them to services directly or put them in the app's place of the
configured models (a Runtime handed to create_app), and a responder that answers every
kind of request the pipeline makes.

The fake OpenAI server (tests/fakes) stays the way to test the wire: litellm,
streams, refused formats, HTTP failures. These models are for what lies above it.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Iterator
from typing import TYPE_CHECKING, Any

import pytest

from socialgen.ai.scripted import Reply, ScriptedCall, ScriptedModel
from socialgen.ai.scripted_images import ScriptedImageModel
from socialgen.drafting.caller import Caller
from socialgen.events import Event

if TYPE_CHECKING:  # conftest imports this module: no import back at run time
    from tests.conftest import Store

POST_TEXT = (
    "Small teams ship weekly because nobody waits for permission.\n\n"
    "We cut our release cycle from a month to a week. Here is what changed.\n\n"
    "What is stopping your team from shipping on Friday?\n\n#shipping #startups"
)
CHAT_TEXT = "A good hook names a tension your reader already feels."
SUMMARY_TEXT = "The article says weekly releases cut risk."
QUESTIONS = ["Who is it for?", "What changed?", "Any numbers?"]

# "a carousel of 4 slides", "Plan 7 LinkedIn posts": how many items a plan asks for.
_COUNT = re.compile(r"\b(\d+) (?:slides|LinkedIn posts)\b")


def asked_count(call: ScriptedCall) -> int:
    found = _COUNT.search(call.prompt)
    assert found, f"no count in: {call.prompt[:200]!r}"
    return int(found.group(1))


def carousel_outline(count: int) -> dict[str, Any]:
    return {
        "name": "Ship weekly",
        "caption": "Small teams ship weekly.\n\nHere is how, in a few slides.",
        "slides": [
            {
                "title": f"Point {n}",
                "text": f"The text of slide {n}.",
                "image_prompt": f"An illustration for slide {n}",
            }
            for n in range(1, count + 1)
        ],
    }


def calendar_themes(count: int) -> dict[str, Any]:
    return {"posts": [{"theme": f"Theme {n}", "angle": f"Angle {n}."} for n in range(1, count + 1)]}


def standard_reply(call: ScriptedCall) -> Reply:
    """A sensible answer to each request the pipeline makes: structured ones by the
    schema's name, free text by how the prompt opens. Tests wrap it to change one
    kind of answer and keep the rest."""
    kind = call.schema_name
    if kind == "intent":
        return {"intent": "post"}
    if kind == "carousel_outline":
        return carousel_outline(asked_count(call))
    if kind == "calendar_themes":
        return calendar_themes(asked_count(call))
    if kind == "questions":
        return {"questions": QUESTIONS}
    if call.prompt.startswith("Summarise the main points"):
        return SUMMARY_TEXT
    if call.prompt.startswith(("Write a LinkedIn post about", "Write a LinkedIn post for day")):
        return POST_TEXT
    return CHAT_TEXT


@pytest.fixture
def scripted_model() -> ScriptedModel:
    from socialgen.ai.structured import forget_rungs

    forget_rungs()  # the ladder remembers refusals per model name, across tests
    return ScriptedModel(responder=standard_reply)


@pytest.fixture
def scripted_images() -> ScriptedImageModel:
    return ScriptedImageModel()


@pytest.fixture
def scripted_client(
    store: Store, scripted_model: ScriptedModel, scripted_images: ScriptedImageModel
) -> Iterator[Any]:
    """The `client` fixture's app, its endpoints given the scripted models."""
    from fastapi.testclient import TestClient

    from socialgen.runtime import Runtime
    from socialgen.server import create_app

    app = create_app(runtime=Runtime(text_model=scripted_model, image_model=scripted_images))
    with TestClient(app) as test_client:
        yield test_client


def caller(store: Store) -> Caller:
    """The local owner in the default workspace, as a service sees a request."""
    return Caller(engine=store.engine, workspace_id=store.workspace_id, user_id=store.owner_id)


def run(events: AsyncIterator[Event]) -> list[Event]:
    """Every event a service stream yields, in order."""

    async def collect() -> list[Event]:
        return [item async for item in events]

    return asyncio.run(collect())
