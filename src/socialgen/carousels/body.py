"""Carousel request bodies: JSON, or multipart/form-data with image files.

File fields: referenceImages (up to 5), brandLogo (one), and userProfileImage,
which SPEC.md gives as a URL but which may also be sent as a file. Every image is
checked by content before anything is made or stored.
"""

from __future__ import annotations

from dataclasses import dataclass

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from socialgen.carousels.plan import Artwork
from socialgen.carousels.schemas import (
    CarouselFormBody,
    CarouselRequest,
    RegenerateSlideFormBody,
    RegenerateSlideRequest,
)
from socialgen.carousels.uploads import (
    CheckedImage,
    check_image,
    check_reference_images,
    fetch_profile_image,
)
from socialgen.errors import BadRequest
from socialgen.limits import MAX_IMAGE_BYTES
from socialgen.request_body import FormSpec, RequestBody, media_type, old_form_fields, read_body

REFERENCES = "referenceImages"
LOGO = "brandLogo"
PROFILE = "userProfileImage"
# The form fields each endpoint takes are those its form model (its OpenAPI body) lists, so that
# a part named otherwise is refused as soon as its headers arrive.
CREATE_FORM = FormSpec(
    text_fields=old_form_fields(CarouselFormBody) - {REFERENCES, LOGO},
    file_fields=frozenset({REFERENCES, LOGO, PROFILE}),
    max_file_bytes=MAX_IMAGE_BYTES,
    indexed_fields=frozenset({REFERENCES}),
)
REGENERATE_FORM = FormSpec(
    text_fields=old_form_fields(RegenerateSlideFormBody) - {REFERENCES},
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


async def read_create_body(request: Request) -> CreateBody:
    body = await read_body(request, CREATE_FORM)
    if isinstance(body.fields.get(PROFILE), list):
        raise BadRequest("userProfileImage must be a URL string")
    carousel_request = CarouselRequest.from_fields(body.fields, form=is_form(request))
    references = await run_in_threadpool(check_reference_images, body.files.get(REFERENCES, []))
    logo = await run_in_threadpool(_one, body, LOGO)
    profile = await run_in_threadpool(_one, body, PROFILE)
    if profile is None and carousel_request.profile_image_url:
        profile = await fetch_profile_image(carousel_request.profile_image_url)
    return CreateBody(carousel_request, Artwork(references, logo, profile))


async def read_regenerate_body(request: Request) -> RegenerateBody:
    body = await read_body(request, REGENERATE_FORM)
    regenerate = RegenerateSlideRequest.from_fields(body.fields, form=is_form(request))
    references = await run_in_threadpool(check_reference_images, body.files.get(REFERENCES, []))
    return RegenerateBody(regenerate, references)


def is_form(request: Request) -> bool:
    """A multipart form gives every field as text; JSON gives numbers as numbers."""
    return media_type(request.headers.get("content-type", "")) == "multipart/form-data"


def _one(body: RequestBody, name: str) -> CheckedImage | None:
    files = body.files.get(name, [])
    if len(files) > 1:
        raise BadRequest(f"Send at most one {name} file")
    return check_image(files[0], name) if files else None
