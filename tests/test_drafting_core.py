"""The drafting core's runner and reservation: several drafts, one summary, and a
refund of what was not saved that runs off the event loop and survives a cancel."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from socialgen.ai.model import Chunk, Message, StreamCut
from socialgen.app.caller import Caller
from socialgen.app.runtime import Runtime
from socialgen.drafting import persist, quota
from socialgen.drafting.fanout import Emit
from socialgen.drafting.quota import Reservation
from socialgen.drafting.runner import DraftRunner
from socialgen.drafting.topic import on_topic, topic_coverage, topic_words
from socialgen.drafting.writing import write_draft
from socialgen.events import Event
from socialgen.events.chat import ChatDelta
from socialgen.generation.batch import run_batch
from socialgen.generation.plan import prepare_batch
from socialgen.generation.schemas import BatchRequest
from socialgen.kit.errors import BadRequest
from socialgen.store.engine import read_session, transaction
from socialgen.workspaces import usage
from socialgen.workspaces.service import get_usage
from socialgen.workspaces.usage import reserve_posts
from tests.conftest import Store
from tests.doubles.scripted_model import ScriptedModel
from tests.scripted_support import caller as script_caller
from tests.scripted_support import run, standard_reply


def used(store: Store) -> int:
    with read_session(store.engine) as session:
        return get_usage(session, store.workspace_id).posts_used


def reserve(store: Store, count: int) -> tuple[Caller, str]:
    """A caller and its quota ledger row, as every plan makes them."""
    with transaction(store.engine) as session:
        ledger_id = reserve_posts(session, store.workspace_id, count)
    return Caller(
        store.engine, store.workspace_id, None, Runtime().settings, files=store.files()
    ), ledger_id


def save(caller: Caller, ledger_id: str) -> None:
    persist.save_post(
        caller.engine,
        workspace_id=caller.workspace_id,
        user_id=None,
        conversation_id=None,
        user_input="idea",
        content="a post",
        reservation_id=ledger_id,
    )


def test_the_refund_runs_off_the_event_loop(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[str] = []
    real_give_back = usage.give_back

    def watched(*args: Any) -> int:
        threads.append(threading.current_thread().name)
        return real_give_back(*args)

    monkeypatch.setattr(quota.usage, "give_back", watched)
    caller, ledger_id = reserve(store, 3)

    async def run() -> None:
        async with Reservation(caller, 3, ledger_id) as reservation:
            save(caller, ledger_id)
            reservation.spend()

    asyncio.run(run())
    assert used(store) == 1  # one saved, two given back
    assert threads and threads[0] != threading.main_thread().name


def test_a_cancelled_stream_still_gives_its_quota_back(store: Store) -> None:
    caller, ledger_id = reserve(store, 2)

    async def run() -> None:
        async with Reservation(caller, 2, ledger_id):
            await asyncio.sleep(10)

    async def cancel_it() -> None:
        task = asyncio.create_task(run())
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel_it())
    assert used(store) == 0


def test_the_runner_keeps_results_failures_and_one_summary(store: Store) -> None:
    caller, ledger_id = reserve(store, 3)

    def job(index: int) -> Callable[[Emit], Any]:
        async def write(emit: Emit) -> dict[str, Any]:
            await emit(Event.of(ChatDelta(text=f"writing {index}")))
            if index == 2:
                raise BadRequest("the model said no")
            save(caller, ledger_id)  # as a draft job does: the save spends the ledger row
            return {"index": index}

        return write

    def failed(index: int, message: str) -> Event:
        return Event.of(ChatDelta(text=f"{index} failed: {message}"))

    async def run() -> tuple[list[str], DraftRunner]:
        async with Reservation(caller, 3, ledger_id) as reservation:
            runner = DraftRunner(reservation, limit=2)
            texts = [
                e.data["text"] async for e in runner.run({n: job(n) for n in (1, 2, 3)}, failed)
            ]
        return texts, runner

    texts, runner = asyncio.run(run())
    assert "2 failed: the model said no" in texts
    assert runner.ordered_results() == [{"index": 1}, {"index": 3}]
    assert runner.failures == {2: "the model said no"}
    assert runner.summary(3) == {"total": 3, "generated": 2, "failed": 1}
    assert used(store) == 2  # the failed draft's post was given back


def test_small_models_write_one_draft_at_a_time_unless_told(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from socialgen.ai.settings import drafts_at_once

    monkeypatch.delenv("SOCIALGEN_BATCH_CONCURRENCY", raising=False)
    assert (
        drafts_at_once(small=True, configured=Runtime().settings.batch_concurrency),
        drafts_at_once(small=False, configured=Runtime().settings.batch_concurrency),
    ) == (1, 5)
    monkeypatch.setenv("SOCIALGEN_BATCH_CONCURRENCY", "3")
    assert (
        drafts_at_once(small=True, configured=Runtime().settings.batch_concurrency),
        drafts_at_once(small=False, configured=Runtime().settings.batch_concurrency),
    ) == (3, 3)


@pytest.mark.parametrize("small", [False, True])
def test_a_small_model_gets_the_short_post_prompt_with_the_topic_first_and_last(
    store: Store, scripted_model: ScriptedModel, small: bool
) -> None:
    """SmolLM2-135M drifted off topic under the full rule list (rules are enforced
    after writing anyway); a capable model keeps the rules in its prompt."""
    scripted_model.small = small
    topic = "why small teams ship weekly"  # the scripted post carries it: no second try
    plan = prepare_batch(script_caller(store), BatchRequest(userInput=topic))
    run(run_batch(plan, scripted_model))

    posts = scripted_model.calls_for("post")
    assert len(posts) == 5
    for call in posts:
        system = call.messages[0]["content"]
        assert ("Plain text only" in system) is not small
        if small:
            assert call.prompt.startswith(f"Write a LinkedIn post about {topic}.")
            assert f"Mention {topic} in the first line." in call.prompt
            assert "Style of this version" not in call.prompt
        else:
            assert "Style of this version" in call.prompt


class OneAnswerAtATime(ScriptedModel):
    """As llama_cpp.server answers by default: a running answer is cut short (a
    StreamCut) as soon as another request is in flight; `always` cuts even a lone one."""

    def __init__(self, *, always: bool = False) -> None:
        super().__init__(responder=standard_reply)
        self.always = always
        self.active = 0
        self.cuts = 0

    async def stream(  # type: ignore[override]
        self, messages: list[Message], **options: Any
    ) -> AsyncIterator[Chunk]:
        self.active += 1
        try:
            async for chunk in super().stream(messages, **options):
                if self.always or self.active > 1:
                    self.cuts += 1
                    raise StreamCut("The AI provider failed: the stream ended before a finish")
                yield chunk
        finally:
            self.active -= 1


def test_drafts_a_one_at_a_time_server_cut_are_written_again_alone(store: Store) -> None:
    model = OneAnswerAtATime()
    plan = prepare_batch(script_caller(store), BatchRequest(userInput="why small teams ship"))
    events = run(run_batch(plan, model))

    done = [e for e in events if e.name == "batch_complete"][-1].data
    assert done["summary"] == {"total": 5, "generated": 5, "failed": 0}
    # Started together, the first four were cut by those after them; each was then
    # written again alone, after the fifth had finished.
    assert model.cuts == 4
    assert len(model.calls_for("post")) == 5 + 4
    assert [e.data["status"] for e in events if e.name == "batch_progress"].count("failed") == 0
    assert used(store) == 5


def test_a_draft_cut_even_alone_fails_with_its_message_and_is_refunded(store: Store) -> None:
    model = OneAnswerAtATime(always=True)
    plan = prepare_batch(script_caller(store), BatchRequest(userInput="why small teams ship"))
    events = run(run_batch(plan, model))

    failed = [e.data for e in events if e.name == "batch_progress" and e.data["status"] == "failed"]
    assert len(failed) == 5 and "before a finish" in failed[0]["error"]
    assert len(model.calls_for("post")) == 10  # each draft tried twice, no more
    assert used(store) == 0


BAKERY = "running a bakery as a solo founder"
OFF_TOPIC = "I met a marketing manager in New York. He taught me to listen.\n\nWhat did you learn?"
ON_TOPIC = "Running a bakery alone taught me to plan.\n\nEvery founder bakes twice.\n\nAnd you?"
HALF = "A bakery is a lot of work.\n\nWhat would you do?"


@pytest.mark.parametrize(
    ("small", "replies", "kept", "calls"),
    [
        (True, [OFF_TOPIC, ON_TOPIC], ON_TOPIC, 2),  # a drifting draft is written again
        (True, [ON_TOPIC], ON_TOPIC, 1),  # an on-topic draft is kept at once
        (True, [OFF_TOPIC, HALF], HALF, 2),  # both miss: the one carrying more is kept
        (True, [HALF, OFF_TOPIC], HALF, 2),
        (False, [OFF_TOPIC], OFF_TOPIC, 1),  # a capable model is not second-guessed
    ],
)
def test_a_small_models_draft_that_misses_the_topic_is_written_once_more(
    small: bool, replies: list[str], kept: str, calls: int
) -> None:
    model = ScriptedModel(*replies)
    model.small = small
    messages: list[Message] = [{"role": "user", "content": "Write a LinkedIn post about it"}]
    assert asyncio.run(write_draft(model, messages, BAKERY, max_tokens=700)) == kept
    assert len(model.calls) == calls


def test_topic_coverage_matches_words_on_their_stem_and_ignores_filler() -> None:
    assert topic_words("Why small teams ship weekly") == ["small", "teams", "ship", "weekly"]
    assert (
        topic_coverage(
            "Shipping every week keeps small teams honest", "why small teams ship weekly"
        )
        == 0.75
    )
    assert on_topic(ON_TOPIC, BAKERY) and not on_topic(HALF, BAKERY)
    assert topic_coverage(HALF, BAKERY) == 0.25 > topic_coverage(OFF_TOPIC, BAKERY) == 0
    assert topic_coverage("anything", "how to do it") == 1.0  # nothing to carry
