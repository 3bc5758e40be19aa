"""Carousel files in an S3-compatible bucket (a real moto server process): where
they go, how they are served (streamed or a presigned redirect, after the same
authorisation), deleted with their post, swept when abandoned, and what a storage
failure leaves (nothing) and answers (a clear 503)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func
from sqlmodel import select

from socialgen.store.engine import read_session
from socialgen.store.tables import Carousel, Post
from socialgen.workspaces.service import get_usage
from tests.carousel_support import CREATE_URL, REGENERATE_URL, create, typed_events
from tests.conftest import Store
from tests.s3_support import Bucket, FaultyS3, free_port
from tests.scripted_support import ScriptedAI


@pytest.fixture
def headers(store: Store) -> dict[str, str]:
    return {"x-api-key": store.api_key()}


def make(client: TestClient, store: Store, headers: dict[str, str], slides: int = 2) -> Any:
    events = create(client, store, headers, json={"prompt": "x", "slideCount": slides})
    assert events[-1].name == "complete", events[-1]
    return events[-1].data["data"]


def key_of(url: str) -> str:
    """`<workspace>/<key>` of a /api/v1/files URL."""
    return url.removeprefix("/api/v1/files/")


def rows(store: Store) -> dict[str, int]:
    with read_session(store.engine) as session:
        used = get_usage(session, store.workspace_id).posts_used
    return {
        "carousels": int(store.scalar(select(func.count()).select_from(Carousel))),
        "posts": int(store.scalar(select(func.count()).select_from(Post))),
        "used": used,
    }


def test_a_carousel_keeps_its_files_in_the_bucket_and_serve_streams_them(
    bucket: Bucket,
    ai_client: TestClient,
    store: Store,
    headers: dict[str, str],
) -> None:
    carousel = make(ai_client, store, headers, slides=3)
    folder = f"{store.workspace_id}/carousels/{carousel['carouselId']}/"
    urls = [carousel["pdfUrl"], carousel["thumbnailUrl"], *(s["image"] for s in carousel["slides"])]
    assert bucket.objects() == sorted(key_of(url) for url in urls)
    assert all(key.startswith(folder) for key in bucket.objects())
    assert not (store.home / "files").exists()  # nothing on this machine's disk
    for url in urls:
        response = ai_client.get(url, headers=headers)
        assert response.status_code == 200
        assert response.content == bucket.read(key_of(url))
        assert response.headers["cache-control"] == "private, max-age=31536000, immutable"
    assert ai_client.get(carousel["pdfUrl"]).headers["content-type"].startswith("application/json")
    assert ai_client.get(carousel["pdfUrl"]).status_code == 401
    missing = carousel["pdfUrl"].replace("carousel-", "carousel-0")
    assert ai_client.get(missing, headers=headers).status_code == 404


@pytest.fixture
def redirects(bucket: Bucket, monkeypatch: pytest.MonkeyPatch) -> Bucket:
    """The bucket, with SOCIALGEN_FILES_REDIRECT=1: ask for it before the app, whose
    Runtime reads where the files are (and how they are served) once."""
    monkeypatch.setenv("SOCIALGEN_FILES_REDIRECT", "1")
    return bucket


def test_with_redirects_on_a_file_is_a_presigned_url_after_the_same_checks(
    redirects: Bucket,
    ai_client: TestClient,
    store: Store,
    headers: dict[str, str],
) -> None:
    bucket = redirects
    carousel = make(ai_client, store, headers)
    pdf = carousel["pdfUrl"]
    response = ai_client.get(pdf, headers=headers, follow_redirects=False)
    assert response.status_code == 307
    location = response.headers["location"]
    assert location.startswith(f"{bucket.endpoint}/{bucket.name}/team/{key_of(pdf)}?")
    assert "X-Amz-Signature=" in location and "X-Amz-Expires=300" in location
    assert httpx.get(location).content == bucket.read(key_of(pdf))
    # Refused before any URL is signed: no key, another workspace, a missing file.
    assert ai_client.get(pdf, follow_redirects=False).status_code == 401
    other = {"x-api-key": store.api_key(store.workspace("Other"))}
    assert ai_client.get(pdf, headers=other, follow_redirects=False).status_code == 403
    gone = pdf.replace("carousel-", "carousel-0")
    assert ai_client.get(gone, headers=headers, follow_redirects=False).status_code == 404


def test_regenerating_and_deleting_work_on_the_bucket(
    bucket: Bucket,
    ai_client: TestClient,
    store: Store,
    headers: dict[str, str],
) -> None:
    carousel = make(ai_client, store, headers, slides=3)
    before = bucket.objects()
    bearer = {**headers, "Authorization": f"Bearer {store.token()}"}
    response = ai_client.post(
        f"{REGENERATE_URL}/{store.workspace_id}",
        headers=bearer,
        json={"carouselId": carousel["carouselId"], "slideIndex": 1, "prompt": "a red bicycle"},
    )
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    after = bucket.objects()
    assert key_of(data["slide"]["image"]) in after
    assert key_of(carousel["slides"][1]["image"]) not in after  # the old image went
    assert key_of(data["pdfUrl"]) in after and key_of(carousel["pdfUrl"]) not in after
    assert len(after) == len(before)
    deleted = ai_client.delete(
        f"/api/v1/ai-conversation/post/{store.workspace_id}/{carousel['postId']}", headers=bearer
    )
    assert deleted.status_code == 200
    assert bucket.objects() == []


def test_a_bucket_refusing_writes_mid_carousel_leaves_nothing(
    faulty_bucket: tuple[Bucket, FaultyS3],
    ai_client: TestClient,
    store: Store,
    headers: dict[str, str],
) -> None:
    bucket, proxy = faulty_bucket
    proxy.writes_allowed = 2  # two slide images, then the bucket refuses
    before = rows(store)
    response = ai_client.post(
        f"{CREATE_URL}/{store.workspace_id}", headers=headers, json={"prompt": "x", "slideCount": 4}
    )
    events = typed_events(response.text)
    assert events[0].name == "plan_generated"
    assert events[-1].name == "error"
    assert proxy.accepted == 2  # it failed mid-way: two images were in the bucket
    assert events[-1].data["message"] == "File storage is unavailable right now; try again shortly"
    assert proxy.refused >= 1
    assert rows(store) == before  # no carousel, no post, the quota given back
    assert bucket.objects() == []  # the images that were written are gone again


def test_a_bucket_down_at_read_time_is_a_clear_503(
    faulty_bucket: tuple[Bucket, FaultyS3],
    ai_client: TestClient,
    store: Store,
    headers: dict[str, str],
) -> None:
    bucket, proxy = faulty_bucket
    carousel = make(ai_client, store, headers)
    proxy.down = True
    response = ai_client.get(carousel["pdfUrl"], headers=headers)
    assert response.status_code == 503
    assert response.json() == {
        "success": False,
        "message": "File storage is unavailable right now; try again shortly",
    }
    # A few quick retries, not object_store's ten over minutes: counted, not timed.
    assert 1 <= proxy.dropped <= 3, proxy.dropped
    bearer = {**headers, "Authorization": f"Bearer {store.token()}"}
    regenerated = ai_client.post(
        f"{REGENERATE_URL}/{store.workspace_id}",
        headers=bearer,
        json={"carouselId": carousel["carouselId"], "slideIndex": 0, "prompt": "a boat"},
    )
    assert regenerated.status_code == 503
    proxy.down = False
    assert ai_client.get(carousel["pdfUrl"], headers=headers).status_code == 200
    assert len(bucket.objects()) == 4  # nothing half-written by the failed regeneration


@pytest.fixture
def unreachable(bucket: Bucket, monkeypatch: pytest.MonkeyPatch) -> Bucket:
    """The bucket behind an endpoint nothing listens on (before the app is built)."""
    monkeypatch.setenv("AWS_ENDPOINT_URL", f"http://127.0.0.1:{free_port()}")
    return bucket


def test_an_unreachable_endpoint_is_a_503_too(
    unreachable: Bucket,
    client: TestClient,
    store: Store,
    headers: dict[str, str],
) -> None:
    url = f"/api/v1/files/{store.workspace_id}/carousels/{'a' * 32}/carousel-1234567890.pdf"
    assert client.get(url, headers=headers).status_code == 503


def test_the_sweep_removes_abandoned_folders_in_the_bucket_only(
    bucket: Bucket,
    ai_client: TestClient,
    store: Store,
    headers: dict[str, str],
) -> None:
    from socialgen.carousels.sweep import sweep_orphaned_carousels

    owned = make(ai_client, store, headers)["carouselId"]
    carousels = f"{store.workspace_id}/carousels"
    abandoned, in_progress = "a" * 32, "b" * 32
    bucket.write(f"{carousels}/{abandoned}/slide-0-1234567890.jpg", b"x")
    time.sleep(3.5)  # the bucket's clock counts whole seconds
    # Another process is making this one right now: files, no row yet.
    bucket.write(f"{carousels}/{in_progress}/slide-0-1234567890.jpg", b"x")

    assert sweep_orphaned_carousels(store.engine, store.files(), quiet_seconds=2) == 1
    folders = {key.split("/")[2] for key in bucket.objects()}
    assert folders == {owned, in_progress}


def test_the_cli_prints_paths_it_can_open_from_a_local_copy(
    bucket: Bucket,
    ai_client: TestClient,
    store: Store,
    headers: dict[str, str],
    scripted_ai: ScriptedAI,
) -> None:
    carousel = make(ai_client, store, headers)
    result = scripted_ai.invoke(["carousel", "show", carousel["carouselId"]])
    assert result.exit_code == 0, result.output
    line = next(line for line in result.output.splitlines() if line.startswith("PDF:"))
    path = Path(line.removeprefix("PDF:").strip())
    assert path.is_relative_to(store.home / "cache" / "files")
    assert path.read_bytes() == bucket.read(key_of(carousel["pdfUrl"]))


def test_nothing_changes_without_a_bucket(
    ai_client: TestClient, store: Store, headers: dict[str, str], s3_server: str
) -> None:
    carousel = make(ai_client, store, headers)
    local = store.home / "files" / key_of(carousel["pdfUrl"])
    assert ai_client.get(carousel["pdfUrl"], headers=headers).content == local.read_bytes()
