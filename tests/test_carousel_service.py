"""The carousel stream in-process: outlines from good, partial and junk model
answers, and a stream stopped half-way leaving nothing behind."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from socialgen.ai.images import ImageResult
from socialgen.ai.model import ModelError
from socialgen.ai.procedural import procedural_image
from socialgen.app.caller import Caller
from socialgen.app.runtime import Runtime
from socialgen.carousels.outline import outline_carousel, plain_outline
from socialgen.carousels.plan import Artwork, prepare_carousel
from socialgen.carousels.schemas import CarouselRequest
from socialgen.carousels.service import create_carousel
from socialgen.events import Event
from socialgen.kit.limits import MAX_SLIDES, MIN_SLIDES
from tests.carousel_support import counts
from tests.conftest import Store
from tests.scripted_support import ScriptedAI


@pytest.mark.parametrize("count", range(MIN_SLIDES, MAX_SLIDES + 1))
def test_the_plain_outline_has_distinct_slides_and_closes_with_a_call(count: int) -> None:
    outline = plain_outline("why small teams ship weekly", count)
    titles = [slide.title for slide in outline.slides]
    assert len(titles) == count == len(set(titles))
    assert titles[-1] == "Your turn"
    assert all(slide.image_prompt for slide in outline.slides)


def test_a_short_answer_is_filled_and_junk_replaced(scripted_ai: ScriptedAI) -> None:
    scripted_ai.carousel_reply = lambda _count: {
        "name": "<b>Name</b>",
        "caption": "A caption.",
        "slides": [
            {"title": "Good one", "text": "Fine text.", "image_prompt": "a boat"},
            {"title": "See https://spam.example", "text": "x", "image_prompt": "x"},
        ],
    }
    outline = asyncio.run(outline_carousel(scripted_ai.model, "shipping weekly", 4))
    assert outline.slides[0].title == "Good one"
    assert len(outline.slides) == 4
    assert outline.slides[-1].title == "Your turn"
    assert outline.name == "shipping weekly"  # markup in the name: the plain one
    assert outline.caption == "A caption."


def test_a_model_failure_gives_the_plain_outline(scripted_ai: ScriptedAI) -> None:
    scripted_ai.carousel_reply = lambda _count: ModelError("The provider failed (500)")
    outline = asyncio.run(outline_carousel(scripted_ai.model, "shipping weekly", 3))
    assert outline == plain_outline("shipping weekly", 3)


class SlowImages:
    """Procedural images that take a while, so the stream can be stopped mid-way."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self.started = 0

    async def generate(
        self, prompt: str, *, width: int, height: int, references: Sequence[bytes] = ()
    ) -> ImageResult:
        self.started += 1
        await asyncio.sleep(self.delay if self.started > 1 else 0)
        return procedural_image(prompt, width, height, references)


def _plan(store: Store, slides: int = 4) -> object:
    caller = Caller(
        engine=store.engine,
        workspace_id=store.workspace_id,
        user_id=None,
        settings=Runtime().settings,
        files=store.files(),
    )
    request = CarouselRequest(prompt="shipping weekly", slide_count=slides)
    return prepare_carousel(caller, request, Artwork())


def test_closing_the_stream_mid_way_removes_its_files_and_refunds(
    files_at: str, store: Store, scripted_ai: ScriptedAI
) -> None:
    before = counts(store)
    plan = _plan(store)
    assert counts(store)["used"] == before["used"] + 1

    async def run() -> list[Event]:
        seen: list[Event] = []
        stream = create_carousel(plan, scripted_ai.model, SlowImages(5.0), set())  # type: ignore[arg-type]
        async for item in stream:
            seen.append(item)
            if item.name == "image_generated":
                break  # a client gone: the server closes the generator
        await stream.aclose()
        return seen

    seen = asyncio.run(run())
    assert [e.name for e in seen] == ["plan_generated", "image_generated"]
    assert counts(store) == before


def test_cancelling_the_task_mid_way_removes_its_files_and_refunds(
    files_at: str, store: Store, scripted_ai: ScriptedAI
) -> None:
    before = counts(store)
    plan = _plan(store)
    images = SlowImages(5.0)

    async def run() -> None:
        async def consume() -> None:
            async for _ in create_carousel(plan, scripted_ai.model, images, set()):  # type: ignore[arg-type]
                pass

        task = asyncio.create_task(consume())
        while images.started < 2:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.1)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(run())
    assert counts(store) == before


