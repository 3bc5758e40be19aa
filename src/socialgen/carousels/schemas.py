"""The carousel's data shapes: its requests (from JSON, multipart form fields or CLI
options alike), its rows as SPEC.md shows them, and the pydantic models that describe
the bodies carousels/body.py reads by hand: their JSON schemas are the OpenAPI bodies.

Rules the reading code follows, and so the schemas: text is trimmed, and a blank or
null optional field is the same as leaving it out; numbers are JSON numbers (a form
sends them as digits, the only way a form can).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, Field
from pydantic.json_schema import SkipJsonSchema

from socialgen.carousels.templates import TEMPLATES
from socialgen.errors import BadRequest
from socialgen.files.store import file_url
from socialgen.limits import (
    DEFAULT_SLIDE_HEIGHT,
    DEFAULT_SLIDE_WIDTH,
    DEFAULT_SLIDES,
    MAX_PDF_SLIDES,
    MAX_REFERENCE_IMAGES,
    MAX_SLIDE_SIDE,
    MAX_SLIDES,
    MIN_SLIDES,
    NOT_BLANK_PATTERN,
    SPACE_CLASS,
)
from socialgen.request_body import DESCRIBES_ONLY, Blank, HttpUrlText
from socialgen.request_body import optional_text as text
from socialgen.store.tables import Carousel, CarouselSlide

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

    @classmethod
    def from_fields(cls, fields: dict[str, Any], *, form: bool = False) -> CarouselRequest:
        return cls(
            prompt=prompt(fields.get("prompt")),
            handle=handle(text(fields.get("socialMediaHandle"), "socialMediaHandle")),
            profile_image_url=text(fields.get("userProfileImage"), "userProfileImage"),
            template=text(fields.get("template"), "template"),
            content_style_id=text(fields.get("contentStyleId"), "contentStyleId"),
            slide_count=slide_count(fields.get("slideCount"), form=form),
        )


@dataclass(frozen=True)
class RegenerateSlideRequest:
    carousel_id: str
    slide_index: int
    prompt: str

    @classmethod
    def from_fields(cls, fields: dict[str, Any], *, form: bool = False) -> RegenerateSlideRequest:
        carousel_id = text(fields.get("carouselId"), "carouselId")
        if carousel_id is None:
            raise BadRequest("carouselId is required")
        return cls(
            carousel_id=carousel_id,
            slide_index=slide_index(fields.get("slideIndex"), form=form),
            prompt=prompt(fields.get("prompt")),
        )


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


# --- the OpenAPI request bodies -----------------------------------------------------
# What carousels/body.py and generate-pdf accept, described (api.py makes them the
# OpenAPI bodies with request_body.openapi_body); the reading code above decides, with
# SPEC.md's messages.

_TRIMMED = f"[{SPACE_CLASS}]*"
Prompt = Annotated[
    str,
    Field(
        min_length=1,
        max_length=MAX_PROMPT_CHARS,
        pattern=NOT_BLANK_PATTERN,
        description=f"At most {MAX_PROMPT_CHARS} characters once trimmed.",
    ),
]
Handle = Annotated[str, Field(pattern=f"^{_TRIMMED}@?[A-Za-z0-9_.-]{{1,60}}{_TRIMMED}$")]
TemplateName = Annotated[str, Field(pattern=f"^{_TRIMMED}({'|'.join(TEMPLATES)}){_TRIMMED}$")]
SlideCount = Annotated[int, Field(ge=MIN_SLIDES, le=MAX_SLIDES)]
SLIDE_COUNT = f"Slides, {MIN_SLIDES} to {MAX_SLIDES}."
Image = bytes  # a file part: PNG, JPEG, WebP or GIF, checked by content
ReferenceImages = Annotated[
    list[Image],
    Field(
        max_length=MAX_REFERENCE_IMAGES,
        description="PNG, JPEG, WebP or GIF images, at most 8 MB each; repeat the field.",
    ),
]


class _CarouselFields(BaseModel):
    model_config = DESCRIBES_ONLY

    prompt: Prompt
    socialMediaHandle: Handle | Blank | None = Field(
        default=None, description="ada or @ada: letters, digits, _ . - (at most 60)."
    )
    template: TemplateName | Blank | None = Field(
        default=None, description="The slide template (default bold)."
    )
    contentStyleId: str | None = Field(default=None, description="A content style's id.")


class CarouselJsonBody(_CarouselFields):
    """A carousel from a prompt; the author's picture, if any, as a URL."""

    slideCount: SlideCount | None = Field(default=DEFAULT_SLIDES, description=SLIDE_COUNT)
    userProfileImage: HttpUrlText | Blank | None = Field(
        default=None, description="URL of the author's picture (public http(s))."
    )


class CarouselFormBody(_CarouselFields):
    """A carousel with image files; a text part is a URL or, for slideCount, digits."""

    slideCount: SlideCount | Blank | SkipJsonSchema[None] = Field(
        default=DEFAULT_SLIDES, description=SLIDE_COUNT
    )
    userProfileImage: Image | HttpUrlText | Blank | SkipJsonSchema[None] = Field(
        default=None, description="The author's picture: an image file or a URL."
    )
    brandLogo: Image | SkipJsonSchema[None] = Field(
        default=None, description="A logo shown on every slide."
    )
    referenceImages: ReferenceImages | SkipJsonSchema[None] = None


class RegenerateSlideJsonBody(BaseModel):
    """A new image for one slide; the PDF and thumbnail are rendered again."""

    model_config = DESCRIBES_ONLY

    carouselId: Annotated[str, Field(min_length=1, pattern=NOT_BLANK_PATTERN)]
    slideIndex: int = Field(
        ge=0,
        le=MAX_SLIDES - 1,  # no carousel has more slides
        description="The slide, counting from 0; less than the carousel's slide count.",
    )
    prompt: Prompt


class RegenerateSlideFormBody(RegenerateSlideJsonBody):
    """A new image for one slide, guided by reference images."""

    referenceImages: ReferenceImages | SkipJsonSchema[None] = None


SlideSide = Annotated[int, Field(ge=1, le=MAX_SLIDE_SIDE)]


class PdfBody(BaseModel):
    """Slide HTML documents rendered to one vector PDF, a page each."""

    model_config = DESCRIBES_ONLY
    slidesHtml: list[Annotated[str, Field(pattern=NOT_BLANK_PATTERN)]] = Field(
        min_length=1,
        max_length=MAX_PDF_SLIDES,
        description="One HTML document per slide, each not blank; at most 2 MB of UTF-8 per "
        "slide and 16 MB in all.",
    )
    width: SlideSide = DEFAULT_SLIDE_WIDTH
    height: SlideSide = DEFAULT_SLIDE_HEIGHT
