"""A client that leaves the carousel stream at each stage, over a real uvicorn socket.

The pipeline is held at one point (a Gate around a real function, in the server's
own worker thread) while the client leaves; the gate opens once the server has
seen the client go (and, without the fix, has already cleaned up). Whatever the
stage, the server must settle on nothing at all (no folder, no files, no rows, the
quota given back) or, once the save committed, on the whole carousel.
"""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import httpx
import pytest
import uvicorn
from sqlmodel import select

from socialgen.ai.image_types import ImageResult
from socialgen.ai.model import ModelError
from socialgen.ai.procedural import procedural_image
from socialgen.app.caller import Caller
from socialgen.app.runtime import Runtime
from socialgen.carousels import assets, repository
from socialgen.carousels.plan import Artwork, prepare_carousel
from socialgen.carousels.schemas import CarouselRequest
from socialgen.carousels.service import create_carousel
from socialgen.files.store import FileStore
from socialgen.render import pdf, thumbnail
from socialgen.store.tables import Carousel
from tests.carousel_support import CREATE_URL, counts, png, stored_keys
from tests.conftest import Store
from tests.doubles.scripted_images import ScriptedImageModel
from tests.doubles.scripted_model import ScriptedModel
from tests.generation_support import parse_sse

SLIDES = 3
SETTLE_SECONDS = 20.0


class Gate:
    """Holds the calls it wraps (those `when` picks) until the test opens it."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.opened = threading.Event()
        self.left = threading.Event()  # a held call has returned (or raised)

    def around(
        self, func: Callable[..., Any], when: Callable[..., bool] = lambda *a, **k: True
    ) -> Callable[..., Any]:
        def held(*args: Any, **kwargs: Any) -> Any:
            if not when(*args, **kwargs):
                return func(*args, **kwargs)
            self.entered.set()
            assert self.opened.wait(SETTLE_SECONDS), "the test never opened the gate"
            try:
                return func(*args, **kwargs)
            finally:
                self.left.set()

        return held


class Server:
    """The app with the scripted models behind a real uvicorn socket on 127.0.0.1."""

    def __init__(self, server: uvicorn.Server, base_url: str) -> None:
        self.server = server
        self.base_url = base_url

    def wait_until_client_gone(self) -> None:
        deadline = time.monotonic() + SETTLE_SECONDS
        while self.server.server_state.connections:
            assert time.monotonic() < deadline, "the server never saw the client go"
            time.sleep(0.01)


@pytest.fixture
def server(
    store: Store, scripted_model: ScriptedModel, scripted_images: ScriptedImageModel
) -> Iterator[Server]:
    from socialgen.http.server import create_app
    from socialgen.http.support import get_image_model, get_text_model

    app = create_app(Runtime())
    app.dependency_overrides[get_text_model] = lambda: scripted_model
    app.dependency_overrides[get_image_model] = lambda: scripted_images
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not running.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.01)
    yield Server(running, f"http://127.0.0.1:{port}")
    running.should_exit = True
    thread.join(timeout=10)


@pytest.fixture
def cleaned(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Set when the stream removes its folder (the cleanup of a run not saved)."""
    done = threading.Event()
    original = FileStore.delete_folder

    def delete_folder(self: FileStore, workspace_id: str, folder: str) -> None:
        original(self, workspace_id, folder)
        done.set()

    monkeypatch.setattr(FileStore, "delete_folder", delete_folder)
    return done


def leave(
    server: Server,
    store: Store,
    gate: Gate,
    cleaned: threading.Event,
    stop: Callable[[list[str]], bool],
    **request: Any,
) -> None:
    """Read the stream until `stop(names so far)` and the gate holds the pipeline,
    leave, then open the gate once the server has had its chance to clean up."""
    headers = {"x-api-key": store.api_key(), "Accept": "text/event-stream"}
    url = f"{server.base_url}{CREATE_URL}/{store.workspace_id}"
    with httpx.stream("POST", url, headers=headers, timeout=60, **request) as response:
        assert response.status_code == 200
        seen = ""
        # Kept in a name: a generator dropped at `break` would be closed at once, and
        # httpx would close the connection before the pipeline reached the gate.
        chunks = response.iter_text()
        for text in chunks:
            seen += text
            if stop([item.name for item in parse_sse(seen.rsplit("\n\n", 1)[0])]):
                break
        else:
            pytest.fail("the stream ended before the stage was reached")
        assert gate.entered.wait(SETTLE_SECONDS), "the pipeline never reached the gate"
    # Leaving the block closed the connection: the client is gone.
    server.wait_until_client_gone()
    cleaned.wait(0.5)  # without waiting for its threads, the server cleans up now
    gate.opened.set()
    # The held work goes on (a PDF render takes a while): only once it is over can a
    # late write show.
    assert gate.left.wait(SETTLE_SECONDS), "the held call never returned"


def settle(store: Store, expected: Callable[[dict[str, int]], bool]) -> dict[str, int]:
    deadline = time.monotonic() + SETTLE_SECONDS
    while not expected(counts(store)) and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)  # what the held call's thread still writes after it (the bug)
    return counts(store)


def assert_nothing_left(store: Store, before: dict[str, int]) -> None:
    after = settle(store, lambda now: now == before)
    assert after == before  # no folder, no files, no rows, the quota given back
    assert not [key for key in stored_keys(store) if key.split("/")[1] == "carousels"]


