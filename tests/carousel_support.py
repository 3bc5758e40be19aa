"""Test support for carousels: images made in memory, the typed stream, counts."""

from __future__ import annotations

import io
import os
from typing import Any

from fastapi.testclient import TestClient
from PIL import Image
from sqlalchemy import func
from sqlmodel import select

from socialgen.store.engine import read_session
from socialgen.store.tables import Carousel, CarouselSlide, Post
from socialgen.workspaces.service import get_usage
from tests.conftest import Store
from tests.generation_support import SseEvent, check_contract, parse_sse

CREATE_URL = "/api/v1/carousel/generate-with-images"
REGENERATE_URL = "/api/v1/carousel/regenerate-slide"
PDF_URL = "/api/v1/carousel/generate-pdf"
STREAM_TYPES = ("plan_generated", "image_generated", "generating_pdf", "complete")


def png(colour: str = "#cc3300", size: tuple[int, int] = (64, 48)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, "PNG")
    return buffer.getvalue()


def typed_events(text: str) -> list[SseEvent]:
    """The carousel stream: every data line is {type, data}; keepalives dropped.
    Checks that each event's name and its type agree, and its data its model."""
    events = []
    for item in parse_sse(text):
        assert set(item.data) == {"type", "data"}, item
        assert item.data["type"] == item.name
        if item.name != "keepalive":
            events.append(SseEvent(item.name, item.data["data"]))
    check_contract(events, "carousel")
    return events


def create(
    client: TestClient, store: Store, headers: dict[str, str], **kwargs: Any
) -> list[SseEvent]:
    response = client.post(f"{CREATE_URL}/{store.workspace_id}", headers=headers, **kwargs)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    return typed_events(response.text)


def counts(store: Store) -> dict[str, int]:
    """Rows and files a carousel leaves behind, and the posts used from the quota."""
    files = store.home / "files"
    with read_session(store.engine) as session:
        used = get_usage(session, store.workspace_id).posts_used
    return {
        "carousels": int(store.scalar(select(func.count()).select_from(Carousel))),
        "slides": int(store.scalar(select(func.count()).select_from(CarouselSlide))),
        "posts": int(store.scalar(select(func.count()).select_from(Post))),
        # os.walk, not rglob: a folder the server is deleting may vanish mid-walk.
        "files": sum(len(names) for _root, _dirs, names in os.walk(files)),
        # Folders of carousels (<workspace>/carousels/<id>): an abandoned one goes too.
        "folders": sum(1 for path in files.glob("*/carousels/*") if path.is_dir()),
        "used": used,
    }
