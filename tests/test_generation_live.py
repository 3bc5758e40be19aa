"""Generation streams through a real uvicorn socket: streaming as written, and a
client that goes away cancels its generation."""

from __future__ import annotations

import time

import httpx
from sqlalchemy import func
from sqlmodel import select

from socialgen.store.engine import read_session
from socialgen.store.tables import Post
from socialgen.workspaces.service import get_usage
from tests.conftest import LiveServer, Store
from tests.doubles.scripted_model import Streamed
from tests.generation_support import check_contract, parse_sse
from tests.scripted_support import POST_TEXT, ScriptedAI

BASE = "/api/v1/ai-conversation"


def test_events_arrive_while_the_post_is_written(
    ai_live_server: LiveServer, store: Store, scripted_ai: ScriptedAI
) -> None:
    # About a second in all: the scripted model streams POST_TEXT in 6-character chunks.
    scripted_ai.post_reply = lambda _call: Streamed(POST_TEXT, chunk_delay=0.03)
    url = f"{ai_live_server.base_url}{BASE}/generate-post/{store.workspace_id}"
    arrivals: list[float] = []
    body = ""
    started = time.perf_counter()
    with httpx.stream(
        "POST", url, headers={"x-api-key": store.api_key()}, json={"userInput": "x"}, timeout=30
    ) as response:
        assert response.status_code == 200
        for text in response.iter_text():
            arrivals.append(time.perf_counter() - started)
            body += text
    events = parse_sse(body)
    check_contract(events)
    assert events[-1].name == "post_ids"
    # The first delta came long before the last: the stream is not buffered.
    assert arrivals[-1] - arrivals[0] > 0.5


def test_a_client_that_disconnects_cancels_the_generation(
    ai_live_server: LiveServer, store: Store, scripted_ai: ScriptedAI
) -> None:
    scripted_ai.post_reply = lambda _call: Streamed(POST_TEXT * 5, chunk_delay=0.05)
    url = f"{ai_live_server.base_url}{BASE}/generate-batch-posts/{store.workspace_id}"
    with httpx.stream(
        "POST", url, headers={"x-api-key": store.api_key()}, json={"userInput": "x"}, timeout=30
    ) as response:
        for text in response.iter_text():
            if "batch_progress" in text:
                break  # the client leaves while five posts are being written
    deadline = time.monotonic() + 10
    while True:
        with read_session(store.engine) as session:
            used = get_usage(session, store.workspace_id).posts_used
        if used == 0 or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert used == 0  # all five reservations given back
    assert store.scalar(select(func.count()).select_from(Post)) == 0
    requests_seen = len(scripted_ai.calls)
    time.sleep(0.5)
    assert len(scripted_ai.calls) == requests_seen  # nothing more is asked of the model