def create_json(slides: int = SLIDES) -> dict[str, Any]:
    return {"json": {"prompt": "shipping weekly", "slideCount": slides}}


def count(names: list[str], name: str) -> int:
    return sum(1 for item in names if item == name)


def test_leaving_after_the_plan_while_the_logo_is_stored(
    files_at: str,
    server: Server,
    store: Store,
    cleaned: threading.Event,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gate = Gate()

    def is_logo(_files: object, _ws: str, _id: str, stem: str, *_: object) -> bool:
        return stem == "logo"

    monkeypatch.setattr(assets, "store_image", gate.around(assets.store_image, is_logo))
    before = counts(store)
    leave(
        server,
        store,
        gate,
        cleaned,
        lambda names: "plan_generated" in names,
        data={"prompt": "shipping weekly", "slideCount": str(SLIDES)},
        files=[("brandLogo", ("logo.png", png("#ff0000", (40, 40)), "image/png"))],
    )
    assert_nothing_left(store, before)


@pytest.mark.parametrize("images_seen", range(1, SLIDES + 1))
def test_leaving_after_each_image(
    files_at: str,
    server: Server,
    store: Store,
    cleaned: threading.Event,
    monkeypatch: pytest.MonkeyPatch,
    images_seen: int,
) -> None:
    """The first `images_seen` slide images get through; the later ones (or, after the
    last image, the PDF render) are held while the client leaves."""
    gate = Gate()
    lock = threading.Lock()
    stored: list[str] = []

    def later_slide(_files: object, _ws: str, _id: str, stem: str, *_: object) -> bool:
        with lock:
            stored.append(stem)
            return stem.startswith("slide-") and len(stored) > images_seen

    monkeypatch.setattr(assets, "store_image", gate.around(assets.store_image, later_slide))
    monkeypatch.setattr(pdf, "html_to_pdf", gate.around(pdf.html_to_pdf))
    before = counts(store)
    leave(
        server,
        store,
        gate,
        cleaned,
        lambda names: count(names, "image_generated") >= images_seen,
        **create_json(),
    )
    assert_nothing_left(store, before)


@pytest.mark.parametrize(
    ("module", "name"),
    [(pdf, "html_to_pdf"), (thumbnail, "first_page_png")],
    ids=["pdf", "thumbnail"],
)
def test_leaving_during_the_render(
    files_at: str,
    server: Server,
    store: Store,
    cleaned: threading.Event,
    monkeypatch: pytest.MonkeyPatch,
    module: object,
    name: str,
) -> None:
    gate = Gate()
    monkeypatch.setattr(module, name, gate.around(getattr(module, name)))
    before = counts(store)
    leave(server, store, gate, cleaned, lambda names: "generating_pdf" in names, **create_json())
    assert_nothing_left(store, before)


def test_leaving_during_the_save_keeps_the_whole_carousel(
    files_at: str,
    server: Server,
    store: Store,
    cleaned: threading.Event,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The save goes on in its thread and commits: the carousel is then kept whole,
    every file it names on disk, its post counted against the quota."""
    gate = Gate()
    monkeypatch.setattr(repository, "save_new_carousel", gate.around(repository.save_new_carousel))
    before = counts(store)
    leave(server, store, gate, cleaned, lambda names: "generating_pdf" in names, **create_json())
    after = settle(store, lambda now: now["carousels"] == 1 and now["used"] == before["used"] + 1)
    assert not cleaned.is_set()
    assert after["carousels"] == before["carousels"] + 1
    assert after["slides"] == before["slides"] + SLIDES
    assert after["posts"] == before["posts"] + 1
    assert after["used"] == before["used"] + 1
    carousel_id = store.scalar(select(Carousel.id))
    record = repository.load_carousel(store.engine, store.workspace_id, carousel_id)
    named = {record.carousel.pdf_file, record.carousel.thumbnail_file}
    named |= {slide.image_file for slide in record.slides}
    folder = f"{store.workspace_id}/{assets.carousel_folder(carousel_id)}/"
    on_disk = {key.split("/", 1)[1] for key in stored_keys(store) if key.startswith(folder)}
    assert on_disk == named
    assert after["files"] == before["files"] + len(named)


class OneImageFails:
    """Slide 1's image fails at once; the others come a moment later."""

    async def generate(
        self, prompt: str, *, width: int, height: int, references: Sequence[bytes] = ()
    ) -> ImageResult:
        if prompt.endswith("slide 1"):
            raise ModelError("The image model is down")
        await asyncio.sleep(0.3)
        return procedural_image(prompt, width, height, references)


def test_a_failed_image_leaves_no_file_from_the_images_still_coming(
    files_at: str, store: Store, scripted_model: ScriptedModel
) -> None:
    """The other images of a failed run arrive after its cleanup: none is stored."""
    before = counts(store)
    caller = Caller(
        engine=store.engine,
        workspace_id=store.workspace_id,
        user_id=None,
        settings=Runtime().settings,
        files=store.files(),
    )
    plan = prepare_carousel(caller, CarouselRequest("shipping weekly", slide_count=3), Artwork())

    async def run() -> None:
        with pytest.raises(ModelError):
            async for _ in create_carousel(plan, scripted_model, OneImageFails(), set()):
                pass
        await asyncio.sleep(1.0)  # the loop lives on, as a server's does

    asyncio.run(run())
    assert counts(store) == before
