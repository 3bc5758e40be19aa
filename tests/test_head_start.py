"""`socialgen post` sends its provider request before the store is open
(generation/head_start.py) when the prompt needs nothing from the store, and keeps
every refusal as it was: nothing printed, reserved or saved, the early answer dropped.

Through the real CLI and the fake OpenAI server (the OpenAI-compatible client is the
one started early), and EarlyStream alone with a model double for its hand-over rules.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from typer.testing import CliRunner, Result

from socialgen.ai.early_stream import EarlyStream
from socialgen.ai.model import Chunk, Message, ModelError, Output
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import Post
from socialgen.workspaces.service import get_usage, set_post_quota
from tests.conftest import Store
from tests.fakes.openai_server import FakeOpenAI, Reply

TOPIC = "why small teams ship weekly"
POST = "Small teams ship weekly.\n\nThey learn faster.\n\n#shipping"


@pytest.fixture
def provider(store: Store, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        for name, value in fake.env().items():
            monkeypatch.setenv(name, value)
        yield fake


def plan_after_the_request(monkeypatch: pytest.MonkeyPatch, fake: FakeOpenAI, wait: float) -> None:
    """The plan starts once the provider got a request (or after `wait` seconds): an
    early request is out before a refusal could cancel it, whatever the machine's pace."""
    from socialgen.generation import cli

    plan = cli._post_plan

    def later(*args: Any) -> Any:
        deadline = time.monotonic() + wait
        while not list(fake.iter_requests()) and time.monotonic() < deadline:
            time.sleep(0.005)
        return plan(*args)

    monkeypatch.setattr(cli, "_post_plan", later)


def post(*args: str) -> Result:
    from socialgen.cli.main import app

    return CliRunner().invoke(app, ["post", *args, "--json"])


def post_requests(fake: FakeOpenAI) -> list[dict[str, object]]:
    return [
        body
        for body in fake.iter_requests()
        if str(body["messages"][-1]["content"]).startswith("Write a LinkedIn post")  # type: ignore[index]
    ]


def posts_used(store: Store) -> int:
    with read_session(store.engine) as session:
        return get_usage(session, store.workspace_id).posts_used


def post_count(store: Store) -> int:
    return int(store.scalar(sa.select(sa.func.count()).select_from(Post)))


def events(result: Result) -> list[str]:
    return [json.loads(line)["event"] for line in result.stdout.splitlines()]


