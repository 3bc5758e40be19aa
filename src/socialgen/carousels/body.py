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
from socialgen.carousels.requests import CarouselRequest, RegenerateSlideRequest
from socialgen.carousels.uploads import (
    CheckedImage,
    check_image,
    check_reference_images,
    fetch_profile_image,
)
from socialgen.errors import BadRequest
from socialgen.limits import MAX_IMAGE_BYTES, MAX_REFERENCE_IMAGES
from socialgen.request_body import RequestBody, read_body

REFERENCES = "referenceImages"
LOGO = "brandLogo"
PROFILE = "userProfileImage"
# Room for every file at its cap, plus one more so a sixth reference image is
# refused by count ("At most 5 ...") rather than by size.
MAX_FILES_BYTES = (MAX_REFERENCE_IMAGES + 3) * MAX_IMAGE_BYTES
TOO_LARGE = (
    f"The upload is too large: at most {MAX_REFERENCE_IMAGES} reference images, "
    f"a logo and a profile image of {MAX_IMAGE_BYTES // (1024 * 1024)} MB each"
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
    body = await _read(request, frozenset({REFERENCES, LOGO, PROFILE}))
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
    body = await _read(request, frozenset({REFERENCES}))
    regenerate = RegenerateSlideRequest.from_fields(body.fields, form=is_form(request))
    references = await run_in_threadpool(check_reference_images, body.files.get(REFERENCES, []))
    return RegenerateBody(regenerate, references)


async def _read(request: Request, file_fields: frozenset[str]) -> RequestBody:
    return await read_body(
        request,
        file_fields=file_fields,
        max_file_bytes=MAX_FILES_BYTES,
        too_large=TOO_LARGE,
    )


def is_form(request: Request) -> bool:
    """A multipart form gives every field as text; JSON gives numbers as numbers."""
    media_type = request.headers.get("content-type", "").split(";", 1)[0]
    return media_type.strip().lower() == "multipart/form-data"


def _one(body: RequestBody, name: str) -> CheckedImage | None:
    files = body.files.get(name, [])
    if len(files) > 1:
        raise BadRequest(f"Send at most one {name} file")
    return check_image(files[0], name) if files else None
