"""The carousel's data shapes: its requests, its rows as SPEC.md shows them (the
models of carousels/events.py, which the complete event carries too), and the field
readers (SPEC.md's messages) that the CLI and the HTTP bodies' models
(carousels/body.py) share.

Text is trimmed, and a blank or null optional field is the same as leaving it out;
numbers are JSON numbers (a form sends them as digits, the only way a form can).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from pydantic import Field

from socialgen.carousels.events import (
    CarouselSlide,
    ProfileImage,
    SlideTheme,
    SlideUser,
    StoredCarousel,
)
from socialgen.events.errors import EventContractError
from socialgen.events.payload import Source, WireObject
from socialgen.files.store import file_url
from socialgen.http.request_body import optional_text as text
from socialgen.kit.errors import BadRequest
from socialgen.kit.limits import (
    DEFAULT_SLIDES,
    MAX_SLIDES,
    MIN_SLIDES,
)
from socialgen.kit.views import View
from socialgen.store.tables import Carousel
from socialgen.store.tables import CarouselSlide as SlideRow

# --- requests ---------------------------------------------------------------------

MAX_PROMPT_CHARS = 4000
_HANDLE_FORM = re.compile(r"^@?[A-Za-z0-9_.-]{1,60}$")


@dataclass(frozen=True)
class CarouselRequest:
    prompt: str
    handle: str | None = None
    profile_image_url: str | None = None
    template: str | None = None
    content_style_id: str | None = None
    slide_count: int = DEFAULT_SLIDES


@dataclass(frozen=True)
class RegenerateSlideRequest:
    carousel_id: str
    slide_index: int
    prompt: str


def prompt(value: Any) -> str:
    cleaned = text(value, "prompt")
    if cleaned is None:
        raise BadRequest("prompt is required")
    if len(cleaned) > MAX_PROMPT_CHARS:
        raise BadRequest(f"prompt is longer than {MAX_PROMPT_CHARS} characters")
    return cleaned


def handle(value: str | None) -> str | None:
    """`ada` or `@ada` → `@ada`; letters, digits, `_`, `.`, `-` only."""
    if value is None:
        return None
    if not _HANDLE_FORM.match(value):
        raise BadRequest(
            "socialMediaHandle must be a handle such as @ada_lovelace "
            "(letters, digits, _ . - ; at most 60 characters)"
        )
    return value if value.startswith("@") else f"@{value}"


MAX_DISPLAY_NAME_CHARS = 80


def display_name(value: str | None, source: str = "name") -> str | None:
    """The author's name as slides show it: one line of at most 80 characters,
    spaces collapsed; None when empty. `source` names where it came from."""
    if value is None:
        return None
    if any(not character.isprintable() and not character.isspace() for character in value):
        raise BadRequest(f"{source} must be plain text (no control characters)")
    cleaned = " ".join(value.split())
    if len(cleaned) > MAX_DISPLAY_NAME_CHARS:
        raise BadRequest(f"{source} is longer than {MAX_DISPLAY_NAME_CHARS} characters")
    return cleaned or None


def slide_count(value: Any, *, form: bool = False) -> int:
    if value is None or (form and value == ""):
        return DEFAULT_SLIDES
    number = whole_number(value, "slideCount", text=form)
    if not MIN_SLIDES <= number <= MAX_SLIDES:
        raise BadRequest(f"slideCount must be between {MIN_SLIDES} and {MAX_SLIDES}")
    return number


def slide_index(value: Any, *, form: bool = False) -> int:
    if value is None or (form and value == ""):
        raise BadRequest("slideIndex is required")
    number = whole_number(value, "slideIndex", text=form)
    if number < 0:
        raise BadRequest("slideIndex must be 0 or more (0 is the first slide)")
    return number


def whole_number(value: Any, name: str, *, text: bool = False) -> int:
    """An integer from JSON (1, and 1.0, which JSON Schema counts as an integer), or
    with `text` (a form field) digits ("1"); refuses 1.5, true, "x", and "1" in JSON."""
    if isinstance(value, bool):
        raise BadRequest(f"{name} must be an integer")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    # Up to 18 digits: any size the callers' range checks refuse by name, far below
    # what makes int() slow.
    if text and isinstance(value, str) and re.fullmatch(r"\s*-?\d{1,18}\s*", value):
        return int(value)
    raise BadRequest(f"{name} must be an integer")


# --- rows as SPEC.md shows them ----------------------------------------------------


class CarouselReference(WireObject):
    """What the carousel's post carries: SPEC.md's timeline shape {id, name,
    thumbnailUrl, pdfUrl}, plus status and slides so the post alone shows it."""

    id: str
    name: str
    status: str
    thumbnailUrl: str
    pdfUrl: str
    slides: list[CarouselSlide]


class RegeneratedSlide(WireObject):
    """A slide with a new image, and the carousel's files rendered again."""

    carouselId: str
    slideIndex: int = Field(ge=0)
    slide: CarouselSlide
    pdfUrl: str
    thumbnailUrl: str


def slide_view(carousel: Carousel, slide: SlideRow) -> CarouselSlide:
    """A slide: id, title, content, source, image (URL), user {name, profileImage {url}},
    theme."""
    profile = (
        file_url(carousel.workspace_id, carousel.profile_image_file)
        if carousel.profile_image_file
        else ""
    )
    return CarouselSlide(
        id=slide.id,
        slideIndex=slide.position,
        title=slide.title,
        content=slide.content,
        source=cast(Source, slide.source),  # the model refuses any other word
        image=file_url(carousel.workspace_id, slide.image_file),
        user=SlideUser(
            name=carousel.author_name or carousel.handle or "",
            profileImage=ProfileImage(url=profile),
        ),
        theme=SlideTheme(**carousel.theme),
    )


def carousel_view(carousel: Carousel, slides: Sequence[SlideRow]) -> StoredCarousel:
    """A stored carousel (its post saved: `postId` is set), as the complete event and
    `carousels show` give it."""
    if carousel.post_id is None:  # stored with its post, in one transaction
        raise EventContractError(f"carousel {carousel.id} has no post yet")
    return StoredCarousel(**_stored_fields(carousel, slides))


def _stored_fields(carousel: Carousel, slides: Sequence[SlideRow]) -> dict[str, Any]:
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


class ShownCarousel(View):
    """`carousel show`: a stored carousel as the complete event gives it, but `postId`
    is null for one whose post was never saved (a run that failed first)."""

    carouselId: str
    name: str
    status: str
    template: str
    postId: str | None
    pdfUrl: str
    thumbnailUrl: str
    slides: list[CarouselSlide]

    def json_data(self) -> dict[str, Any]:
        data = self.model_dump(mode="json", exclude={"slides"})
        data["slides"] = [slide.wire() for slide in self.slides]  # as the event's
        return data


def shown_carousel(carousel: Carousel, slides: Sequence[SlideRow]) -> ShownCarousel:
    return ShownCarousel(**_stored_fields(carousel, slides))


def post_reference(carousel: Carousel, slides: Sequence[SlideRow]) -> CarouselReference:
    return CarouselReference(
        id=carousel.id,
        name=carousel.name,
        status=carousel.status,
        thumbnailUrl=file_url(carousel.workspace_id, carousel.thumbnail_file),
        pdfUrl=file_url(carousel.workspace_id, carousel.pdf_file),
        slides=[slide_view(carousel, slide) for slide in slides],
    )
