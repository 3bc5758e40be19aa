"""The drafting core's runner and reservation: several drafts, one summary, and a
refund of what was not saved that runs off the event loop and survives a cancel."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import pytest

from socialgen.drafting import persist, quota
from socialgen.drafting.caller import Caller
from socialgen.drafting.fanout import Emit
from socialgen.drafting.quota import Reservation
from socialgen.drafting.runner import DraftRunner
from socialgen.errors import BadRequest
from socialgen.events import Event, event
from socialgen.store.engine import read_session, transaction
from socialgen.workspaces.service import get_usage
from socialgen.workspaces.usage import reserve_posts
from tests.conftest import Store


def used(store: Store) -> int:
    with read_session(store.engine) as session:
        return get_usage(session, store.workspace_id).posts_used


def reserve(store: Store, count: int) -> Caller:
    with transaction(store.engine) as session:
        reserve_posts(session, store.workspace_id, count)
    return Caller(store.engine, store.workspace_id, None)


def test_the_refund_runs_off_the_event_loop(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[str] = []
    real_refund = persist.refund

    def watched(*args: Any) -> None:
        threads.append(threading.current_thread().name)
        real_refund(*args)

    monkeypatch.setattr(quota.persist, "refund", watched)
    caller = reserve(store, 3)

    async def run() -> None:
        async with Reservation(caller, 3) as reservation:
            reservation.spend()

    asyncio.run(run())
    assert used(store) == 1  # one saved, two given back
    assert threads and threads[0] != threading.main_thread().name


def test_a_cancelled_stream_still_gives_its_quota_back(store: Store) -> None:
    caller = reserve(store, 2)

    async def run() -> None:
        async with Reservation(caller, 2):
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
    caller = reserve(store, 3)

    def job(index: int) -> Callable[[Emit], Any]:
        async def write(emit: Emit) -> dict[str, Any]:
            await emit(event("chat_delta", text=f"writing {index}"))
            if index == 2:
                raise BadRequest("the model said no")
            return {"index": index}

        return write

    def failed(index: int, message: str) -> Event:
        return event("chat_delta", text=f"{index} failed: {message}")

    async def run() -> tuple[list[str], DraftRunner]:
        async with Reservation(caller, 3) as reservation:
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
    assert (drafts_at_once(small=True), drafts_at_once(small=False)) == (1, 5)
    monkeypatch.setenv("SOCIALGEN_BATCH_CONCURRENCY", "3")
    assert (drafts_at_once(small=True), drafts_at_once(small=False)) == (3, 3)
