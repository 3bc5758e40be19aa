"""The quota reservation ledger: a saved post spends its reservation in its own
transaction, the give-back refunds what the row says is unspent, and reconciling
gives back only what dead processes held (lapsed or missing lease), never twice and
never a live owner's. Real stores (SQLite, or PostgreSQL when configured)."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlmodel import col, delete, func, select, update

from socialgen.ai.model import ModelError
from socialgen.app.caller import Caller
from socialgen.app.runtime import Runtime
from socialgen.drafting import persist
from socialgen.drafting.quota import Reservation
from socialgen.kit.clock import utcnow
from socialgen.store.engine import read_session, transaction
from socialgen.store.leases import LEASE_ENV
from socialgen.store.tables import Post, ProcessLease, QuotaReservation
from socialgen.workspaces import usage
from socialgen.workspaces.quota_reconcile import reconcile_abandoned
from socialgen.workspaces.service import get_usage
from socialgen.workspaces.usage import reserve_posts
from tests.carousel_support import CREATE_URL
from tests.conftest import Store
from tests.doubles.scripted_model import Reply, ScriptedCall, ScriptedModel
from tests.scripted_support import standard_reply

LEASE = 120.0  # the quota_lease_seconds setting's default


def owner(store: Store) -> str:
    """The owner id of the fixture's Runtime, whose engine the tests reserve on."""
    return store.runtime.stores.lease.owner


def used(store: Store) -> int:
    with read_session(store.engine) as session:
        return get_usage(session, store.workspace_id).posts_used


def ledger(store: Store) -> list[QuotaReservation]:
    with read_session(store.engine) as session:
        return list(session.exec(select(QuotaReservation).order_by(col(QuotaReservation.id))))


def leases(store: Store) -> dict[str, ProcessLease]:
    with read_session(store.engine) as session:
        return {lease.id: lease for lease in session.exec(select(ProcessLease))}


def reserve(store: Store, count: int) -> str:
    with transaction(store.engine) as session:
        return reserve_posts(session, store.workspace_id, count)


def save(store: Store, reservation_id: str, text: str = "A saved post") -> None:
    persist.save_post(
        store.engine,
        workspace_id=store.workspace_id,
        user_id=None,
        conversation_id=None,
        user_input="a prompt",
        content=text,
        reservation_id=reservation_id,
    )


def hand_over(store: Store, reservation_id: str, owner: str, seconds_ago: float | None) -> None:
    """Make a reservation another process's, as that process left it: its lease last
    refreshed `seconds_ago` (None: no lease at all)."""
    with transaction(store.engine) as session:
        session.connection().execute(
            update(QuotaReservation)
            .where(col(QuotaReservation.id) == reservation_id)
            .values(owner_id=owner)
        )
        if seconds_ago is not None:
            seen = utcnow() - timedelta(seconds=seconds_ago)
            session.add(ProcessLease(id=owner, host="elsewhere", pid=1, last_seen=seen))


def test_a_saved_post_spends_its_reservation_and_the_give_back_refunds_the_rest(
    store: Store,
) -> None:
    reservation_id = reserve(store, 3)
    [row] = ledger(store)
    assert (row.reserved, row.spent, row.owner_id) == (3, 0, owner(store))
    assert leases(store)[owner(store)].last_seen > utcnow() - timedelta(seconds=10)

    save(store, reservation_id)
    assert ledger(store)[0].spent == 1
    assert used(store) == 3

    assert usage.give_back(store.engine, reservation_id) == 2
    assert used(store) == 1
    assert ledger(store) == []
    assert usage.give_back(store.engine, reservation_id) == 0  # never twice
    assert used(store) == 1


def test_the_stream_gives_back_what_the_ledger_says_was_not_saved(store: Store) -> None:
    """A save that committed but was not yet counted by the stream (cancelled between
    the two) is not refunded: the row, not the stream's count, is the truth."""
    reservation_id = reserve(store, 3)
    caller = Caller(store.engine, store.workspace_id, None, Runtime().settings, files=store.files())

    async def run() -> None:
        async with Reservation(caller, 3, reservation_id):
            await asyncio.to_thread(save, store, reservation_id)
            # no quota.spend(): the stream was cut right after the save

    asyncio.run(run())
    assert used(store) == 1
    assert ledger(store) == []


def test_reconciling_gives_back_what_a_dead_process_held_and_keeps_what_it_saved(
    store: Store,
) -> None:
    reservation_id = reserve(store, 5)
    save(store, reservation_id, "first")
    save(store, reservation_id, "second")
    hand_over(store, reservation_id, "killed-process", seconds_ago=3600)
    assert used(store) == 5

    assert reconcile_abandoned(store.engine, LEASE) == 3
    assert used(store) == 2
    assert ledger(store) == []
    assert "killed-process" not in leases(store)  # its lease goes with its last row
    assert reconcile_abandoned(store.engine, LEASE) == 0  # never twice
    assert used(store) == 2


def test_an_owner_without_a_lease_is_dead(store: Store) -> None:
    hand_over(store, reserve(store, 2), "never-leased", seconds_ago=None)
    assert reconcile_abandoned(store.engine, LEASE) == 2
    assert used(store) == 0


def test_a_live_owners_reservations_are_never_touched(store: Store) -> None:
    mine = reserve(store, 1)
    theirs = reserve(store, 2)
    hand_over(store, theirs, "another-live-server", seconds_ago=5)
    dead = reserve(store, 4)
    hand_over(store, dead, "a-dead-server", seconds_ago=600)

    assert reconcile_abandoned(store.engine, LEASE) == 4
    assert used(store) == 3
    assert sorted(row.id for row in ledger(store)) == sorted([mine, theirs])
    assert "another-live-server" in leases(store)


