"""Quota reserved by a `socialgen serve` killed mid-stream comes back.

Real processes: `socialgen serve` subprocesses on the test's store, a fake
OpenAI-compatible provider whose drafts are slow (all but the first variation), and
SIGKILL while a batch streams. The batch reserved 5 posts and saved 1; once the
killed process's lease lapses, a restarted server, or another live server on the
same store, gives the other 4 back. A live server's own reservation is never taken.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from sqlmodel import func, select

from socialgen.store.engine import read_session
from socialgen.store.tables import Post, QuotaReservation
from socialgen.workspaces.quota_reconcile import reconcile_abandoned
from socialgen.workspaces.service import get_usage
from tests.conftest import Store
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.scripted_support import POST_TEXT

BASE = "/api/v1/ai-conversation"
LEASE_SECONDS = 2.0
FAST_VARIATION = "(Story-driven)"  # the first of the five: saved before the kill


@dataclass
class Serve:
    process: subprocess.Popen[bytes]
    base_url: str


def slow_drafts(body: dict[str, Any]) -> Reply:
    """Every draft but the first variation of the "alpha" batch takes a minute."""
    text = json.dumps(body)
    if FAST_VARIATION in text and "alpha topic" in text:
        return Reply(text=POST_TEXT)
    return Reply(text=POST_TEXT, first_delay=60)


@pytest.fixture
def provider() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(responder=slow_drafts) as fake:
        yield fake


@pytest.fixture
def start_serve(store: Store, provider: FakeOpenAI) -> Iterator[Callable[[], Serve]]:
    env = {
        **os.environ,
        **provider.env(),
        "SOCIALGEN_QUOTA_LEASE_SECONDS": str(LEASE_SECONDS),
        "SOCIALGEN_BATCH_CONCURRENCY": "5",
        "SOCIALGEN_KEEPALIVE_SECONDS": "0.5",
        "SOCIALGEN_TIMEOUT": "120",
    }
    started: list[subprocess.Popen[bytes]] = []

    def start() -> Serve:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        process = subprocess.Popen(
            [sys.executable, "-m", "socialgen", "serve", "--port", str(port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        started.append(process)
        base_url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(f"{base_url}/docs", timeout=2)
                return Serve(process, base_url)
            except httpx.TransportError:
                assert process.poll() is None, "socialgen serve exited"
                assert time.monotonic() < deadline, "socialgen serve did not start"
                time.sleep(0.1)

    yield start
    for process in started:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


@contextmanager
def batch_stream(serve: Serve, key: str, workspace_id: str, prompt: str) -> Iterator[Iterator[str]]:
    """POST generate-batch-posts; yields the stream's event names as they arrive."""
    with (
        httpx.Client(base_url=serve.base_url, timeout=httpx.Timeout(10, read=90)) as http,
        http.stream(
            "POST",
            f"{BASE}/generate-batch-posts/{workspace_id}",
            headers={"x-api-key": key, "Accept": "text/event-stream"},
            json={"userInput": prompt},
        ) as response,
    ):
        assert response.status_code == 200
        yield (line[6:].strip() for line in response.iter_lines() if line.startswith("event:"))


def used(store: Store) -> int:
    with read_session(store.engine) as session:
        return get_usage(session, store.workspace_id).posts_used


def saved_posts(store: Store) -> int:
    return int(store.scalar(select(func.count()).select_from(Post)))


def reservations(store: Store) -> int:
    return int(store.scalar(select(func.count()).select_from(QuotaReservation)))


def wait_for(check: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def kill_mid_batch(serve: Serve, store: Store, key: str, reserved_elsewhere: int = 0) -> None:
    """Stream an "alpha" batch on `serve` until its first post is saved; SIGKILL it."""
    with batch_stream(serve, key, store.workspace_id, "alpha topic") as events:
        for name in events:
            if name == "post_1_post_ids":
                break
        serve.process.send_signal(signal.SIGKILL)
        serve.process.wait(timeout=10)
    assert saved_posts(store) == 1
    assert used(store) == reserved_elsewhere + 5  # the 4 unwritten posts still reserved


def test_a_restarted_server_gives_back_what_a_killed_one_reserved(
    store: Store, start_serve: Callable[[], Serve]
) -> None:
    key = store.api_key()
    kill_mid_batch(start_serve(), store, key)
    start_serve()
    assert wait_for(lambda: used(store) == saved_posts(store), 8 * LEASE_SECONDS), (
        f"postsUsed stayed {used(store)} with {saved_posts(store)} post(s) saved"
    )
    assert used(store) == 1
    assert reservations(store) == 0


def test_a_live_server_gives_back_a_killed_peers_quota_and_keeps_its_own(
    store: Store, start_serve: Callable[[], Serve]
) -> None:
    key = store.api_key()
    doomed, survivor = start_serve(), start_serve()
    with ExitStack() as open_streams:
        # The survivor's batch is under way (all five drafts slow): 5 posts reserved.
        beta = open_streams.enter_context(
            batch_stream(survivor, key, store.workspace_id, "beta topic")
        )
        # Keep-alives may come first while the server imports the provider client.
        assert next(name for name in beta if name != "keepalive") == "batch_progress"
        kill_mid_batch(doomed, store, key, reserved_elsewhere=5)

        # The survivor's periodic reconcile gives back the dead peer's 4 posts ...
        assert wait_for(lambda: used(store) == 1 + 5, 8 * LEASE_SECONDS), (
            f"postsUsed stayed {used(store)}"
        )
        # ... and nobody takes the survivor's own, however long it runs.
        time.sleep(3 * LEASE_SECONDS)
        assert reconcile_abandoned(store.engine, LEASE_SECONDS) == 0
        assert used(store) == 1 + 5
        assert reservations(store) == 1
    # The client leaves: the survivor gives its 5 back itself.
    assert wait_for(lambda: used(store) == 1, 30), f"postsUsed stayed {used(store)}"
    assert reservations(store) == 0
