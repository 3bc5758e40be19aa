"""Carousel request bodies: JSON, or multipart/form-data with image files.

One pydantic model per body reads the JSON object and the form's fields and files
alike and is the endpoint's OpenAPI body (`request_body.documented_body`). Text is
trimmed, and a blank or null optional field is the same as leaving it out; numbers are
JSON numbers (a form sends them as digits, the only way a form can).

File fields: referenceImages (up to 5), brandLogo (one), and userProfileImage,
which SPEC.md gives as a URL but which may also be sent as a file. Every image is
checked by content, in a worker thread, before anything is made or stored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, cast

from pydantic import Field
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from socialgen.carousels.plan import Artwork
from socialgen.carousels.schemas import (
    MAX_PROMPT_CHARS,
    CarouselRequest,
    RegenerateSlideRequest,
    handle,
    prompt,
    slide_count,
    slide_index,
    whole_number,
)
from socialgen.carousels.templates import TEMPLATES
from socialgen.carousels.uploads import (
    CheckedImage,
    check_image,
    check_reference_images,
    fetch_profile_image,
)
from socialgen.http.body_models import (
    Blank,
    BodyModel,
    FormOnly,
    HttpUrlText,
    form_fields,
    read_model,
    reads,
)
from socialgen.http.request_body import FormSpec, optional_text
from socialgen.kit.errors import BadRequest
from socialgen.kit.limits import (
    DEFAULT_SLIDE_HEIGHT,
    DEFAULT_SLIDE_WIDTH,
    DEFAULT_SLIDES,
    MAX_IMAGE_BYTES,
    MAX_PDF_SLIDES,
    MAX_REFERENCE_IMAGES,
    MAX_SLIDE_SIDE,
    MAX_SLIDES,
    MIN_SLIDES,
    NOT_BLANK_PATTERN,
    SPACE_CLASS,
)

REFERENCES = "referenceImages"
LOGO = "brandLogo"
PROFILE = "userProfileImage"

# --- what the fields accept (their types: the OpenAPI schema) -----------------------

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
Image = Annotated[bytes, FormOnly()]  # a file part: PNG, JPEG, WebP or GIF, checked by content
ReferenceImages = Annotated[
    list[bytes],
    FormOnly(),
    Field(
        max_length=MAX_REFERENCE_IMAGES,
        description="PNG, JPEG, WebP or GIF images, at most 8 MB each; repeat the field.",
    ),
]
SlideSide = Annotated[int, Field(ge=1, le=MAX_SLIDE_SIDE)]


# --- how they are read, with SPEC.md's messages --------------------------------------


def _text(name: str) -> Any:
    return reads(lambda value, _form: optional_text(value, name))


def _prompt(value: Any, _form: bool) -> str:
    return prompt(value)


def _handle(value: Any, _form: bool) -> str | None:
    return handle(optional_text(value, "socialMediaHandle"))


def _single(files: list[bytes], name: str) -> bytes:
    if len(files) > 1:
        raise BadRequest(f"Send at most one {name} file")
    return files[0]


def _one_file(name: str) -> Any:
    """A form's one file of `name`; JSON carries none (the key is ignored there)."""
    return reads(
        lambda value, form: _single(value, name) if _form_files(value, form, name) else None
    )


def _files(value: Any, form: bool) -> list[bytes]:
    """A form's files of a repeated field (counted and checked by the reader)."""
    return cast(list[bytes], value) if _form_files(value, form, REFERENCES) else []


def _form_files(value: Any, form: bool, name: str) -> bool:
    """True when a form sent files for `name`; a text part there is refused."""
    if form and isinstance(value, str):
        raise BadRequest(f"The form field `{name}` must be an image file, not text")
    return form and isinstance(value, list)


def _profile(value: Any, form: bool) -> bytes | str | None:
    """A picture: a URL in JSON; a URL or an image file in a form."""
    if isinstance(value, list):
        if form:
            return _single(value, PROFILE)
        raise BadRequest("userProfileImage must be a URL string")
    return optional_text(value, PROFILE)


def _slide_count(value: Any, form: bool) -> int:
    return slide_count(value, form=form)


def _slide_index(value: Any, form: bool) -> int:
    return slide_index(value, form=form)


def _carousel_id(value: Any, _form: bool) -> str:
    carousel_id = optional_text(value, "carouselId")
    if carousel_id is None:
        raise BadRequest("carouselId is required")
    return carousel_id


def _slides_html(value: Any, _form: bool) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(page, str) for page in value):
        raise BadRequest("slidesHtml is required: an array of HTML strings, one per slide")
    return value


def _side(name: str) -> Any:
    # Absent means the default; null, "1080" or 1.5 are refused (a JSON integer only).
    return reads(lambda value, _form: whole_number(value, name))


# Two fields as JSON sends them, for the MCP tool that takes the JSON body.
ProfileUrl = Annotated[HttpUrlText | Blank | None, reads(_profile)]
JsonSlideCount = Annotated[SlideCount | None, reads(_slide_count)]

# --- the bodies ------------------------------------------------------------------------


