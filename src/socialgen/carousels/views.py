"""Carousel rows to SPEC.md shapes: the carousel, its slides, the post's reference."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from socialgen.files.store import file_url
from socialgen.store.tables import Carousel, CarouselSlide


def slide_view(carousel: Carousel, slide: CarouselSlide) -> dict[str, Any]:
    """A slide: id, title, content, source, image (URL), user {name, profileImage {url}},
    theme."""
    profile = (
        file_url(carousel.workspace_id, carousel.profile_image_file)
        if carousel.profile_image_file
        else ""
    )
    return {
        "id": slide.id,
        "slideIndex": slide.position,
        "title": slide.title,
        "content": slide.content,
        "source": slide.source,
        "image": file_url(carousel.workspace_id, slide.image_file),
        "user": {
            "name": carousel.author_name or carousel.handle or "",
            "profileImage": {"url": profile},
        },
        "theme": dict(carousel.theme),
    }


def carousel_view(carousel: Carousel, slides: Sequence[CarouselSlide]) -> dict[str, Any]:
    """The complete event's data: carouselId, name, status, pdfUrl, thumbnailUrl, slides."""
    return {
        "carouselId": carousel.id,
        "name": carousel.name,
        "status": carousel.status,
        "template": carousel.template,
        "postId": carousel.post_id,
        "pdfUrl": file_url(carousel.workspace_id, carousel.pdf_file),
        "thumbnailUrl": file_url(carousel.workspace_id, carousel.thumbnail_file),
        "slides": [slide_view(carousel, slide) for slide in slides],
    }


def post_reference(carousel: Carousel, slides: Sequence[CarouselSlide]) -> dict[str, Any]:
    """What the carousel's post carries: SPEC.md's timeline shape {id, name,
    thumbnailUrl, pdfUrl}, plus status and slides so the post alone shows it."""
    view = carousel_view(carousel, slides)
    return {
        "id": carousel.id,
        "name": carousel.name,
        "status": carousel.status,
        "thumbnailUrl": view["thumbnailUrl"],
        "pdfUrl": view["pdfUrl"],
        "slides": view["slides"],
    }
