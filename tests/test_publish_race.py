"""Exactly once across processes: real `socialgen serve` processes (their schedulers)
and a `publish-due` over one store (PostgreSQL with SOCIALGEN_TEST_DATABASE_URL, else
one SQLite file), publishing to a recording network on 127.0.0.1 that counts every
call on its own side (tests/fakes/recording_network.py). And a `serve` SIGKILLed
after the network accepted a post: after a restart the post exists once."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, update
from sqlmodel import col, select

from socialgen.kit.clock import utcnow
from socialgen.publishing.outbox.service import idempotency_key
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import Publication
from tests.conftest import Store
from tests.fakes.recording_network import DELAY_ENV, RecordingServer
from tests.outbox_support import add_account, due_publication
from tests.race_cli import COMMAND as RACE_COMMAND

ROOT = Path(__file__).resolve().parents[1]
# `socialgen` with the recording network in its Runtime (no environment variable
# names a module to import).
SOCIALGEN = RACE_COMMAND


@pytest.fixture
def recorder() -> Iterator[RecordingServer]:
    with RecordingServer() as server:
        yield server


def env(**extra: str) -> dict[str, str]:
    """The test's store (SOCIALGEN_HOME, SOCIALGEN_DATABASE_URL are in os.environ),
    this checkout on the path (tests.race_cli, and its socialgen), and a quick scheduler."""
    return {
        **os.environ,
        "PYTHONPATH": os.pathsep.join((str(ROOT), str(ROOT / "src"))),
        "SOCIALGEN_SCHEDULER_POLL": "0.2",
        **extra,
    }


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start_serve(environment: dict[str, str], *, wait: bool = True) -> subprocess.Popen[bytes]:
    port = free_port()
    log = tempfile.TemporaryFile()  # noqa: SIM115  (open while the process runs)
    process = subprocess.Popen(
        [*SOCIALGEN, "serve", "--port", str(port)],
        env=environment,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=log,
    )
    deadline = time.monotonic() + 30
    while wait and time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return process
        if process.poll() is not None:
            log.seek(0)
            raise AssertionError(f"serve exited at start: {log.read().decode()[-2000:]}")
        time.sleep(0.1)
    if not wait:  # the victim may be killed before its port could be seen
        return process
    process.kill()
    raise AssertionError("serve did not start")


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def published_count(store: Store) -> int:
    with read_session(store.engine) as session:
        return int(
            session.exec(select(func.count()).where(col(Publication.state) == "published")).one()
        )


def wait_published(store: Store, expected: int, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while published_count(store) < expected and time.monotonic() < deadline:
        time.sleep(0.2)
    if published_count(store) != expected:
        with read_session(store.engine) as session:
            rows = session.exec(select(Publication).where(col(Publication.state) != "published"))
            print(
                [
                    (r.state, r.attempts, r.claimed_by, r.message, r.due_at, r.next_attempt_at)
                    for r in rows
                ]
            )
    assert published_count(store) == expected


def test_two_serves_and_publish_due_publish_each_post_once(
    store: Store, recorder: RecordingServer
) -> None:
    account = add_account(store, "@race.test", "racenet", service_url=recorder.url)
    later = utcnow() + timedelta(hours=1)
    keys = {
        idempotency_key(due_publication(store, account, due=later, content=f"race {n}")[1])
        for n in range(50)
    }
    # Each send takes 0.2 s: one process cannot drain the 50 before the others claim.
    environment = env(**{DELAY_ENV: "0.2"})
    serves = [start_serve(environment), start_serve(environment)]
    try:
        # Due only once every process is up (a loaded machine starts them slowly):
        # then they race.
        due = utcnow() + timedelta(seconds=1)
        with transaction(store.engine) as session:
            session.connection().execute(update(Publication).values(due_at=due))
        time.sleep(max(0.0, (due - utcnow()).total_seconds()))
        cron = subprocess.run(
            [*SOCIALGEN, "publish-due", "--json"],
            env=environment,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert cron.returncode == 0, cron.stderr
        wait_published(store, 50, 30)
    finally:
        for process in serves:
            stop(process)
    assert set(recorder.created) == keys
    assert all(recorder.sends[key] == 1 for key in keys), recorder.sends.most_common(3)
    assert len(recorder.senders) >= 2, recorder.senders  # they did compete


def test_serve_killed_after_the_network_accepted_posts_once(
    store: Store, recorder: RecordingServer
) -> None:
    account = add_account(store, "@crash.test", "racenet", service_url=recorder.url)
    _, pid = due_publication(store, account, due=utcnow() + timedelta(seconds=1))
    key = idempotency_key(pid)
    recorder.kill_on.add(key)
    environment = env(SOCIALGEN_PUBLISH_CLAIM="2")  # a dead worker's claim ends soon
    victim = start_serve(environment, wait=False)
    try:
        assert victim.wait(timeout=20) == -signal.SIGKILL
    finally:
        stop(victim)
    with read_session(store.engine) as session:
        row = session.get(Publication, pid)
        assert row is not None and row.state == "publishing"  # the answer was never written
    assert recorder.sends[key] == 1
    restarted = start_serve(environment)
    try:
        wait_published(store, 1, 20)
    finally:
        stop(restarted)
    assert recorder.sends[key] == 2  # sent again, with the same key ...
    assert len(recorder.created) == 1  # ... and the network has the post once