class CarouselBody(BodyModel):
    """A carousel from a prompt; the author's picture, if any, as a URL or (in a form)
    an image file, with a logo and reference images."""

    prompt: Annotated[Prompt, reads(_prompt)]
    socialMediaHandle: Annotated[Handle | Blank | None, reads(_handle)] = Field(
        default=None, description="ada or @ada: letters, digits, _ . - (at most 60)."
    )
    template: Annotated[TemplateName | Blank | None, _text("template")] = Field(
        default=None, description="The slide template (default bold)."
    )
    contentStyleId: Annotated[str | None, _text("contentStyleId")] = Field(
        default=None, description="A content style's id."
    )
    slideCount: Annotated[SlideCount | Annotated[Blank, FormOnly()] | None, reads(_slide_count)] = (
        Field(default=DEFAULT_SLIDES, description=SLIDE_COUNT)
    )
    userProfileImage: Annotated[Image | HttpUrlText | Blank | None, reads(_profile)] = Field(
        default=None,
        description="URL of the author's picture (public http(s)); in a form, an image "
        "file instead.",
    )
    brandLogo: Annotated[Image | None, FormOnly(), _one_file(LOGO)] = Field(
        default=None, description="A logo shown on every slide."
    )
    referenceImages: Annotated[ReferenceImages | None, FormOnly(), reads(_files)] = None

    def request(self) -> CarouselRequest:
        url = self.userProfileImage if isinstance(self.userProfileImage, str) else None
        return CarouselRequest(
            prompt=self.prompt,
            handle=self.socialMediaHandle,
            profile_image_url=url,
            template=self.template,
            content_style_id=self.contentStyleId,
            slide_count=cast(int, self.slideCount),  # `reads` made it a number
        )


class RegenerateSlideBody(BodyModel):
    """A new image for one slide, guided in a form by reference images; the PDF and
    thumbnail are rendered again."""

    carouselId: Annotated[str, Field(min_length=1, pattern=NOT_BLANK_PATTERN), reads(_carousel_id)]
    slideIndex: Annotated[
        int,
        Field(
            ge=0,
            le=MAX_SLIDES - 1,  # no carousel has more slides
            description="The slide, counting from 0; less than the carousel's slide count.",
        ),
        reads(_slide_index),
    ]
    prompt: Annotated[Prompt, reads(_prompt)]
    referenceImages: Annotated[ReferenceImages | None, FormOnly(), reads(_files)] = None

    def request(self) -> RegenerateSlideRequest:
        return RegenerateSlideRequest(self.carouselId, self.slideIndex, self.prompt)


class PdfBody(BodyModel):
    """Slide HTML documents rendered to one vector PDF, a page each."""

    slidesHtml: Annotated[
        list[Annotated[str, Field(pattern=NOT_BLANK_PATTERN)]],
        Field(
            min_length=1,
            max_length=MAX_PDF_SLIDES,
            description="One HTML document per slide, each not blank; at most 2 MB of UTF-8 "
            "per slide and 16 MB in all.",
        ),
        reads(_slides_html),
    ]
    width: Annotated[SlideSide, _side("width")] = DEFAULT_SLIDE_WIDTH
    height: Annotated[SlideSide, _side("height")] = DEFAULT_SLIDE_HEIGHT


# The form fields each endpoint takes are those its model lists, so that a part named
# otherwise is refused as soon as its headers arrive.
CREATE_FORM = FormSpec(
    text_fields=form_fields(CarouselBody) - {REFERENCES, LOGO},
    file_fields=frozenset({REFERENCES, LOGO, PROFILE}),
    max_file_bytes=MAX_IMAGE_BYTES,
    indexed_fields=frozenset({REFERENCES}),
)
REGENERATE_FORM = FormSpec(
    text_fields=form_fields(RegenerateSlideBody) - {REFERENCES},
    file_fields=frozenset({REFERENCES}),
    max_file_bytes=MAX_IMAGE_BYTES,
    indexed_fields=frozenset({REFERENCES}),
)


@dataclass(frozen=True)
class CreateBody:
    request: CarouselRequest
    artwork: Artwork


@dataclass(frozen=True)
class RegenerateBody:
    request: RegenerateSlideRequest
    references: list[CheckedImage]


async def read_create_body(request: Request, *, allow_private: bool) -> CreateBody:
    """The create form or JSON, its images checked; a profile picture given as a link
    is fetched (`allow_private`: the caller's allow_private_urls setting)."""
    body = await read_model(request, CarouselBody, CREATE_FORM)
    carousel_request = body.request()
    references = await run_in_threadpool(check_reference_images, body.referenceImages or [])
    logo = await run_in_threadpool(_checked, body.brandLogo, LOGO)
    picture = body.userProfileImage
    profile = await run_in_threadpool(
        _checked, picture if isinstance(picture, bytes) else None, PROFILE
    )
    if profile is None and carousel_request.profile_image_url:
        profile = await fetch_profile_image(
            carousel_request.profile_image_url, allow_private=allow_private
        )
    return CreateBody(carousel_request, Artwork(references, logo, profile))


async def read_regenerate_body(request: Request) -> RegenerateBody:
    body = await read_model(request, RegenerateSlideBody, REGENERATE_FORM)
    references = await run_in_threadpool(check_reference_images, body.referenceImages or [])
    return RegenerateBody(body.request(), references)


def _checked(data: bytes | None, name: str) -> CheckedImage | None:
    return check_image(data, name) if data is not None else None
