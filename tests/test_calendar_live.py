"""Calendars through a real uvicorn socket: a video source, and a client that leaves."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from sqlalchemy import func
from sqlmodel import select

from socialgen.http.server import create_app
from socialgen.store.engine import read_session
from socialgen.store.tables import Post
from socialgen.workspaces.service import get_usage
from tests.conftest import LiveServer, Store, serving
from tests.doubles.scripted_model import Streamed
from tests.generation_support import parse_sse
from tests.scripted_support import ScriptedAI
from tests.test_calendar_api import check_calendar_contract

URL = "/api/v1/content-calendar/generate"
VTT = """WEBVTT

00:00:00.000 --> 00:00:04.000
Small teams ship every week because waiting is expensive.

00:00:04.000 --> 00:00:08.000
Every release teaches you something about your users.
"""
PAGE = """<!doctype html><html><head><title>Shipping weekly, a talk</title>
<meta name="description" content="A talk about release cadence."></head><body>
<video controls><source src="/talk.mp4" type="video/mp4">
<track kind="captions" src="/talk.en.vtt" srclang="en" label="English"></video></body></html>"""


@pytest.fixture
def video_site(allow_private_urls: None) -> Iterator[str]:
    """The video's site on 127.0.0.1, allowed: ask for it before the server."""
    files = {"/talk": (PAGE, "text/html"), "/talk.en.vtt": (VTT, "text/vtt")}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body, kind = files.get(self.path, ("not found", "text/plain"))
            data = body.encode()
            self.send_response(200 if self.path in files else 404)
            self.send_header("Content-Type", f"{kind}; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *_args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def used(store: Store) -> int:
    with read_session(store.engine) as session:
        return get_usage(session, store.workspace_id).posts_used


def posts(store: Store) -> int:
    return int(store.scalar(select(func.count()).select_from(Post)))


def test_a_calendar_from_a_video_s_captions(
    video_site: str, ai_live_server: LiveServer, store: Store, scripted_ai: ScriptedAI
) -> None:
    response = httpx.post(
        f"{ai_live_server.base_url}{URL}/{store.workspace_id}",
        headers={"x-api-key": store.api_key()},
        json={"calendarLength": 7, "youtubeUrl": f"{video_site}/talk"},
        timeout=60,
    )
    events = [e for e in parse_sse(response.text) if e.name != "keepalive"]
    check_calendar_contract(events)
    processing = [
        (e.data["type"], e.data["status"]) for e in events if e.name == "source_processing"
    ]
    assert processing == [("youtube", "extracting"), ("youtube", "complete")]
    assert events[-1].name == "calendar_complete", events[-1]
    assert events[-1].data["summary"]["generated"] == 7
    plan = scripted_ai.model.calls_for("calendar_themes")[0]
    assert "waiting is expensive" in plan.prompt  # grounded in the captions


def test_a_client_that_leaves_keeps_finished_days_and_refunds_the_rest(
    store: Store, scripted_ai: ScriptedAI
) -> None:
    scripted_ai.post_reply = lambda _call: Streamed("A short post.", chunk_delay=0.02)
    runtime = scripted_ai.runtime().derived(batch_concurrency=1)  # one day at a time
    with (
        serving(create_app(runtime)) as server,
        httpx.stream(
            "POST",
            f"{server.base_url}{URL}/{store.workspace_id}",
            headers={"x-api-key": store.api_key()},
            json={"calendarLength": 30, "prompt": "remote work"},
            timeout=60,
        ) as response,
    ):
        seen = ""
        for text in response.iter_text():
            seen += text
            if seen.count('"status":"completed"') >= 2:
                break  # the client leaves after two days are saved
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and used(store) != posts(store):
        time.sleep(0.1)
    kept = posts(store)
    assert 2 <= kept < 30
    assert used(store) == kept  # the rest of the 30 reserved posts were given back
    time.sleep(0.5)
    assert posts(store) == kept  # nothing more is written after the client left
