"""The API through a real uvicorn socket, and `socialgen serve` as a user starts it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import httpx

from socialgen.store.tables import PostStatus
from tests.conftest import LiveServer, Store, days_ago

BASE = "/api/v1/ai-conversation"


def test_listing_editing_and_deleting_over_a_real_socket(
    live_server: LiveServer, store: Store
) -> None:
    draft = store.post("draft over the wire")
    store.post("published", status=PostStatus.PUBLISHED, when=days_ago(3))
    headers = {"x-api-key": store.api_key(), "Authorization": f"Bearer {store.token()}"}
    ws = store.workspace_id
    with httpx.Client(base_url=live_server.base_url, headers=headers, timeout=10) as http:
        recent = http.get(f"{BASE}/recent-posts/{ws}")
        assert recent.status_code == 200
        assert recent.json()["data"]["total"] == 2

        timeline = http.get(f"{BASE}/posts-timeline/{ws}")
        assert [p["status"] for p in timeline.json()["data"]["posts"]] == ["published"]

        edited = http.put(f"{BASE}/post/{ws}/{draft.id}", json={"content": "edited live"})
        assert edited.json()["data"] == {"postId": draft.id, "content": "edited live"}

        listed = http.get(f"{BASE}/list/{ws}", params={"limit": 1})
        assert listed.json()["data"]["pagination"] == {
            "page": 1,
            "limit": 1,
            "total": 2,
            "pages": 2,
        }

        deleted = http.delete(f"{BASE}/post/{ws}/{draft.id}")
        assert deleted.json()["data"]["deletedPostId"] == draft.id

        refused = http.get(f"{BASE}/recent-posts/{ws}", headers={"x-api-key": ""})
        assert refused.status_code == 401
        assert refused.json()["success"] is False


def test_socialgen_serve_starts_and_answers(store: Store) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    key = store.api_key()
    process = subprocess.Popen(
        [sys.executable, "-m", "socialgen", "serve", "--port", str(port)],
        env=dict(os.environ),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                response = httpx.get(
                    f"http://127.0.0.1:{port}{BASE}/posts-timeline/{store.workspace_id}",
                    headers={"x-api-key": key},
                    timeout=2,
                )
                break
            except httpx.TransportError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise
                time.sleep(0.1)
        assert response.status_code == 200
        assert response.json()["data"]["posts"] == []
        assert httpx.get(f"http://127.0.0.1:{port}/docs", timeout=2).status_code == 200
    finally:
        process.terminate()
        process.wait(timeout=10)
