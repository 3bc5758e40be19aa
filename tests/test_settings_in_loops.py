"""Loops that must outlive a config file that cannot be read for a moment (half edited
by hand, replaced by a folder), or a store away for a moment: the quota lease keeper
goes on (its length read once, with the Runtime's settings) instead of dying, which
would let the lease lapse; the publishing scheduler runs on the settings its app was
started with and never reads the file again."""

from __future__ import annotations

import asyncio
import threading
import weakref
from pathlib import Path

import pytest

from socialgen.app.runtime import Runtime
from socialgen.publishing.outbox import scheduler
from socialgen.store import leases


def unreadable_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "config.toml"
    folder.mkdir()  # a folder where the file should be: reading it fails
    monkeypatch.setenv("SOCIALGEN_CONFIG", str(folder))


def test_the_lease_keeper_keeps_going_when_a_refresh_fails_and_stops_at_close() -> None:
    """The lease's length is read once, with the Runtime's settings; the keeper then
    only refreshes: a round that fails (the store away for a moment) is logged and the
    next one tries again, or the lease would lapse. close() ends it."""
    lease = leases.Lease(seconds=1.0)
    rounds = threading.Semaphore(0)

    def refresh() -> None:
        rounds.release()
        raise OSError("the store is away")

    lease.refresh = refresh  # type: ignore[method-assign]
    stop = threading.Event()
    keeper = threading.Thread(target=leases._keep_leases, args=(weakref.ref(lease), stop))
    keeper.start()
    assert rounds.acquire(timeout=5) and rounds.acquire(timeout=5)  # goes on failing
    stop.set()
    keeper.join(timeout=5)
    assert not keeper.is_alive()


def test_a_runtime_dropped_without_close_ends_its_keeper() -> None:
    lease = leases.Lease(seconds=1.0)
    stop = threading.Event()
    keeper = threading.Thread(target=leases._keep_leases, args=(weakref.ref(lease), stop))
    keeper.start()
    del lease
    keeper.join(timeout=5)
    assert not keeper.is_alive()


def test_the_scheduler_runs_on_the_settings_it_was_handed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scheduler gets the app's settings at start (the Runtime's) and never reads
    the config file again: one that becomes unreadable changes nothing."""
    monkeypatch.setenv("SOCIALGEN_SCHEDULER_POLL", "0.25")
    runtime = Runtime()
    assert runtime.settings.scheduler_poll.total_seconds() == 0.25  # read now, and kept
    runtime.store_settings  # noqa: B018 (read as serve reads it: it opened the store first)
    monkeypatch.delenv("SOCIALGEN_SCHEDULER_POLL")
    unreadable_config(tmp_path, monkeypatch)
    pauses: list[float] = []
    stop = threading.Event()

    async def sleep(seconds: float) -> None:
        pauses.append(seconds)
        if len(pauses) == 2:
            stop.set()

    monkeypatch.setattr(scheduler, "_tick", lambda *args: None)
    monkeypatch.setattr(scheduler.asyncio, "sleep", sleep)
    asyncio.run(scheduler._outbox_loop(None, None, stop, runtime))  # type: ignore[arg-type]
    assert pauses == [0.25, 0.25]
