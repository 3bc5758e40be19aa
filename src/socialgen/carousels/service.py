"""Making a carousel, as a stream of events: the outline (plan_generated), one image
per slide as each is made (image_generated), the PDF (generating_pdf), then the
stored carousel and its draft post (complete).

Nothing is half-stored: files go into the carousel's own folder and rows are
written in one transaction at the end; a failed or cancelled run removes the
folder and gives back the quota. It does so once every thread the run started
has finished (an image being stored, the PDF render, the save): a thread cannot
be stopped, and one that wrote after the folder was removed would leave its file
behind. A save that committed meanwhile keeps the carousel, whole.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import cast

from socialgen.ai.images import ImageModel, ImageResult
from socialgen.ai.model import TextModel
from socialgen.carousels import assets, repository
from socialgen.carousels.events import (
    CarouselComplete,
    GeneratingPdf,
    ImageGenerated,
    PlanGenerated,
    StreamedSlide,
)
from socialgen.carousels.outline import outline_carousel
from socialgen.carousels.plain_outline import Outline
from socialgen.carousels.plan import CarouselPlan
from socialgen.carousels.schemas import carousel_view, post_reference
from socialgen.carousels.thread_work import ThreadWork, finish
from socialgen.drafting.fanout import Emit, fan_out
from socialgen.drafting.quota import Reservation
from socialgen.events import Event
from socialgen.files.store import FileStore, file_url
from socialgen.store.tables import Carousel, CarouselSlide

logger = logging.getLogger("socialgen.carousels")

IMAGE_CONCURRENCY = 3


@dataclass
class SaveOutcome:
    """Set by the worker thread as the carousel's rows commit: a run cancelled during
    the save reads it to know the carousel is stored and must be kept."""

    post_id: str | None = None


async def create_carousel(
    plan: CarouselPlan,
    model: TextModel,
    images: ImageModel,
    cleanups: set[asyncio.Task[None]],
) -> AsyncIterator[Event]:
    """The carousel's events. `cleanups`: where the cleanup of a run whose client left
    is kept until it ends (the Runtime's `held.cleanups`)."""
    caller = plan.caller
    quota = Reservation(caller, plan.reserved, plan.reservation_id)
    work = ThreadWork()  # every blocking call of the run: the cleanup waits for them
    saved = SaveOutcome()
    try:
        outline = await outline_carousel(
            model, plan.request.prompt, plan.request.slide_count, plan.style
        )
        yield Event.of(
            PlanGenerated(
                prompts=outline.image_prompts,
                source=outline.source,
                templateSlides=outline.template_slides,
            )
        )
        carousel = await work.run(_new_carousel, plan, outline)
        image_files: dict[int, str] = {}

        def job(index: int) -> Callable[[Emit], Awaitable[None]]:
            async def make(emit: Emit) -> None:
                slide = outline.slides[index]
                image = await images.generate(
                    slide.image_prompt,
                    width=plan.width,
                    height=plan.width,  # square art; the template frames it
                    references=[ref.data for ref in plan.artwork.references],
                )
                key = await work.run(_store_slide_image, caller.files, carousel, index, image)
                image_files[index] = key
                await emit(
                    Event.of(
                        ImageGenerated(
                            slideIndex=index,
                            slide=StreamedSlide(
                                title=slide.title,
                                content=slide.content,
                                source=slide.source,
                                image=file_url(caller.workspace_id, key),
                            ),
                        )
                    )
                )

            return make

        jobs = [job(index) for index in range(len(outline.slides))]
        # Closed here, not left to the garbage collector, if this generator is closed
        # at a yield: the jobs still running are cancelled before the cleanup.
        made = cast(AsyncGenerator[Event, None], fan_out(jobs, IMAGE_CONCURRENCY))
        async with contextlib.aclosing(made):
            async for item in made:
                yield item
        slides = [
            CarouselSlide(
                carousel_id=carousel.id,
                position=index,
                title=slide.title,
                content=slide.content,
                image_prompt=slide.image_prompt,
                image_file=image_files[index],
                source=slide.source,
            )
            for index, slide in enumerate(outline.slides)
        ]
        yield Event.of(GeneratingPdf(message=f"Rendering {len(slides)} slides to PDF"))
        rendered = await work.run(assets.render_files, caller.files, carousel, slides)
        logger.info(
            "carousel %s rendered: html %.3fs, pdf %.3fs, thumbnail %.3fs",
            carousel.id,
            rendered.html_seconds,
            rendered.pdf_seconds,
            rendered.thumbnail_seconds,
        )
        carousel.pdf_file = rendered.pdf_file
        carousel.thumbnail_file = rendered.thumbnail_file
        record = repository.CarouselRecord(carousel, slides)

        def save() -> None:
            # Noted in the thread as it commits: a run cancelled during the save
            # learns from here that the carousel is stored and must be kept.
            saved.post_id = repository.save_new_carousel(
                caller.engine,
                record,
                user_id=caller.user_id,
                prompt=plan.request.prompt,
                caption=outline.caption,
                reference=post_reference(carousel, slides).wire(),
                reservation_id=plan.reservation_id,
            )

        await work.run(save)  # sets the carousel's post_id
        yield Event.of(CarouselComplete(success=True, data=carousel_view(carousel, slides)))
    finally:
        # Runs on failure, on cancellation (client gone) and on early close.
        await finish(_settle(plan, work, quota, saved), cleanups)


async def _settle(
    plan: CarouselPlan, work: ThreadWork, quota: Reservation, saved: SaveOutcome
) -> None:
    """Once no thread of the run is left to write, keep the carousel if its save
    committed, or else remove its folder; then give back the unspent quota."""
    await work.ended()
    if saved.post_id is not None:
        quota.spend()  # the carousel's post is stored: its quota stays used
    else:
        folder = assets.carousel_folder(plan.carousel_id)
        await asyncio.to_thread(plan.caller.files.delete_folder, plan.caller.workspace_id, folder)
    await quota.give_back()


def _new_carousel(plan: CarouselPlan, outline: Outline) -> Carousel:
    """The carousel row (not yet stored) with the user's images saved beside it."""
    caller = plan.caller
    artwork = plan.artwork
    stored: dict[str, str | None] = {"profile": None, "logo": None}
    for stem, image in (("profile", artwork.profile_image), ("logo", artwork.logo)):
        if image is not None:
            data, media_type = assets.brand_image(image.data, image.media_type)
            stored[stem] = assets.store_image(
                caller.files, caller.workspace_id, plan.carousel_id, stem, data, media_type
            )
    return Carousel(
        id=plan.carousel_id,
        workspace_id=caller.workspace_id,
        user_id=caller.user_id,
        name=outline.name,
        prompt=plan.request.prompt,
        template=plan.template.name,
        theme=plan.template.theme.as_dict(),
        handle=plan.request.handle,
        author_name=plan.author_name,
        profile_image_url=plan.request.profile_image_url,
        profile_image_file=stored["profile"],
        logo_file=stored["logo"],
        width=plan.width,
        height=plan.height,
        pdf_file="",
        thumbnail_file="",
    )


def _store_slide_image(files: FileStore, carousel: Carousel, index: int, image: ImageResult) -> str:
    data, media_type = assets.slide_art(image.data, image.media_type, carousel.width)
    return assets.store_image(
        files, carousel.workspace_id, carousel.id, f"slide-{index}", data, media_type
    )