def test_slide_art_becomes_jpeg_and_brand_images_stay_small_and_transparent() -> None:
    import io

    from PIL import Image

    from socialgen.carousels.assets import BRAND_IMAGE_SIDE, brand_image, slide_art
    from tests.carousel_support import png

    data, media_type = slide_art(png("#123456", (1536, 1024)), "image/png", 1080)
    assert media_type == "image/jpeg"
    assert Image.open(io.BytesIO(data)).size == (1080, 720)
    small_jpeg = procedural_image("x", 200, 200).data
    assert slide_art(small_jpeg, "image/jpeg", 1080) == (small_jpeg, "image/jpeg")  # untouched

    buffer = io.BytesIO()
    Image.new("RGBA", (1200, 600), (255, 0, 0, 0)).save(buffer, "PNG")
    logo, logo_type = brand_image(buffer.getvalue(), "image/png")
    picture = Image.open(io.BytesIO(logo))
    assert logo_type == "image/png" and picture.size == (BRAND_IMAGE_SIDE, BRAND_IMAGE_SIDE // 2)
    assert picture.getpixel((0, 0))[3] == 0  # still transparent


def test_raw_newlines_inside_answer_strings_are_accepted(scripted_ai: ScriptedAI) -> None:
    import json

    answer = json.dumps(
        {
            "name": "Ship weekly",
            "caption": "Line one.@@Line two.",
            "slides": [
                {"title": f"Lesson {n}", "text": "First.@@Second.", "image_prompt": "a boat"}
                for n in range(1, 4)
            ],
        }
    ).replace("@@", "\n")  # a raw newline inside strings: not strict JSON
    scripted_ai.carousel_reply = lambda _count: answer
    outline = asyncio.run(outline_carousel(scripted_ai.model, "shipping weekly", 3))
    assert [s.title for s in outline.slides] == ["Lesson 1", "Lesson 2", "Lesson 3"]
    assert outline.caption == "Line one.\nLine two."
    assert outline.slides[0].content == "First.\nSecond."


def test_an_answer_cut_at_the_token_limit_keeps_its_complete_slides(
    scripted_ai: ScriptedAI,
) -> None:
    import json

    full = json.dumps(
        {
            "name": "Ship weekly",
            "caption": "Why we ship weekly.",
            "slides": [
                {"title": f"Lesson {n}", "text": f"Text {n}.", "image_prompt": "a boat"}
                for n in range(1, 6)
            ],
        }
    )
    cut = full[: full.index('"Lesson 3"') + 4]  # stops inside the third slide
    scripted_ai.carousel_reply = lambda _count: cut  # the provider stopped at max_tokens
    outline = asyncio.run(outline_carousel(scripted_ai.model, "shipping weekly", 5))
    titles = [s.title for s in outline.slides]
    assert titles[:2] == ["Lesson 1", "Lesson 2"]
    assert len(titles) == 5 and titles[-1] == "Your turn"
    assert outline.name == "Ship weekly"


def test_the_sweep_removes_only_old_folders_no_carousel_owns(
    store: Store, scripted_ai: ScriptedAI
) -> None:
    import os
    import time

    from socialgen.carousels.repository import list_carousels
    from socialgen.carousels.sweep import sweep_orphaned_carousels

    plan = _plan(store, slides=2)

    async def make() -> None:
        async for _ in create_carousel(plan, scripted_ai.model, SlowImages(0), set()):  # type: ignore[arg-type]
            pass

    asyncio.run(make())
    [owned] = list_carousels(store.engine, store.workspace_id)
    carousels = store.home / "files" / store.workspace_id / "carousels"
    old_orphan, new_orphan = carousels / ("a" * 32), carousels / ("b" * 32)
    for folder in (old_orphan, new_orphan):
        folder.mkdir()
        (folder / "slide-0-1234567890.jpg").write_bytes(b"x")
    two_hours_ago = time.time() - 7200
    for path in (*old_orphan.iterdir(), old_orphan, *(carousels / owned.id).iterdir()):
        os.utime(path, (two_hours_ago, two_hours_ago))
    os.utime(carousels / owned.id, (two_hours_ago, two_hours_ago))

    assert sweep_orphaned_carousels(store.engine, store.files()) == 1
    assert not old_orphan.exists()
    assert new_orphan.exists()  # may be a carousel being made right now
    assert (carousels / owned.id).exists()  # owned, however old