def test_a_plain_post_streams_and_is_saved_once(
    store: Store, provider: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    provider.script(Reply(text=POST))
    plan_after_the_request(monkeypatch, provider, wait=10)

    result = post(TOPIC)

    assert result.exit_code == 0, result.output
    names = events(result)
    assert names[0] == "chat_delta" and names[-1] == "post_ids"
    # The early request (out before the plan) was the one streamed: the model built
    # from the settings object agreed with it, so nothing was asked again.
    assert len(post_requests(provider)) == 1
    assert post_count(store) == 1
    assert posts_used(store) == 1


def test_a_refused_post_prints_nothing_and_drops_the_early_answer(
    store: Store, provider: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The quota is spent: the plan refuses after the early request went out (the fake
    got it: this is the early path). Nothing of its answer is printed or saved, and
    the quota stays as it was."""
    with transaction(store.engine) as session:
        set_post_quota(session, store.workspace_id, 0)
    provider.script(Reply(text=POST, token_delay=0.05))
    plan_after_the_request(monkeypatch, provider, wait=10)

    result = post(TOPIC)

    assert result.exit_code == 1, result.output
    assert [json.loads(line) for line in result.stdout.splitlines()] == [
        {"success": False, "message": "Post quota exceeded: 1 requested, 0 left of 0"}
    ]
    assert len(post_requests(provider)) == 1
    assert post_count(store) == 0
    assert posts_used(store) == 0


def test_a_provider_failure_through_the_early_request_gives_the_quota_back(
    store: Store, provider: FakeOpenAI
) -> None:
    provider.script(Reply(text="upstream exploded", status=500))

    result = post(TOPIC)

    assert result.exit_code == 1, result.output
    (line,) = result.stdout.splitlines()
    error = json.loads(line)
    assert error["event"] == "error"
    assert "The AI provider failed: InternalServerError: upstream exploded" in str(error["data"])
    assert post_count(store) == 0
    assert posts_used(store) == 0


@pytest.mark.parametrize(
    "args",
    [[TOPIC], [TOPIC, "--style", "nope"], [f"{TOPIC} https://example.invalid/a"], ["  "]],
    ids=["plain", "style", "url", "blank"],
)
def test_only_a_prompt_that_needs_nothing_from_the_store_goes_before_the_plan(
    store: Store, provider: FakeOpenAI, args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The quota is spent, so each plan refuses: what reached the provider went before
    it. A plain topic did; a style to read, a URL to fetch first or a topic the plan
    refuses never do."""
    with transaction(store.engine) as session:
        set_post_quota(session, store.workspace_id, 0)
    provider.script(Reply(text=POST))
    plan_after_the_request(monkeypatch, provider, wait=10 if args == [TOPIC] else 0.5)

    result = post(*args)

    assert result.exit_code == 1, result.output
    assert len(post_requests(provider)) == (1 if args == [TOPIC] else 0)
    assert posts_used(store) == 0


# --------------------------------------------------------------------------- EarlyStream


class Held:
    """A model double: its answer waits for `release`; it records what it was asked
    and whether a stream of it was cancelled."""

    name = "held/model"
    small = False

    def __init__(self, chunks: list[str], error: Exception | None = None) -> None:
        self.chunks = chunks
        self.error = error
        self.calls: list[list[Message]] = []
        self.release = threading.Event()
        self.cancelled = threading.Event()

    async def stream(
        self,
        messages: list[Message],
        *,
        output: Output | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        purpose: str | None = None,
    ) -> AsyncIterator[Chunk]:
        self.calls.append(messages)
        try:
            while not self.release.is_set():
                await asyncio.sleep(0.005)
            for text in self.chunks:
                yield Chunk(text=text)
            if self.error is not None:
                raise self.error
        except asyncio.CancelledError:
            self.cancelled.set()
            raise


def wait_asked(held: Held) -> None:
    """Until the early thread has asked the model (its request is out)."""
    deadline = time.monotonic() + 5
    while not held.calls and time.monotonic() < deadline:
        time.sleep(0.005)
    assert held.calls, "the early request never went out"


ASKED = [{"role": "user", "content": "Write a LinkedIn post about shipping"}]


async def read(model: EarlyStream, messages: list[Message], **options: object) -> list[str]:
    return [
        chunk.text
        async for chunk in model.stream(messages, max_tokens=100, purpose="post", **options)  # type: ignore[arg-type]
    ]


def test_the_same_request_gets_the_early_answer_in_order() -> None:
    held = Held(["Small ", "teams ", "ship."])
    early = EarlyStream(held, ASKED, max_tokens=100, purpose="post")
    held.release.set()

    assert asyncio.run(read(early, ASKED)) == ["Small ", "teams ", "ship."]
    assert held.calls == [ASKED]  # asked once, early
    assert early.name == held.name and early.small is held.small


def test_the_early_failure_is_raised_where_the_answer_is_read() -> None:
    held = Held(["Small "], error=ModelError("The AI provider failed: gone"))
    early = EarlyStream(held, ASKED, max_tokens=100, purpose="post")
    held.release.set()

    async def run() -> list[str]:
        got: list[str] = []
        with pytest.raises(ModelError, match="gone"):
            async for chunk in early.stream(ASKED, max_tokens=100, purpose="post"):
                got.append(chunk.text)
        return got

    assert asyncio.run(run()) == ["Small "]


def test_a_different_first_request_cancels_the_early_one_and_goes_to_the_model() -> None:
    held = Held(["answer"])
    early = EarlyStream(held, ASKED, max_tokens=100, purpose="post")
    other = [{"role": "user", "content": "something else"}]
    wait_asked(held)

    stream = early.stream(other, max_tokens=100, purpose="post")

    assert held.cancelled.is_set()  # the early request hung up first
    held.release.set()

    async def run() -> list[str]:
        return [chunk.text async for chunk in stream]

    assert asyncio.run(run()) == ["answer"]
    assert held.calls == [ASKED, other]


def test_close_hangs_up_an_early_request_nobody_read() -> None:
    held = Held(["never read"])
    early = EarlyStream(held, ASKED, max_tokens=100, purpose="post")
    wait_asked(held)

    early.close()

    assert held.cancelled.is_set()
    assert not early._thread.is_alive()
    # Closed: even the same request now goes to the model itself, asked anew.
    held.release.set()
    assert asyncio.run(read(early, ASKED)) == ["never read"]
    assert held.calls == [ASKED, ASKED]


def test_a_model_that_agrees_is_adopted_for_the_later_calls() -> None:
    held, same = Held(["post"]), Held(["questions"])
    early = EarlyStream(held, ASKED, max_tokens=100, purpose="post")
    held.release.set()
    same.release.set()

    assert early.adopt(same, 100)
    assert asyncio.run(read(early, ASKED)) == ["post"]  # the early answer
    other = [{"role": "user", "content": "refinement questions"}]
    assert asyncio.run(read(early, other)) == ["questions"]  # the adopted model
    assert same.calls == [other]


@pytest.mark.parametrize("change", ["name", "max_tokens"])
def test_a_model_that_disagrees_cancels_the_early_request(change: str) -> None:
    held, settings_model = Held(["early"]), Held(["asked anew"])
    if change == "name":
        settings_model.name = "held/another"
    early = EarlyStream(held, ASKED, max_tokens=100, purpose="post")
    wait_asked(held)

    assert not early.adopt(settings_model, 200 if change == "max_tokens" else 100)
    assert held.cancelled.is_set()
