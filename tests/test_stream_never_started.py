"""A client that leaves before its stream's code ever runs: the plan reserved quota
(before the stream, so HTTP can still answer 402/403), and nothing inside the
stream can give it back. The response's last step does.

Driven at the ASGI level to hold the window open deterministically: the client's
`send` never completes the response start, and its next `receive` says it left.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from sqlmodel import select

from socialgen.app.runtime import Runtime
from socialgen.store.engine import read_session
from socialgen.store.tables import Post, QuotaReservation
from socialgen.workspaces.service import get_usage
from tests.conftest import Store
from tests.doubles.scripted_images import ScriptedImageModel
from tests.doubles.scripted_model import ScriptedModel

ENDPOINTS = {
    "generate-post": ("/api/v1/ai-conversation/generate-post/{ws}", {"userInput": "Ship weekly"}),
    "batch": ("/api/v1/ai-conversation/generate-batch-posts/{ws}", {"userInput": "Ship weekly"}),
    "calendar": (
        "/api/v1/content-calendar/generate/{ws}",
        {"calendarLength": 7, "prompt": "Ship weekly"},
    ),
    "carousel": ("/api/v1/carousel/generate-with-images/{ws}", {"prompt": "Ship weekly"}),
}


async def leave_before_the_stream_starts(app: Any, path: str, body: bytes, key: str) -> None:
    received = False
    blocked = asyncio.Event()

    async def receive() -> dict[str, Any]:
        nonlocal received
        if not received:
            received = True
            return {"type": "http.request", "body": body, "more_body": False}
        await blocked.wait()  # the response has begun: now the client leaves
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            blocked.set()
            await asyncio.Event().wait()  # a client that never reads a byte

    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"content-type", b"application/json"), (b"x-api-key", key.encode())],
        "client": ("127.0.0.1", 5000),
        "server": ("127.0.0.1", 8000),
    }
    await asyncio.wait_for(app(scope, receive, send), 30)


@pytest.mark.parametrize("name", sorted(ENDPOINTS))
def test_quota_reserved_for_a_stream_that_never_started_is_given_back(
    name: str, store: Store, scripted_model: ScriptedModel, scripted_images: ScriptedImageModel
) -> None:
    from socialgen.http.server import create_app
    from socialgen.http.support import get_image_model, get_text_model

    app = create_app(Runtime())
    app.dependency_overrides[get_text_model] = lambda: scripted_model
    app.dependency_overrides[get_image_model] = lambda: scripted_images
    template, body = ENDPOINTS[name]
    path = template.format(ws=store.workspace_id)

    asyncio.run(
        leave_before_the_stream_starts(app, path, json.dumps(body).encode(), store.api_key())
    )

    with read_session(store.engine) as session:
        assert get_usage(session, store.workspace_id).posts_used == 0
        assert session.exec(select(QuotaReservation)).all() == []
        assert session.exec(select(Post)).all() == []
    assert scripted_model.calls == []  # the stream's code never ran
