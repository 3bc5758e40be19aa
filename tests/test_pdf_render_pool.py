"""generate-pdf's render pool through a real uvicorn socket and real worker processes:
a client that leaves takes its render with it, a full queue answers 503 at once,
and one caller cannot hold every worker.

The heavy slide is a 20,000-row table: about 40 s of WeasyPrint layout on one
core. SOCIALGEN_PDF_TIMEOUT is raised so that only the behaviour under test can
stop it; every worker is killed when a test ends.
"""

from __future__ import annotations

import json
import multiprocessing
import socket
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpx
import pytest

from socialgen.app.runtime import Runtime
from socialgen.http.server import create_app
from tests.carousel_support import PDF_URL
from tests.conftest import Store, serving

HEAVY = "<table>" + "<tr><td>x</td></tr>" * 20000 + "</table>"
ONE_LINE = "<p>One line</p>"
WORKER_NAME = "socialgen-pdf"


@dataclass
class PdfServer:
    base_url: str
    store: Store
    sockets: list[socket.socket] = field(default_factory=list)

    def caller(self, name: str) -> str:
        """An API key bound to a workspace of its own: a caller of its own."""
        return self.store.api_key(self.store.workspace(name))

    def send_heavy(self, key: str) -> socket.socket:
        """A raw client that sends the heavy render and reads nothing (yet)."""
        body = json.dumps({"slidesHtml": [HEAVY]}).encode()
        address = urlsplit(self.base_url)
        client = socket.create_connection((address.hostname, address.port))
        head = (
            f"POST {PDF_URL} HTTP/1.1\r\nHost: {address.netloc}\r\nx-api-key: {key}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        client.sendall(head.encode() + body)
        self.sockets.append(client)
        return client

    def post(self, key: str, html: str, timeout: float) -> httpx.Response:
        return httpx.post(
            self.base_url + PDF_URL,
            headers={"x-api-key": key},
            json={"slidesHtml": [html]},
            timeout=timeout,
        )


@pytest.fixture
def pdf_server(
    request: pytest.FixtureRequest, store: Store, monkeypatch: pytest.MonkeyPatch
) -> Iterator[PdfServer]:
    """A live server whose Runtime has the pool's settings (2 workers, 120 s, the
    default queue and share; a test overrides some with indirect parametrization)."""
    monkeypatch.delenv("SOCIALGEN_PDF_QUEUE", raising=False)
    monkeypatch.delenv("SOCIALGEN_PDF_PER_CALLER", raising=False)
    options = {"pdf_timeout": 120.0, "pdf_workers": 2, **getattr(request, "param", {})}
    runtime = Runtime(options=options)  # a fresh Runtime: a pool of its own, these settings
    with serving(create_app(runtime)) as live:
        server = PdfServer(live.base_url, store)
        yield server
        for client in server.sockets:
            client.close()
    runtime.held.close()  # no heavy render outlives its test
    for process in multiprocessing.active_children():
        if process.name == WORKER_NAME:
            process.kill()


def _cpu(pid: int) -> tuple[str, int] | None:
    """A process's state letter (R: running or waiting for a core) and its CPU ticks."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return fields[0], int(fields[11]) + int(fields[12])  # state, utime + stime


def busy_workers(interval: float = 0.5) -> list[int]:
    """Worker processes of this process that are rendering: runnable, or using CPU
    during `interval`. (The machine may be loaded: CPU used is no measure, an idle
    worker sleeps on its pipe and uses none.)"""
    pids = [p.pid for p in multiprocessing.active_children() if p.name == WORKER_NAME and p.pid]
    before = {pid: _cpu(pid) for pid in pids}
    time.sleep(interval)
    busy = []
    for pid, start in before.items():
        end = _cpu(pid)
        if (
            start is not None
            and end is not None
            and ("R" in (start[0], end[0]) or end[1] > start[1])
        ):
            busy.append(pid)
    return busy


def wait_for_busy(count: int, deadline_seconds: float) -> list[int]:
    deadline = time.monotonic() + deadline_seconds
    while len(busy := busy_workers()) != count and time.monotonic() < deadline:
        pass
    return busy


def test_clients_that_leave_take_their_renders_with_them(pdf_server: PdfServer) -> None:
    # Two callers, two heavy renders each (one running, one waiting per caller), then
    # all four clients hang up: what measured 58.9 s for the next one-line render.
    keys = [pdf_server.caller("Left A"), pdf_server.caller("Left B")]
    clients = [pdf_server.send_heavy(key) for key in keys * 2]
    time.sleep(3)  # the workers start (WeasyPrint's import) and the renders begin
    assert len(wait_for_busy(2, 20)) == 2, "the heavy renders should be running by now"
    for client in clients:
        client.close()
    # The workers of the abandoned renders are killed, not left to finish (their
    # replacements import WeasyPrint for a second or so, then sleep on their pipes).
    assert wait_for_busy(0, 15) == []
    # No clock here: had an abandoned render kept its worker, the check above fails;
    # had its slot not been freed, this render waits past its timeout and raises.
    response = pdf_server.post(pdf_server.caller("Stays"), ONE_LINE, timeout=30)
    assert response.status_code == 200, response.text
    assert response.content.startswith(b"%PDF")
    # Nothing keeps rendering (a worker that started for this request may finish
    # warming up for a moment; an abandoned heavy render would run for a minute).
    assert wait_for_busy(0, 5) == []
    # The callers that left hold nothing any more: their share is whole again.
    for key in keys:
        assert pdf_server.post(key, ONE_LINE, timeout=30).status_code == 200


@pytest.mark.parametrize("pdf_server", [{"pdf_queue": 1}], indirect=True)
def test_a_full_queue_answers_503_with_retry_after_at_once(pdf_server: PdfServer) -> None:
    # Two callers fill both workers, a third waits: the queue (1) is full.
    for name in ("Full A", "Full B", "Full C"):
        pdf_server.send_heavy(pdf_server.caller(name))
        time.sleep(0.5)
    time.sleep(1)
    response = pdf_server.post(pdf_server.caller("Full D"), ONE_LINE, timeout=5)
    assert response.status_code == 503
    # At once: the answer came while both heavy renders still run (each takes ~40 s),
    # not when a worker came free.
    assert len(busy_workers()) == 2
    assert response.headers["content-type"] == "application/json"
    assert int(response.headers["retry-after"]) >= 1
    body = response.json()
    assert body["success"] is False
    assert body["message"].startswith(
        "The PDF renderer is busy: 2 PDF renders running and 1 waiting"
    )
    assert body["message"].endswith(f"try again in {response.headers['retry-after']} s")


def test_one_caller_cannot_starve_another(pdf_server: PdfServer) -> None:
    greedy = pdf_server.caller("Greedy")
    pdf_server.send_heavy(greedy)
    time.sleep(0.5)
    pdf_server.send_heavy(greedy)  # waits: one caller runs on one of the two workers
    time.sleep(1.5)
    # A third render from the same caller is over its share (2 running or waiting).
    response = pdf_server.post(greedy, ONE_LINE, timeout=5)
    assert response.status_code == 503
    assert busy_workers() != [], "the 503 must not wait for the greedy render to end"
    assert int(response.headers["retry-after"]) >= 1
    assert response.json()["message"].startswith("You already have 2 PDF renders running")
    # Anyone else still gets the other worker.
    response = pdf_server.post(pdf_server.caller("Patient"), ONE_LINE, timeout=30)
    assert response.status_code == 200, response.text
    # Not queued behind the greedy caller: its first render (~40 s) still runs.
    assert busy_workers() != [], "the other caller's render waited for the greedy one"


def _noise_png(side: int) -> str:
    """A PNG of random pixels (it does not compress), as a data: URI."""
    import base64
    import io
    import os

    from PIL import Image

    image = Image.frombytes("RGB", (side, side), os.urandom(side * side * 3))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


@pytest.mark.parametrize("pdf_server", [{"pdf_workers": 1}], indirect=True)
def test_a_pdf_larger_than_a_pipe_buffer_comes_back_from_the_same_worker_twice(
    pdf_server: PdfServer,
) -> None:
    """The answer crosses the worker's pipe in many reads, and the next job in many
    writes. uvicorn runs on uvloop, whose reader on the pipe left it non-blocking: the
    answer then failed with EAGAIN, a 422 for any PDF over 64 KB."""
    key = pdf_server.caller("big pdfs")
    html = f'<img src="{_noise_png(300)}" style="width:100%">'
    for _ in range(2):
        response = pdf_server.post(key, html, timeout=60)
        assert response.status_code == 200, response.text
        assert response.content.startswith(b"%PDF")
        assert len(response.content) > 200_000  # several pipe buffers