def test_the_lease_lapses_after_the_configured_seconds(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(LEASE_ENV, "30")
    seconds = Runtime().stores.lease.seconds  # what a Runtime made now reads
    assert seconds == 30
    hand_over(store, reserve(store, 1), "quiet-for-20s", seconds_ago=20)
    hand_over(store, reserve(store, 2), "quiet-for-40s", seconds_ago=40)
    assert reconcile_abandoned(store.engine, seconds) == 2
    assert used(store) == 1


@pytest.fixture
def short_lease(store: Store, monkeypatch: pytest.MonkeyPatch) -> Iterator[Store]:
    """The store, through a fresh Runtime that reads a one-second lease."""
    monkeypatch.setenv(LEASE_ENV, "1")
    runtime = Runtime()
    yield replace(store, engine=runtime.open_store(), runtime=runtime)
    runtime.close()


def test_this_process_keeps_its_lease_fresh_while_it_lives(short_lease: Store) -> None:
    store = short_lease
    reserve(store, 2)
    first_seen = leases(store)[owner(store)].last_seen
    time.sleep(2.5)  # more than two leases: without the refresh it would have lapsed
    assert leases(store)[owner(store)].last_seen > first_seen
    assert reconcile_abandoned(store.engine, LEASE) == 0
    assert used(store) == 2


def test_the_keeper_never_brings_back_a_lease_that_was_removed(short_lease: Store) -> None:
    """Removed by another process's reconcile (or by a test emptying the store): the
    keeper's refresh must not write it again behind everyone's back; the next
    reservation does."""
    store = short_lease
    reserve(store, 1)
    with transaction(store.engine) as session:
        session.exec(delete(ProcessLease))
    time.sleep(1.5)  # several of the keeper's rounds
    assert leases(store) == {}
    reserve(store, 1)
    assert list(leases(store)) == [owner(store)]


def test_a_post_saved_after_its_reservation_was_reclaimed_still_counts(store: Store) -> None:
    """A process judged dead that was only slow: its late save is charged again."""
    reservation_id = reserve(store, 2)
    hand_over(store, reservation_id, "slow-process", seconds_ago=3600)
    assert reconcile_abandoned(store.engine, LEASE) == 2
    save(store, reservation_id)
    assert used(store) == 1
    assert usage.give_back(store.engine, reservation_id) == 0
    assert used(store) == 1


def test_concurrent_reconcilers_refund_each_reservation_once(store: Store) -> None:
    for owner in ("dead-1", "dead-2", "dead-3"):
        hand_over(store, reserve(store, 2), owner, seconds_ago=3600)
    assert used(store) == 6
    refunds: list[int] = []
    threads = [
        threading.Thread(target=lambda: refunds.append(reconcile_abandoned(store.engine, LEASE)))
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sum(refunds) == 6
    assert used(store) == 0


def test_opening_the_store_gives_back_what_a_killed_command_held(store: Store) -> None:
    hand_over(store, reserve(store, 3), "killed-cli", seconds_ago=3600)
    fresh = Runtime()  # a command started after the killed one
    fresh.open_store()
    fresh.close()
    assert used(store) == 0
    assert ledger(store) == []


# Every stream that reserves, with its give-back lost as a killed process loses it:
# its saves alone must have spent the ledger, so reconciling leaves postsUsed equal
# to the posts saved. (path, JSON body, posts the stream saves.)
STREAMS = {
    "batch": ("/api/v1/ai-conversation/generate-batch-posts", {"userInput": "ship"}, 4),
    "post": ("/api/v1/ai-conversation/generate-post", {"userInput": "ship weekly"}, 1),
    "chat": ("/api/v1/ai-conversation/chat", {"userInput": "Write a post about shipping"}, 1),
    "calendar": (
        "/api/v1/content-calendar/generate",
        {"calendarLength": 7, "prompt": "shipping weekly"},
        7,
    ),
    "carousel": (CREATE_URL, {"prompt": "why small teams ship weekly", "slideCount": 3}, 1),
}


@pytest.mark.parametrize("kind", sorted(STREAMS))
def test_each_stream_spends_its_reservation_as_it_saves(
    kind: str,
    store: Store,
    scripted_client: TestClient,
    scripted_model: ScriptedModel,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def one_variation_fails(call: ScriptedCall) -> Reply:
        if "(Educational)" in call.prompt:
            return ModelError("The AI provider failed: rate limited")
        return standard_reply(call)

    scripted_model.responder = one_variation_fails
    monkeypatch.setattr(usage, "give_back", lambda *_args: 0)  # "killed" first
    path, body, saved = STREAMS[kind]
    response = scripted_client.post(
        f"{path}/{store.workspace_id}", headers={"x-api-key": store.api_key()}, json=body
    )
    assert response.status_code == 200, response.text
    [row] = ledger(store)
    assert row.spent == saved == int(store.scalar(select(func.count()).select_from(Post)))

    hand_over(store, row.id, "killed-server", seconds_ago=3600)
    reconcile_abandoned(store.engine, LEASE)
    assert used(store) == saved


def test_the_leases_of_processes_that_ended_are_forgotten(store: Store) -> None:
    with transaction(store.engine) as session:
        seen = utcnow() - timedelta(hours=1)
        session.add(ProcessLease(id="finished-cli", host="here", pid=2, last_seen=seen))
    assert reconcile_abandoned(store.engine, LEASE) == 0
    assert "finished-cli" not in leases(store)
