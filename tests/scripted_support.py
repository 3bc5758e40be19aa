"""Test support for the in-process scripted models (tests.doubles.scripted_model): fixtures
that hand them to services directly or put them in the app's place of the
configured models (a Runtime handed to create_app), and a responder that answers every
kind of request the pipeline makes.

The fake OpenAI server (tests/fakes) stays the way to test the wire: litellm,
streams, refused formats, HTTP failures. These models are for what lies above it.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest
from typer.testing import CliRunner, Result

from socialgen.ai.model import ModelError
from socialgen.drafting.caller import Caller
from socialgen.events import Event
from socialgen.runtime import Runtime
from tests.doubles.scripted_images import ScriptedImageModel
from tests.doubles.scripted_model import Reply, ScriptedCall, ScriptedModel

if TYPE_CHECKING:  # conftest imports this module: no import back at run time
    from tests.conftest import LiveServer, Store

POST_TEXT = (
    "Small teams ship weekly because nobody waits for permission.\n\n"
    "We cut our release cycle from a month to a week. Here is what changed.\n\n"
    "What is stopping your team from shipping on Friday?\n\n#shipping #startups"
)
CHAT_TEXT = "A good hook names a tension your reader already feels."
SUMMARY_TEXT = "The article says weekly releases cut risk."
QUESTIONS = ["Who is it for?", "What changed?", "Any numbers?"]

# click >= 8.2 keeps stdout and stderr apart (result.stdout, result.stderr).
_runner = CliRunner()

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


PLANS = ("carousel_outline", "calendar_themes")


def provider_failure(detail: str = "status 500") -> ModelError:
    """What the provider layer raises when the provider fails (ai/remote.py's wording)."""
    return ModelError(f"The AI provider failed: {detail}")


def variation_of(call: ScriptedCall) -> str:
    """The variation a batch's post call asks for (a data value of its prompt)."""
    found = re.search(r"Style of this version \(([^)]+)\)", call.prompt)
    assert found is not None, call.prompt
    return found.group(1)


def calendar_themes(count: int) -> dict[str, Any]:
    return {"posts": [{"theme": f"Theme {n}", "angle": f"Angle {n}."} for n in range(1, count + 1)]}


def standard_reply(call: ScriptedCall) -> Reply:
    """A sensible answer to each request the pipeline makes, by its purpose. Tests
    wrap it to change one kind of answer and keep the rest."""
    purpose = call.purpose
    if purpose in PLANS and call.schema_name is None:
        # A plan asked as a line list (a small model, or a JSON plan's top-up): one
        # line off the topic, nothing to keep; the template stands in.
        return CHAT_TEXT
    if purpose == "intent":
        # The structured rungs want {"intent": ...}; a small model's grammar one word.
        return {"intent": "post"} if call.schema_name == "intent" else "post"
    if purpose == "carousel_outline":
        return carousel_outline(asked_count(call))
    if purpose == "calendar_themes":
        return calendar_themes(asked_count(call))
    if purpose == "questions":
        return {"questions": QUESTIONS}
    if purpose == "summary":
        return SUMMARY_TEXT
    if purpose == "post":
        return POST_TEXT
    if purpose == "chat":
        return CHAT_TEXT
    raise AssertionError(f"no standard reply for purpose {purpose!r}")


@pytest.fixture
def scripted_model() -> ScriptedModel:
    return ScriptedModel(responder=standard_reply)


@pytest.fixture
def scripted_images() -> ScriptedImageModel:
    return ScriptedImageModel()


@pytest.fixture
def scripted_client(
    store: Store,
    scripted_model: ScriptedModel,
    scripted_images: ScriptedImageModel,
    networks: dict[str, Any],
) -> Iterator[Any]:
    """The `client` fixture's app, its endpoints given the scripted models."""
    from fastapi.testclient import TestClient

    from socialgen.runtime import Runtime
    from socialgen.server import create_app

    runtime = Runtime(text_model=scripted_model, image_model=scripted_images, networks=networks)
    app = create_app(runtime=runtime)
    with TestClient(app) as test_client:
        yield test_client


@dataclass
class ScriptedAI:
    """The scripted text and image models, with a knob per kind of answer, handed to
    the app (`client`, `live_server`) and to the CLI (`invoke`) through a Runtime.

    `intent` is what the intent classifier answers; `post_reply` and `chat_reply`
    answer post-writing and chat calls, `carousel_reply` an outline of N slides. A
    reply is anything ScriptedModel takes: text, JSON, an exception (ModelError for a
    provider failure), CutOff or Streamed. Every call is in `model.calls`.
    """

    model: ScriptedModel
    images: ScriptedImageModel
    intent: str = "post"
    post_reply: Callable[[ScriptedCall], Reply] = field(default=lambda _call: POST_TEXT)
    chat_reply: Callable[[ScriptedCall], Reply] = field(default=lambda _call: CHAT_TEXT)
    carousel_reply: Callable[[int], Reply] = field(default=carousel_outline)
    # The test's network modules (conftest's `networks`), read at each use.
    networks: dict[str, Any] = field(default_factory=dict)

    def respond(self, call: ScriptedCall) -> Reply:
        if call.purpose == "intent":
            return {"intent": self.intent} if call.schema_name == "intent" else self.intent
        if call.purpose == "carousel_outline" and call.schema_name is not None:
            return self.carousel_reply(asked_count(call))
        if call.purpose == "post":
            return self.post_reply(call)
        if call.purpose == "chat":
            return self.chat_reply(call)
        return standard_reply(call)

    @property
    def calls(self) -> list[ScriptedCall]:
        return self.model.calls

    def post_calls(self) -> list[ScriptedCall]:
        return self.model.calls_for("post")

    def runtime(self) -> Runtime:
        return Runtime(text_model=self.model, image_model=self.images, networks=self.networks)

    def invoke(self, args: Sequence[str], input: str | None = None) -> Result:
        """The real CLI app, run with these models (typer's CliRunner)."""
        from socialgen.cli import app

        return _runner.invoke(app, list(args), input=input, obj=self.runtime())


@pytest.fixture
def scripted_ai(
    scripted_model: ScriptedModel, scripted_images: ScriptedImageModel, networks: dict[str, Any]
) -> ScriptedAI:
    ai = ScriptedAI(model=scripted_model, images=scripted_images, networks=networks)
    scripted_model.responder = ai.respond
    return ai


@pytest.fixture
def ai_client(store: Store, scripted_ai: ScriptedAI) -> Iterator[Any]:
    """The `client` fixture's app, given scripted_ai's models."""
    from fastapi.testclient import TestClient

    from socialgen.server import create_app

    with TestClient(create_app(runtime=scripted_ai.runtime())) as test_client:
        yield test_client


@pytest.fixture
def ai_live_server(store: Store, scripted_ai: ScriptedAI) -> Iterator[LiveServer]:
    """The `live_server` fixture's real socket, the app given scripted_ai's models."""
    from socialgen.server import create_app
    from tests.conftest import serving

    with serving(create_app(runtime=scripted_ai.runtime())) as server:
        yield server


def caller(store: Store) -> Caller:
    """The local owner in the default workspace, as a service sees a request."""
    return Caller(
        engine=store.engine,
        workspace_id=store.workspace_id,
        user_id=store.owner_id,
        settings=Runtime().settings,
    )


def run(events: AsyncIterator[Event]) -> list[Event]:
    """Every event a service stream yields, in order."""

    async def collect() -> list[Event]:
        return [item async for item in events]

    return asyncio.run(collect())
