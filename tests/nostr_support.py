"""A real Nostr relay for the publishing tests: PyPI's `nostr-relay` (1.14, SQLite) run
as its own process on a free 127.0.0.1 port, once per test session, with
tests/nostr/relay.yaml. It checks what public relays check: a tampered signature is
refused ("invalid: Bad signature"), a note it has already is a "duplicate:".

    relay.url                          ws://127.0.0.1:PORT
    relay.events({"kinds": [1]})       what the relay holds, read with our own REQ
    relay.send(event)                  ["OK", id, accepted, words], as the relay says it

`LostAnswers(relay)` sits in front of it and forwards everything both ways but drops
the relay's next `drop` OK answers: the note is stored, its answer never arrives (a
connection cut after sending); with `refuse` set it answers every EVENT itself with
those words and keeps it (a "rate-limited:" relay). `down_url()` is a relay address
nobody listens on.

`adapter_for(key, *relay_urls)`, `new_key()` and `outgoing(text, ...)` build what the
tests hand the adapter.

nostr-relay is found in this interpreter, or else in tests/nostr/.venv (made with
`python -m venv tests/nostr/.venv && tests/nostr/.venv/bin/pip install nostr-relay==1.14`
when its pins ever clash with ours).
"""

from __future__ import annotations

import importlib.util
import json
import secrets
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect
from websockets.sync.server import Server, ServerConnection, serve

from socialgen.publishing.networks.base import AccountCredentials, NetworkSettings, OutgoingPost
from socialgen.publishing.networks.nostr import adapter as nostr
from socialgen.publishing.networks.nostr.keys import Signer, signer_from

HERE = Path(__file__).resolve().parent
CONFIG = HERE / "nostr" / "relay.yaml"
OWN_VENV = HERE / "nostr" / ".venv" / "bin" / "python"
STARTUP_TIMEOUT = 40.0

SETTINGS = NetworkSettings(allow_private_urls=True, network_timeout=2.0)
PARAGRAPH = ("Small teams ship weekly because feedback beats a long plan. " * 30).strip()
THREAD = "\n\n".join([PARAGRAPH] * 6)  # 1,799 characters a paragraph: three notes


def new_key() -> Signer:
    return signer_from(secrets.token_hex(32))


def adapter_for(
    signer: Signer, *urls: str, settings: NetworkSettings = SETTINGS, timeout: float = 2.0
) -> nostr.NostrAdapter:
    credentials = AccountCredentials("nostr", ",".join(urls), signer.npub, {"nsec": signer.nsec})
    return nostr.NostrAdapter(credentials, settings, timeout=timeout)


def outgoing(text: str, **fields: Any) -> OutgoingPost:
    return OutgoingPost(publication_id="pub-1", idempotency_key="key-1", text=text, **fields)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def down_url() -> str:
    """A relay address on a port nobody listens on (connection refused)."""
    return f"ws://127.0.0.1:{free_port()}"


def _python() -> str:
    if importlib.util.find_spec("nostr_relay") is not None:
        return sys.executable
    if OWN_VENV.exists():
        return str(OWN_VENV)
    raise RuntimeError(
        "nostr-relay is not installed: `.venv/bin/pip install nostr-relay==1.14` (or make "
        "tests/nostr/.venv, see tests/nostr_support.py)"
    )


def ask(url: str, message: list[Any], until: str, timeout: float = 10.0) -> list[list[Any]]:
    """Send one NIP-01 message and collect the answers up to the first of kind `until`."""
    answers: list[list[Any]] = []
    with connect(url, open_timeout=timeout, proxy=None) as ws:
        ws.send(json.dumps(message))
        deadline = time.monotonic() + timeout
        while True:
            answer = json.loads(ws.recv(timeout=max(0.01, deadline - time.monotonic())))
            answers.append(answer)
            if answer[0] in (until, "CLOSED", "NOTICE"):
                return answers


