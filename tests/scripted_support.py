"""Test support for the in-process scripted models (tests.doubles.scripted_model): fixtures
that hand them to services directly or put them in the app's place of the
configured models (a Runtime handed to create_app), and a responder that answers every
kind of request the pipeline makes, as each feature's tests/<feature>_replies.py
declares (tests/doubles/scripted_replies.py finds them): nothing here names a purpose.

The fake OpenAI server (tests/fakes) stays the way to test the wire: litellm,
streams, refused formats, HTTP failures. These models are for what lies above it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

import pytest
from typer.testing import CliRunner, Result

from socialgen.ai.model import ModelError
from socialgen.app.caller import Caller
from socialgen.app.registration import Feature
from socialgen.app.runtime import Runtime
from socialgen.events import Event

# The names from tests/*_replies.py are re-exported: tests imported them from here
# before each feature's replies moved to its own module. A new feature's tests import
# from its own tests/<feature>_replies.py.
from tests.calendar_replies import calendar_themes  # noqa: F401
from tests.carousel_replies import carousel_outline  # noqa: F401
from tests.doubles.scripted_images import ScriptedImageModel
from tests.doubles.scripted_model import Reply, ScriptedCall, ScriptedModel
from tests.doubles.scripted_replies import answer, knob_defaults
from tests.generation_replies import (  # noqa: F401
    CHAT_TEXT,
    POST_TEXT,
    QUESTIONS,
    SUMMARY_TEXT,
    variation_of,
)

if TYPE_CHECKING:  # conftest imports this module: no import back at run time
    from tests.conftest import LiveServer, Store

# click >= 8.2 keeps stdout and stderr apart (result.stdout, result.stderr).
_runner = CliRunner()


def provider_failure(detail: str = "status 500") -> ModelError:
    """What the provider layer raises when the provider fails (ai/remote.py's wording)."""
    return ModelError(f"The AI provider failed: {detail}")


def standard_reply(call: ScriptedCall) -> Reply:
    """A sensible answer to each request the pipeline makes, by its purpose, as its
    feature's replies declare it with every knob at its default. Tests wrap it to
    change one kind of answer and keep the rest."""
    return answer(call, knob_defaults())


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

    from socialgen.app.runtime import Runtime
    from socialgen.http.server import create_app

    runtime = Runtime(text_model=scripted_model, image_model=scripted_images, networks=networks)
    app = create_app(runtime=runtime)
    with TestClient(app) as test_client:
        yield test_client


@dataclass
class ScriptedAI:
    """The scripted text and image models, with a knob per kind of answer, handed to
    the app (`client`, `live_server`) and to the CLI (`invoke`) through a Runtime.

    The knobs are the features' own (their tests/<feature>_replies.py declares each
    with its default): `intent` is what the intent classifier answers, `post_reply`
    and `chat_reply` answer post-writing and chat calls, `carousel_reply` an outline
    of N slides ... A test sets one as an attribute (`scripted_ai.intent = "chat"`);
    a name no feature declares fails. A reply is anything ScriptedModel takes: text,
    JSON, an exception (ModelError for a provider failure), CutOff or Streamed.
    Every call is in `model.calls`.
    """

    model: ScriptedModel
    images: ScriptedImageModel
    knobs: dict[str, Any] = field(default_factory=knob_defaults)
    # The test's network modules (conftest's `networks`), read at each use.
    networks: dict[str, Any] = field(default_factory=dict)

    def __getattr__(self, name: str) -> Any:
        # Only for names that are not attributes: the features' knobs.
        knobs = self.__dict__.get("knobs", {})
        if name in knobs:
            return knobs[name]
        raise AttributeError(f"ScriptedAI has no attribute or knob {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        if name in {own.name for own in fields(self)}:
            object.__setattr__(self, name, value)
        elif name in self.knobs:
            self.knobs[name] = value
        else:  # a misspelt knob would otherwise change nothing, silently
            raise AttributeError(f"no feature declares the knob {name!r}: {sorted(self.knobs)}")

    def respond(self, call: ScriptedCall) -> Reply:
        return answer(call, self.knobs)

    @property
    def calls(self) -> list[ScriptedCall]:
        return self.model.calls

    def calls_for(self, purpose: str) -> list[ScriptedCall]:
        """The calls made for `purpose` ("post", "intent" ...)."""
        return self.model.calls_for(purpose)

    def runtime(self, features: tuple[Feature, ...] = ()) -> Runtime:
        """A Runtime with these models, the test's networks (and any features a test
        hands in)."""
        return Runtime(
            text_model=self.model,
            image_model=self.images,
            features=features,
            networks=self.networks,
        )

    def invoke(
        self, args: Sequence[str], input: str | None = None, features: tuple[Feature, ...] = ()
    ) -> Result:
        """The real CLI app, run with these models (typer's CliRunner)."""
        from socialgen.cli.main import app

        return _runner.invoke(app, list(args), input=input, obj=self.runtime(features))


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

    from socialgen.http.server import create_app

    with TestClient(create_app(runtime=scripted_ai.runtime())) as test_client:
        yield test_client


@pytest.fixture
def ai_live_server(store: Store, scripted_ai: ScriptedAI) -> Iterator[LiveServer]:
    """The `live_server` fixture's real socket, the app given scripted_ai's models."""
    from socialgen.http.server import create_app
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
        files=store.files(),
    )


def run(events: AsyncIterator[Event]) -> list[Event]:
    """Every event a service stream yields, in order."""

    async def collect() -> list[Event]:
        return [item async for item in events]

    return asyncio.run(collect())
