"""Carousels through a real uvicorn socket: the whole stream over the wire, and a
client that leaves half-way (its files removed, its quota given back)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence

import httpx
import pypdfium2 as pdfium
import pytest

from socialgen.ai.image_types import ImageResult
from tests.carousel_support import CREATE_URL, counts, stored_keys, typed_events
from tests.conftest import LiveServer, Store
from tests.doubles.scripted_images import ScriptedImageModel
from tests.scripted_support import ScriptedAI


class PacedImages(ScriptedImageModel):
    """Scripted images that each take `delay` seconds more (an image provider is
    slow): the request is recorded when it is made, the image comes after."""

    delay = 0.0

    async def generate(
        self, prompt: str, *, width: int, height: int, references: Sequence[bytes] = ()
    ) -> ImageResult:
        image = await super().generate(prompt, width=width, height=height, references=references)
        await asyncio.sleep(self.delay)
        return image


@pytest.fixture
def scripted_images() -> ScriptedImageModel:
    """scripted_ai's image model in this file: one that can be slowed down."""
    return PacedImages()


def test_a_carousel_over_a_real_socket_then_its_pdf(
    files_at: str, ai_live_server: LiveServer, store: Store
) -> None:
    headers = {"x-api-key": store.api_key(), "Accept": "text/event-stream"}
    response = httpx.post(
        f"{ai_live_server.base_url}{CREATE_URL}/{store.workspace_id}",
        headers=headers,
        json={"prompt": "shipping weekly", "slideCount": 3},
        timeout=60,
    )
    assert response.status_code == 200
    assert response.headers["x-accel-buffering"] == "no"
    events = typed_events(response.text)
    assert events[-1].name == "complete"
    pdf = httpx.get(
        f"{ai_live_server.base_url}{events[-1].data['data']['pdfUrl']}", headers=headers
    )
    assert len(pdfium.PdfDocument(pdf.content)) == 3


def test_a_client_that_leaves_mid_way_leaves_nothing_behind(
    files_at: str,
    ai_live_server: LiveServer,
    store: Store,
    scripted_ai: ScriptedAI,
) -> None:
    images = scripted_ai.images
    assert isinstance(images, PacedImages)
    images.delay = 0.3
    before = counts(store)
    with httpx.stream(
        "POST",
        f"{ai_live_server.base_url}{CREATE_URL}/{store.workspace_id}",
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
    requests = len(images.calls)
    time.sleep(1.0)
    assert len(images.calls) <= requests + 3  # no new images asked for


def _mean_colour(image: object) -> tuple[float, ...]:
    from PIL import ImageStat

    small = image.convert("RGB").resize((32, 32))  # type: ignore[attr-defined]
    return tuple(ImageStat.Stat(small).mean)


def test_two_slides_regenerated_at_once_both_reach_the_pdf(
    files_at: str, ai_live_server: LiveServer, store: Store
) -> None:
    import io
    import threading

    from PIL import Image

    from socialgen.carousels.repository import load_carousel

    read_file = store.files().read

    headers = {"x-api-key": store.api_key()}
    base = ai_live_server.base_url
    created = typed_events(
        httpx.post(
            f"{base}{CREATE_URL}/{store.workspace_id}",
            headers=headers,
            json={"prompt": "x", "slideCount": 3},
            timeout=60,
        ).text
    )[-1].data["data"]
    answers: list[httpx.Response] = []

    def regenerate(index: int, prompt: str) -> None:
        answers.append(
            httpx.post(
                f"{base}/api/v1/carousel/regenerate-slide/{store.workspace_id}",
                headers=headers,
                json={"carouselId": created["carouselId"], "slideIndex": index, "prompt": prompt},
                timeout=60,
            )
        )

    threads = [
        threading.Thread(target=regenerate, args=(0, "a red barn")),
        threading.Thread(target=regenerate, args=(2, "a blue lake")),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [a.status_code for a in answers] == [200, 200]

    record = load_carousel(store.engine, store.workspace_id, created["carouselId"])
    images = [slide.image_file for slide in record.slides]
    assert images[0] != created["slides"][0]["image"].rsplit("/", 1)[-1]
    assert images[1] == created["slides"][1]["image"].split(f"{store.workspace_id}/", 1)[1]
    assert images[2] != created["slides"][2]["image"].rsplit("/", 1)[-1]
    # The stored PDF shows every slide's current image: compare each page's largest
    # picture with the slide's stored image.
    document = pdfium.PdfDocument(read_file(store.workspace_id, record.carousel.pdf_file))
    for index, page in enumerate(document):
        pictures = [obj for obj in page.get_objects() if obj.type == pdfium.raw.FPDF_PAGEOBJ_IMAGE]
        biggest = max(pictures, key=lambda obj: obj.get_px_size()[0] * obj.get_px_size()[1])
        shown = _mean_colour(biggest.get_bitmap().to_pil())
        stored = _mean_colour(Image.open(io.BytesIO(read_file(store.workspace_id, images[index]))))
        assert all(abs(a - b) < 12 for a, b in zip(shown, stored, strict=True)), index
    document.close()
    # Nothing stored (on disk or in the bucket) that the carousel does not use.
    on_disk = {
        key.split("/", 1)[1]
        for key in stored_keys(store)
        if key.startswith(f"{store.workspace_id}/carousels/{created['carouselId']}/")
    }
    used = {record.carousel.pdf_file, record.carousel.thumbnail_file, *images}
    assert on_disk == used
