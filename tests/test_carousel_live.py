"""Carousels through a real uvicorn socket: the whole stream over the wire, and a
client that leaves half-way (its files removed, its quota given back)."""

from __future__ import annotations

import time

import httpx
import pypdfium2 as pdfium
import pytest

from tests.carousel_support import CREATE_URL, counts, typed_events
from tests.conftest import LiveServer, Store
from tests.generation_support import FakeAI


def test_a_carousel_over_a_real_socket_then_its_pdf(
    live_server: LiveServer, store: Store, fake_ai: FakeAI
) -> None:
    headers = {"x-api-key": store.api_key(), "Accept": "text/event-stream"}
    response = httpx.post(
        f"{live_server.base_url}{CREATE_URL}/{store.workspace_id}",
        headers=headers,
        json={"prompt": "shipping weekly", "slideCount": 3},
        timeout=60,
    )
    assert response.status_code == 200
    assert response.headers["x-accel-buffering"] == "no"
    events = typed_events(response.text)
    assert events[-1].name == "complete"
    pdf = httpx.get(f"{live_server.base_url}{events[-1].data['data']['pdfUrl']}", headers=headers)
    assert len(pdfium.PdfDocument(pdf.content)) == 3


def test_a_client_that_leaves_mid_way_leaves_nothing_behind(
    live_server: LiveServer, store: Store, fake_ai: FakeAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALGEN_IMAGE_MODEL", "openai/fake-image-model")
    monkeypatch.setenv("SOCIALGEN_IMAGE_API_BASE", fake_ai.server.env()["SOCIALGEN_API_BASE"])
    fake_ai.server.image_delay = 0.3
    before = counts(store)
    with httpx.stream(
        "POST",
        f"{live_server.base_url}{CREATE_URL}/{store.workspace_id}",
        headers={"x-api-key": store.api_key()},
        json={"prompt": "shipping weekly", "slideCount": 12},
        timeout=60,
    ) as response:
        seen = ""
        for text in response.iter_text():
            seen += text
            if seen.count("event: image_generated") >= 1:
                break  # the client leaves after the first image
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and counts(store) != before:
        time.sleep(0.1)
    assert counts(store) == before  # no rows, no files, the quota given back
    requests = len(fake_ai.server.image_requests)
    time.sleep(1.0)
    assert len(fake_ai.server.image_requests) <= requests + 3  # no new images asked for
