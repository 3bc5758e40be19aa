"""Exactly once on a real network: two real `socialgen serve` processes (their
schedulers) and `socialgen publish-due` passes (one after the other) on one
PostgreSQL race over 30 posts due at once to a mastodon-mock account. Counted on the
mock's side: each status exists once (by its text), and the mock received exactly 30
status requests, so no post was even sent twice (a repeat would be hidden by
Mastodon's Idempotency-Key). The requests are counted by a rule of the mock's fault
injection (a latency of 0). PostgreSQL only (SOCIALGEN_TEST_DATABASE_URL): on SQLite
the claims are serialised in one file; test_publish_race.py runs there too.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import IO

import httpx
import pytest
from sqlalchemy import update
from sqlmodel import select

from socialgen.kit.clock import iso, utcnow
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import Post, Publication
from tests.conftest import BACKEND, Store
from tests.mastodon_support import MastodonMock, free_port
from tests.mastodon_support import mastodon_mock as mastodon_mock  # the fixture
from tests.publish_e2e_support import Witness
from tests.publish_e2e_support import witness as witness  # the fixture

pytestmark = pytest.mark.skipif(
    BACKEND != "postgresql",
    reason="several processes on one store: set SOCIALGEN_TEST_DATABASE_URL to PostgreSQL",
)

ROOT = Path(__file__).resolve().parents[1]
SOCIALGEN = str(Path(sys.executable).with_name("socialgen"))
POSTS = 30
BUDGET = 100_000  # the latency rule's count: what is left of it tells how many requests came
# The mock's latency rule counts every status request. A delay would widen the race,
# but mastodon-mock (async endpoints on blocking SQLite) stalls for up to 30 s when
# some 20-30 requests are under way at once: they go through at once.
LATENCY_MS = 0
DUE_IN = 3.0  # seconds from the moment the servers are up to the due time


def start_serve(environment: dict[str, str], log: IO[bytes]) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    process = subprocess.Popen(
        [SOCIALGEN, "serve", "--port", str(port)],
        env=environment,
        cwd=ROOT,
        stdout=log,
        stderr=log,
    )
    return process, port


def wait_serving(process: subprocess.Popen[bytes], port: int, log: IO[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log.seek(0)
            raise AssertionError(f"serve exited at start: {log.read().decode()[-2000:]}")
        try:
            httpx.get(f"http://127.0.0.1:{port}/", timeout=1)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise AssertionError("serve did not start")


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def latency_rule(server: MastodonMock) -> str:
    """Every status request waits LATENCY_MS and is counted (mastodon_support's
    `fault` helper makes answers, not delays: the rule is made here)."""
    body = {
        "match": {"methods": ["POST"], "path": "/api/v1/statuses"},
        "effect": {"type": "latency", "delay_ms": LATENCY_MS},
        "count": BUDGET,
    }
    answer = httpx.post(f"{server.base_url}/api/v1/_mock/faults", json=body, timeout=10)
    answer.raise_for_status()
    return str(answer.json()["id"])


def status_requests(server: MastodonMock, rule: str) -> int:
    (left,) = [r["remaining"] for r in server.faults_left() if r["id"] == rule]
    return BUDGET - int(left)


def test_two_serves_and_publish_due_post_each_status_once(
    store: Store,
    mastodon_mock: MastodonMock,
    witness: Witness,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")
    user = mastodon_mock.new_user("race")
    witness.secret(user.token)
    account = witness.cli_json(
        "accounts", "add", "mastodon", "--instance", mastodon_mock.base_url, "--token-stdin",
        stdin=user.token + "\n",
    )["id"]  # fmt: skip
    witness.stored_secrets(store)
    later = iso(utcnow() + timedelta(hours=1))
    assert later is not None
    texts = [f"Race to the instance, post {n}." for n in range(POSTS)]
    for text in texts:
        witness.cli("posts", "schedule", store.post(text).id, "--at", later, "--to", account)

    environment = {**os.environ, "SOCIALGEN_SCHEDULER_POLL": "0.2"}
    with tempfile.TemporaryFile() as log_a, tempfile.TemporaryFile() as log_b:
        started = [start_serve(environment, log) for log in (log_a, log_b)]
        rule = ""
        try:
            for (process, port), log in zip(started, (log_a, log_b), strict=True):
                wait_serving(process, port, log)
            rule = latency_rule(mastodon_mock)
            due_soon(store)  # the hour passes: all due at once, a few seconds from now
            passes = cron_until(environment, lambda: status_requests(mastodon_mock, rule) >= POSTS)
            settled = wait_published(store, seconds=15)
            time.sleep(0.5)  # a late duplicate would arrive now
        finally:
            for process, _ in started:
                stop(process)
            sent = status_requests(mastodon_mock, rule) if rule else 0
            mastodon_mock.clear_faults()
            for name, log in (("serve A", log_a), ("serve B", log_b)):
                log.seek(0)
                witness.saw(name, log.read().decode(errors="replace"))
    for out, err in passes:
        witness.saw("publish-due (stdout)", out)
        witness.saw("publish-due (stderr)", err)

    assert settled == {"published": POSTS}, settled
    counted = Counter(status["content"] for status in mastodon_mock.statuses(user))
    assert sorted(counted) == sorted(f"<p>{text}</p>" for text in texts)
    assert set(counted.values()) == {1}, counted.most_common(3)
    assert sent == POSTS  # not one status request more: no post was even sent twice
    by_cron = sum(json.loads(out)["published"] for out, _ in passes)
    assert by_cron < POSTS  # the schedulers took their part (cron's share is luck's)
    assert witness.cli_json("publish-due")["published"] == 0  # nothing left behind
    listed = witness.cli_json("posts", "recent")["posts"]
    assert [p["status"] for p in listed] == ["published"] * POSTS


def wait_published(store: Store, seconds: float) -> dict[str, int]:
    """Publication states once all are published (or the time is up)."""
    deadline = time.monotonic() + seconds
    while True:
        with read_session(store.engine) as session:
            states = Counter(session.exec(select(Publication.state)).all())
        if states == {"published": POSTS} or time.monotonic() > deadline:
            return dict(states)
        time.sleep(0.2)


def due_soon(store: Store) -> None:
    moment = utcnow() + timedelta(seconds=DUE_IN)
    with transaction(store.engine) as session:
        session.connection().execute(update(Publication).values(due_at=moment))
        session.connection().execute(update(Post).values(scheduled_at=moment))


def cron_until(environment: dict[str, str], done: Callable[[], bool]) -> list[tuple[str, str]]:
    """`publish-due` passes, one after the other (as a tight cron would), until `done`;
    their outputs. Each must exit 0: nothing failed. One at a time: several at once
    (8 requests each, beside the schedulers' 16) push mastodon-mock past what it takes."""
    passes = []
    deadline = time.monotonic() + 20
    while not done() and time.monotonic() < deadline:
        cron = subprocess.run(
            [SOCIALGEN, "publish-due", "--json"],
            env=environment,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert cron.returncode == 0, cron.stdout + cron.stderr
        passes.append((cron.stdout, cron.stderr))
    return passes