class NostrRelay:
    def __init__(self, url: str, process: subprocess.Popen[bytes], log: Path) -> None:
        self.url = url
        self.process = process
        self.log = log

    def events(self, *filters: dict[str, Any]) -> list[dict[str, Any]]:
        answers = ask(self.url, ["REQ", "probe", *filters], "EOSE")
        assert answers[-1][0] == "EOSE", answers[-1]
        return [answer[2] for answer in answers if answer[0] == "EVENT"]

    def notes_of(self, pubkey: str) -> list[dict[str, Any]]:
        return self.events({"authors": [pubkey], "kinds": [1]})

    def send(self, event: dict[str, Any]) -> list[Any]:
        return ask(self.url, ["EVENT", event], "OK")[-1]


def start(workdir: Path) -> NostrRelay:
    port = free_port()
    config = workdir / "relay.yaml"
    text = CONFIG.read_text(encoding="utf-8")
    config.write_text(
        text.replace("{database}", (workdir / "relay.sqlite3").as_posix()).replace(
            "{port}", str(port)
        ),
        encoding="utf-8",
    )
    log = workdir / "relay.log"
    command = "from nostr_relay.cli import main; main()"
    with log.open("wb") as out:  # the child keeps its own handle
        process = subprocess.Popen(
            [_python(), "-c", command, "-c", str(config), "serve", "--use-uvicorn"],
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=workdir,
        )
    url = f"ws://127.0.0.1:{port}"
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if ask(url, ["REQ", "ready", {"limit": 1}], "EOSE", timeout=2)[-1][0] == "EOSE":
                return NostrRelay(url, process, log)
        except (OSError, ConnectionClosed, TimeoutError, ValueError):
            time.sleep(0.2)
    stop(process)
    raise RuntimeError(f"nostr-relay did not start on {url}:\n{log.read_text()[-2000:]}")


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@pytest.fixture(scope="session")
def nostr_relay(tmp_path_factory: pytest.TempPathFactory) -> Iterator[NostrRelay]:
    # A probed free port may be taken before the relay binds it: try a new one.
    for attempt in range(3):
        try:
            relay = start(tmp_path_factory.mktemp("nostr_relay"))
            break
        except RuntimeError:
            if attempt == 2:
                raise
    try:
        yield relay
    finally:
        stop(relay.process)


class LostAnswers:
    """A relay in front of `upstream` that loses the next `drop` OK answers (the event
    reaches the real relay; the client never hears back). `url` is its address."""

    def __init__(self, upstream: NostrRelay, drop: int = 1, refuse: str = "") -> None:
        self.upstream = upstream
        self.drop = drop
        self.refuse = refuse
        self.events_seen = 0
        self._lock = threading.Lock()
        self._server: Server | None = None
        self.url = ""

    def __enter__(self) -> LostAnswers:
        self._server = serve(self._handle, "127.0.0.1", 0)
        self.url = f"ws://127.0.0.1:{self._server.socket.getsockname()[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()

    def _handle(self, client: ServerConnection) -> None:
        with connect(self.upstream.url, proxy=None) as upstream:
            back = threading.Thread(target=self._back, args=(upstream, client), daemon=True)
            back.start()
            try:
                for message in client:
                    if isinstance(message, str) and message.startswith('["EVENT"'):
                        with self._lock:
                            self.events_seen += 1
                        if self.refuse:
                            event_id = json.loads(message)[1]["id"]
                            client.send(json.dumps(["OK", event_id, False, self.refuse]))
                            continue
                    upstream.send(message)
            except ConnectionClosed:
                pass

    def _back(self, upstream: ClientConnection, client: ServerConnection) -> None:
        try:
            for message in upstream:
                if isinstance(message, str) and message.startswith('["OK"'):
                    with self._lock:
                        if self.drop > 0:
                            self.drop -= 1
                            continue
                client.send(message)
        except ConnectionClosed:
            pass
