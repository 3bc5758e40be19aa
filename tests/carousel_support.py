"""Test support for carousels: images made in memory, the typed stream, counts, and
`files_at`: a test that takes it runs twice, its files in the local folder and in a
bucket (a real moto S3 server, tests/s3_support.py)."""

from __future__ import annotations

import io
import os
from typing import Any

import pytest
from fastapi.testclient import TestClient
from PIL import Image
from sqlalchemy import func
from sqlmodel import select

from socialgen.store.engine import read_session
from socialgen.store.tables import Carousel, CarouselSlide, Post
from socialgen.workspaces.service import get_usage
from tests.conftest import Store
from tests.generation_support import SseEvent, check_contract, parse_sse
from tests.s3_support import Bucket

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


@pytest.fixture(params=["folder", "bucket"])
def files_at(request: pytest.FixtureRequest, store: Store) -> str:
    """Where this run keeps its files: "folder" ($SOCIALGEN_HOME/files) or "bucket"
    (a fresh bucket on the moto server, set in the environment for the test)."""
    if request.param == "bucket":
        request.getfixturevalue("bucket")
    return str(request.param)


def current_bucket() -> Bucket | None:
    """The bucket the environment names (as tests/s3_support sets it), or None."""
    url = os.environ.get("SOCIALGEN_FILES_URL")
    if not url:
        return None
    name, _, prefix = url.removeprefix("s3://").partition("/")
    return Bucket(name=name, prefix=prefix, endpoint=os.environ["AWS_ENDPOINT_URL"])


def stored_keys(store: Store) -> list[str]:
    """Every stored file as `<workspace>/<key>`, from the folder or the bucket in use."""
    bucket = current_bucket()
    if bucket is not None:
        return bucket.objects()
    files = store.home / "files"
    # os.walk, not rglob: a folder the server is deleting may vanish mid-walk.
    return [
        os.path.relpath(os.path.join(root, name), files).replace(os.sep, "/")
        for root, _dirs, names in os.walk(files)
        for name in names
    ]


def counts(store: Store) -> dict[str, int]:
    """Rows and files a carousel leaves behind, and the posts used from the quota."""
    with read_session(store.engine) as session:
        used = get_usage(session, store.workspace_id).posts_used
    keys = stored_keys(store)
    return {
        "carousels": int(store.scalar(select(func.count()).select_from(Carousel))),
        "slides": int(store.scalar(select(func.count()).select_from(CarouselSlide))),
        "posts": int(store.scalar(select(func.count()).select_from(Post))),
        "files": len(keys),
        # Folders of carousels (<workspace>/carousels/<id>): an abandoned one goes too.
        # A bucket has no empty folders, so a folder counts by the files in it.
        "folders": len({key.split("/")[2] for key in keys if key.split("/")[1:2] == ["carousels"]})
        if current_bucket() is not None
        else sum(1 for path in (store.home / "files").glob("*/carousels/*") if path.is_dir()),
        "used": used,
    }
