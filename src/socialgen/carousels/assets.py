"""A carousel's files: its images in the file store, and the PDF and thumbnail
rendered from its slides. Blocking (disk, WeasyPrint): call off the event loop."""

from __future__ import annotations

import io
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from socialgen.carousels.slides import Brand, SlideContent, Theme, data_uri
from socialgen.files.layout import carousel_folder as carousel_folder  # re-exported; files/ owns it
from socialgen.files.store import MEDIA_TYPES, content_name
from socialgen.store.tables import Carousel, CarouselSlide

if TYPE_CHECKING:
    from socialgen.files.store import FileStore
    from socialgen.render.pdf import SlideRenderer

MEDIA_EXTENSIONS = {media: extension for extension, media in MEDIA_TYPES.items()}
THUMBNAIL_WIDTH = 540
BRAND_IMAGE_SIDE = 400  # logos and profile pictures are drawn small
ART_JPEG_QUALITY = 88


def store_image(
    files: FileStore, workspace_id: str, carousel_id: str, stem: str, data: bytes, media_type: str
) -> str:
    """Save an image next to its carousel; returns its key."""
    name = content_name(stem, data, MEDIA_EXTENSIONS[media_type])
    key = f"{carousel_folder(carousel_id)}/{name}"
    files.save(workspace_id, key, data)
    return key


def slide_art(data: bytes, media_type: str, max_side: int) -> tuple[bytes, str]:
    """A slide image as JPEG at most `max_side` px: WeasyPrint embeds JPEG as it is
    but re-compresses PNG/WebP on every render (about 0.25 s per 1080 px image)."""
    if media_type == "image/jpeg" and _fits(data, max_side):
        return data, media_type
    from PIL import Image  # on use: Pillow is not needed to start the server

    from socialgen.images.downscale import decode_reduced

    picture = decode_reduced(data, max_side, "RGB", Image.Resampling.BICUBIC)
    buffer = io.BytesIO()
    picture.save(buffer, "JPEG", quality=ART_JPEG_QUALITY)
    return buffer.getvalue(), "image/jpeg"


def brand_image(data: bytes, media_type: str) -> tuple[bytes, str]:
    """A logo or profile picture at most BRAND_IMAGE_SIDE px, keeping transparency.

    Decoded no larger than that (`decode_reduced`): a 40 MP upload would otherwise
    cost several full-size copies (~450 MB) on the way down to 400 px."""
    if _fits(data, BRAND_IMAGE_SIDE):
        return data, media_type
    from PIL import Image

    from socialgen.images.downscale import decode_reduced

    picture = decode_reduced(data, BRAND_IMAGE_SIDE, "RGBA", Image.Resampling.BICUBIC)
    buffer = io.BytesIO()
    picture.save(buffer, "PNG")
    return buffer.getvalue(), "image/png"


def _fits(data: bytes, max_side: int) -> bool:
    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:  # the header only
        return max(image.size) <= max_side


@dataclass(frozen=True)
class RenderedFiles:
    pdf_file: str
    thumbnail_file: str
    html_seconds: float
    pdf_seconds: float
    thumbnail_seconds: float


def render_files(
    files: FileStore, carousel: Carousel, slides: Sequence[CarouselSlide]
) -> RenderedFiles:
    """Render the slides with the carousel's template, save the PDF and page 1 as PNG."""
    from socialgen.render.pdf import SlideRenderer, html_to_pdf
    from socialgen.render.thumbnail import first_page_png

    started = time.perf_counter()
    renderer = SlideRenderer(carousel.width, carousel.height)
    pages = slide_pages(files, carousel, slides, renderer)
    html_done = time.perf_counter()
    # The layouts measured while fitting are reused, not laid out again.
    pdf = html_to_pdf(pages, carousel.width, carousel.height, renderer=renderer)
    pdf_done = time.perf_counter()
    thumbnail = first_page_png(pdf, THUMBNAIL_WIDTH)
    thumbnail_done = time.perf_counter()
    folder = carousel_folder(carousel.id)
    pdf_file = f"{folder}/{content_name('carousel', pdf, 'pdf')}"
    thumbnail_file = f"{folder}/{content_name('thumbnail', thumbnail, 'png')}"
    files.save(carousel.workspace_id, pdf_file, pdf)
    files.save(carousel.workspace_id, thumbnail_file, thumbnail)
    return RenderedFiles(
        pdf_file=pdf_file,
        thumbnail_file=thumbnail_file,
        html_seconds=html_done - started,
        pdf_seconds=pdf_done - html_done,
        thumbnail_seconds=thumbnail_done - pdf_done,
    )


def _image_uri(files: FileStore, carousel: Carousel, key: str | None) -> str | None:
    if key is None:
        return None
    extension = key.rsplit(".", 1)[-1]
    return data_uri(files.read(carousel.workspace_id, key), MEDIA_TYPES[extension])


def slide_pages(
    files: FileStore,
    carousel: Carousel,
    slides: Sequence[CarouselSlide],
    renderer: SlideRenderer,
) -> list[str]:
    """Each slide's HTML, its text fitted to the template's boxes by measuring its
    layout with `renderer` (which then writes the PDF from the same layouts)."""
    from socialgen.carousels.slides_html import render_slides
    from socialgen.render.measure import text_overflow_px

    return render_slides(
        carousel.template,
        [
            SlideContent(slide.title, slide.content, _image_uri(files, carousel, slide.image_file))
            for slide in slides
        ],
        Theme(
            primary_color=carousel.theme["primaryColor"],
            background_color=carousel.theme["backgroundColor"],
            font=carousel.theme["font"],
        ),
        Brand(
            handle=carousel.handle,
            name=carousel.author_name,
            profile_image_uri=_image_uri(files, carousel, carousel.profile_image_file),
            logo_uri=_image_uri(files, carousel, carousel.logo_file),
        ),
        width=carousel.width,
        height=carousel.height,
        overflow=partial(text_overflow_px, renderer=renderer),
    )
