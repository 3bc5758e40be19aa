"""A new image for one slide, then the PDF and thumbnail again.

The image is made first (the slow part), then the PDF is rendered from the rows
as they are now and saved only if nobody changed the carousel meanwhile;
otherwise it is rendered again from the fresh rows, so two regenerations of
different slides at once both end up in the PDF.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from datetime import datetime

from socialgen.ai.images import ImageModel
from socialgen.app.caller import Caller
from socialgen.carousels import assets, repository
from socialgen.carousels.schemas import (
    RegeneratedSlide,
    RegenerateSlideRequest,
    carousel_view,
    post_reference,
)
from socialgen.carousels.thread_work import ThreadWork, finish
from socialgen.carousels.uploads import CheckedImage
from socialgen.files.store import FileStore
from socialgen.kit.errors import BadRequest
from socialgen.store.tables import CarouselSlide

SAVE_ATTEMPTS = 3


class CarouselLocks:
    """One render-and-save at a time per carousel, for the regenerations of one app
    (its event loop: `carousel_locks` keeps one on the app's state) or one command.
    A carousel's lock is forgotten when nobody holds or waits for it."""

    def __init__(self) -> None:
        self._locks: dict[str, asyncio.Lock] = {}
        self._users: dict[str, int] = {}  # holders and waiters of each lock

    @contextlib.asynccontextmanager
    async def hold(self, carousel_id: str) -> AsyncIterator[None]:
        lock = self._locks.setdefault(carousel_id, asyncio.Lock())
        self._users[carousel_id] = self._users.get(carousel_id, 0) + 1
        try:
            async with lock:
                yield
        finally:
            self._users[carousel_id] -= 1
            if not self._users[carousel_id]:  # nobody holds or waits for it: forget it
                del self._users[carousel_id], self._locks[carousel_id]


async def regenerate_slide(
    caller: Caller,
    request: RegenerateSlideRequest,
    references: Sequence[CheckedImage],
    images: ImageModel,
    locks: CarouselLocks,
    cleanups: set[asyncio.Task[None]],
) -> RegeneratedSlide:
    """The updated slide with the carousel's new pdfUrl and thumbnailUrl. `locks`: the
    app's (or the command's) carousel locks; `cleanups`: where a cleanup outliving a
    cancelled request is kept (the Runtime's `held.cleanups`)."""
    engine, workspace_id, files = caller.engine, caller.workspace_id, caller.files
    record = await asyncio.to_thread(
        repository.load_carousel, engine, workspace_id, request.carousel_id
    )
    count = len(record.slides)
    if request.slide_index >= count:
        raise BadRequest(
            f"slideIndex {request.slide_index} is out of range: "
            f"the carousel has {count} slides (0 to {count - 1})"
        )
    carousel = record.carousel
    image = await images.generate(
        request.prompt,
        width=carousel.width,
        height=carousel.width,
        references=[ref.data for ref in references],
    )
    data, media_type = await asyncio.to_thread(
        assets.slide_art, image.data, image.media_type, carousel.width
    )
    # Files are noted from inside the threads that write them: a request cancelled
    # meanwhile still knows, once its threads have ended, what to remove.
    work = ThreadWork()
    written: set[str] = set()
    kept: set[str] = set()
    # Files the carousel used when read (an identical image or PDF keeps its old
    # name): never removed by a failed attempt.
    existing: set[str] = _files_of(record)

    def store_image() -> str:
        key = assets.store_image(
            files, workspace_id, carousel.id, f"slide-{request.slide_index}", data, media_type
        )
        written.add(key)
        return key

    def render(changed: repository.CarouselRecord) -> assets.RenderedFiles:
        rendered = assets.render_files(files, changed.carousel, changed.slides)
        written.update({rendered.pdf_file, rendered.thumbnail_file})
        return rendered

    def save(changed: repository.CarouselRecord, before: set[str], read_at: datetime) -> None:
        repository.save_slide_change(
            engine,
            changed,
            read_at=read_at,
            reference=post_reference(changed.carousel, changed.slides).wire(),
        )
        # Committed: the new files are the carousel's now, even if the request was
        # cancelled meanwhile; the ones it no longer uses go.
        kept.update(_files_of(changed))
        for key in before - kept:
            files.delete(workspace_id, key)

    try:
        new_image = await work.run(store_image)
        # One render-and-save at a time per carousel in this app, from the rows
        # as they are then: a regeneration that read the rows before another one
        # saved would otherwise render from stale rows and write back files the
        # other had just deleted. Other processes are caught by the saved-row check.
        async with locks.hold(carousel.id), _threads_ended(work, cleanups):
            for attempt in range(1, SAVE_ATTEMPTS + 1):
                record = await asyncio.to_thread(
                    repository.load_carousel, engine, workspace_id, request.carousel_id
                )
                before = _files_of(record)
                existing |= before
                read_at = record.carousel.updated_at
                changed = _with_new_image(record, request, new_image)
                rendered = await work.run(render, changed)
                changed.carousel.pdf_file = rendered.pdf_file
                changed.carousel.thumbnail_file = rendered.thumbnail_file
                try:
                    await work.run(save, changed, before, read_at)
                except repository.CarouselChanged:
                    if attempt == SAVE_ATTEMPTS:
                        raise
                    continue
                view = carousel_view(changed.carousel, changed.slides)
                return RegeneratedSlide(
                    carouselId=carousel.id,
                    slideIndex=request.slide_index,
                    slide=view.slides[request.slide_index],
                    pdfUrl=view.pdfUrl,
                    thumbnailUrl=view.thumbnailUrl,
                )
            raise AssertionError("unreachable")
    finally:
        unused = _remove_unused(work, files, workspace_id, written, kept, existing)
        await finish(unused, cleanups)


async def _remove_unused(
    work: ThreadWork, files: FileStore, workspace_id: str, written: set[str], *used: set[str]
) -> None:
    """Once no thread of the request is left to write (so the sets are complete),
    remove the files it wrote that the carousel does not use."""
    await work.ended()
    for key in written.difference(*used):
        await asyncio.to_thread(files.delete, workspace_id, key)


@contextlib.asynccontextmanager
async def _threads_ended(
    work: ThreadWork, cleanups: set[asyncio.Task[None]]
) -> AsyncIterator[None]:
    """Leave only once the request's threads have ended: a request cancelled while
    it renders keeps the carousel's lock until its render stops writing."""
    try:
        yield
    finally:
        await finish(work.ended(), cleanups)


def _with_new_image(
    record: repository.CarouselRecord, request: RegenerateSlideRequest, image_file: str
) -> repository.CarouselRecord:
    slides = [
        _copy_slide(slide, image_file, request.prompt)
        if slide.position == request.slide_index
        else slide
        for slide in record.slides
    ]
    return repository.CarouselRecord(record.carousel, slides)


def _copy_slide(slide: CarouselSlide, image_file: str, prompt: str) -> CarouselSlide:
    return CarouselSlide(
        id=slide.id,
        carousel_id=slide.carousel_id,
        position=slide.position,
        title=slide.title,
        content=slide.content,
        image_prompt=prompt,
        image_file=image_file,
        source=slide.source,
        updated_at=slide.updated_at,
    )


def _files_of(record: repository.CarouselRecord) -> set[str]:
    """Every file a carousel uses (an identical new image keeps its old name)."""
    carousel = record.carousel
    files = {carousel.pdf_file, carousel.thumbnail_file, carousel.profile_image_file}
    files |= {carousel.logo_file} | {slide.image_file for slide in record.slides}
    return {key for key in files if key}
