"""Two `socialgen serve` processes as two machines: each its own SOCIALGEN_HOME (its
own disk), one PostgreSQL database and one bucket (moto's server process). What the
first one makes, the second lists, serves, regenerates and deletes.

The one file of carousel tests on the fake OpenAI server: each `socialgen serve` is a
process of its own, which takes its models from the environment only, so the
in-process scripted models cannot reach it. Both machines' text and image models are
the fake server over HTTP, and its `image_delay` is what keeps the first machine's
carousel in progress while the second one starts."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text

from socialgen.app.runtime import Runtime
from socialgen.config import normalise_database_url
from tests.carousel_support import CREATE_URL, REGENERATE_URL, typed_events
from tests.fakes.openai_server import FakeOpenAI, Reply
from tests.s3_support import Bucket, free_port, wait_for_port
from tests.scripted_support import carousel_outline

PG_URL = os.environ.get("SOCIALGEN_TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")
POSTS = "/api/v1/ai-conversation"


@pytest.fixture
def pg_url(tmp_path: Path) -> Iterator[str]:
    """A schema of its own in the PostgreSQL database, dropped at the end."""
    base = normalise_database_url(PG_URL)
    admin = create_engine(base)
    schema = f"socialgen_two_{os.getpid()}"
    try:
        with admin.begin() as connection:
            connection.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
            connection.execute(text(f"CREATE SCHEMA {schema}"))
    except Exception as error:  # no server here: say so rather than pass
        pytest.skip(f"PostgreSQL is not reachable at {PG_URL}: {error}")
    yield f"{base}?options=-csearch_path%3D{schema}"
    with admin.begin() as connection:
        connection.execute(text(f"DROP SCHEMA IF EXISTS {schema} CASCADE"))
    admin.dispose()


@dataclass
class Machine:
    home: Path
    base_url: str
    process: subprocess.Popen[bytes]

    def http(self, headers: dict[str, str]) -> httpx.Client:
        return httpx.Client(base_url=self.base_url, headers=headers, timeout=60)


def start(home: Path, env: dict[str, str]) -> Machine:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "socialgen", "serve", "--port", str(port)],
        env={**env, "SOCIALGEN_HOME": str(home)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_for_port(port, process, seconds=60)
    return Machine(home, f"http://127.0.0.1:{port}", process)


def credentials(pg_url: str, home: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Any]:
    """The default workspace and an API key plus a bearer token for its owner."""
    from socialgen.auth.service import create_api_key, create_token
    from socialgen.store.engine import transaction
    from socialgen.workspaces.bootstrap import LOCAL_OWNER_EMAIL
    from socialgen.workspaces.service import default_workspace

    monkeypatch.setenv("SOCIALGEN_HOME", str(home))
    monkeypatch.setenv("SOCIALGEN_DATABASE_URL", pg_url)
    runtime = Runtime()
    engine = runtime.open_store()  # migrates the schema, makes the default workspace
    with transaction(engine) as session:
        workspace = default_workspace(session)
        assert workspace is not None
        key = create_api_key(session, name="team", workspace_id=workspace.id)[1]
        token = create_token(session, LOCAL_OWNER_EMAIL, days=1)[1]
        ids = workspace.id
    runtime.close()
    return ids, {"x-api-key": key, "Authorization": f"Bearer {token}"}


SLIDES = 4


def outline_of_four(body: dict[str, Any]) -> Reply:
    """Every request the carousel makes of a capable model is its outline (a
    json_schema answer named carousel_outline): both machines ask for 4 slides."""
    response_format = body.get("response_format") or {}
    assert response_format.get("json_schema", {}).get("name") == "carousel_outline", body
    return Reply.json(carousel_outline(SLIDES))


@pytest.fixture
def provider(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    """The text and image provider both machines inherit through the environment."""
    with FakeOpenAI(responder=outline_of_four) as server:
        for name, value in server.env().items():
            monkeypatch.setenv(name, value)
        yield server


def test_a_carousel_made_on_one_machine_is_served_changed_and_deleted_on_another(
    tmp_path: Path,
    pg_url: str,
    bucket: Bucket,
    provider: FakeOpenAI,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    workspace_id, headers = credentials(pg_url, tmp_path / "setup", monkeypatch)
    # Slow images, so the second machine starts (and sweeps the bucket) while the
    # first is still making the carousel: it must leave that carousel alone.
    monkeypatch.setattr(provider, "image_delay", 5.0)
    images = provider.env()["SOCIALGEN_API_BASE"]
    env = {
        **os.environ,
        "SOCIALGEN_DATABASE_URL": pg_url,
        "SOCIALGEN_IMAGE_MODEL": "openai/fake-image-model",
        "SOCIALGEN_IMAGE_API_BASE": images,
    }
    first = start(tmp_path / "first", env)
    second: Machine | None = None
    try:
        made: list[str] = []

        def make() -> None:
            with first.http(headers) as http:
                body = {"prompt": "x", "slideCount": SLIDES}
                response = http.post(f"{CREATE_URL}/{workspace_id}", json=body, timeout=120)
                made.append(response.text)

        maker = threading.Thread(target=make)
        maker.start()
        deadline = time.monotonic() + 60
        while not bucket.objects() and time.monotonic() < deadline:  # the first images
            time.sleep(0.2)
        second = start(tmp_path / "second", env)  # sweeps the bucket before it listens
        assert maker.is_alive()  # so that sweep ran mid-carousel
        maker.join(timeout=120)
        events = typed_events(made[0])
        assert events[-1].name == "complete", events[-1]
        carousel = events[-1].data["data"]

        with second.http(headers) as http:
            # Listed through the second machine (its post, from PostgreSQL) ...
            recent = http.get(f"{POSTS}/recent-posts/{workspace_id}").json()["data"]["posts"]
            [post] = [p for p in recent if p["postType"] == "carousel"]
            assert post["carousel"]["pdfUrl"] == carousel["pdfUrl"]
            # ... served by it from the bucket ...
            for url in (
                carousel["pdfUrl"],
                carousel["thumbnailUrl"],
                carousel["slides"][2]["image"],
            ):
                response = http.get(url)
                assert response.status_code == 200
                assert response.content == bucket.read(url.removeprefix("/api/v1/files/"))
            # ... one slide made again by it ...
            regenerated = http.post(
                f"{REGENERATE_URL}/{workspace_id}",
                json={"carouselId": carousel["carouselId"], "slideIndex": 1, "prompt": "a kite"},
            )
            assert regenerated.status_code == 200, regenerated.text
            data = regenerated.json()["data"]
            assert http.get(data["pdfUrl"]).status_code == 200
        with first.http(headers) as http:  # and the first one serves the new files
            assert http.get(data["slide"]["image"]).status_code == 200
            assert http.get(carousel["slides"][1]["image"]).status_code == 404
        assert len(bucket.objects()) == 6  # 4 images, PDF, thumbnail: nothing stale

        with second.http(headers) as http:
            deleted = http.delete(f"{POSTS}/post/{workspace_id}/{carousel['postId']}")
            assert deleted.status_code == 200
        assert bucket.objects() == []
        # Neither machine kept a file on its own disk.
        assert not (first.home / "files").exists() and not (second.home / "files").exists()
    finally:
        for machine in (first, second):
            if machine is not None:
                machine.process.terminate()
                machine.process.wait(timeout=20)
