"""Loops that must outlive a config file that cannot be read for a moment (half edited
by hand, replaced by a folder): the quota lease keeper keeps its last good setting
instead of dying, which would let the lease lapse; the publishing scheduler runs on the
settings its app was started with and never reads the file again."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from socialgen.publishing.outbox import scheduler
from socialgen.runtime import Runtime
from socialgen.store import leases


class Stop(Exception):
    """Raised by the patched sleep to end a loop after a few rounds."""


def unreadable_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "config.toml"
    folder.mkdir()  # a folder where the file should be: reading it fails
    monkeypatch.setenv("SOCIALGEN_CONFIG", str(folder))


def test_the_lease_keeper_keeps_going_when_the_config_cannot_be_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    unreadable_config(tmp_path, monkeypatch)
    with pytest.raises(Exception, match="config"):
        leases.lease_seconds()  # the setting itself does fail
    pauses: list[float] = []

    def sleep(seconds: float) -> None:
        pauses.append(seconds)
        if len(pauses) == 3:
            raise Stop

    monkeypatch.setattr(leases.time, "sleep", sleep)
    with pytest.raises(Stop):
        leases._keep_leases()
    assert pauses == [1.0, 1.0, 1.0]  # the default lease's tick, every round


def test_the_scheduler_runs_on_the_settings_it_was_handed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scheduler gets the app's settings at start (the Runtime's) and never reads
    the config file again: one that becomes unreadable changes nothing."""
    monkeypatch.setenv("SOCIALGEN_SCHEDULER_POLL", "0.25")
    settings = Runtime().settings
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
    asyncio.run(scheduler._outbox_loop(None, None, stop, settings))  # type: ignore[arg-type]
    assert pauses == [0.25, 0.25]
