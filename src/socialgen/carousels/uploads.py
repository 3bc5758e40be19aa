"""Images from carousel users (reference images, a brand logo, a profile picture).

Each is checked by content (`socialgen.images.check`) before anything else touches
it; a profile picture given as a link is fetched through the SSRF guard first.
"""

from __future__ import annotations

from collections.abc import Sequence

from socialgen.images.check import CheckedImage, check_image, read_image_file
from socialgen.kit.errors import BadRequest
from socialgen.kit.limits import MAX_IMAGE_BYTES, MAX_REFERENCE_IMAGES
from socialgen.sources.fetch import fetch

# The image checks live in socialgen.images (the image gateway needs them too);
# the slice's modules name them here, with the two checks only carousels make.
__all__ = [
    "CheckedImage",
    "check_image",
    "check_reference_images",
    "fetch_profile_image",
    "read_image_file",
]

PROFILE_IMAGE = "the profile image"
PROFILE_IMAGE_TIMEOUT = 15.0  # seconds for the whole download


def check_reference_images(files: Sequence[bytes]) -> list[CheckedImage]:
    """SPEC.md's generate-with-images: up to MAX_REFERENCE_IMAGES, each checked."""
    if len(files) > MAX_REFERENCE_IMAGES:
        raise BadRequest(f"At most {MAX_REFERENCE_IMAGES} reference images are allowed")
    return [check_image(data, f"referenceImages[{index}]") for index, data in enumerate(files)]


async def fetch_profile_image(url: str, *, allow_private: bool) -> CheckedImage:
    """Download a profile picture through the SSRF-guarded fetcher and check it.

    The guard refuses private and loopback addresses (on every redirect hop) with
    `UrlNotAllowed`, a `BadRequest`, before any connection is made, unless
    `allow_private` (the caller's allow_private_urls setting) lets them through.
    """
    page = await fetch(
        url,
        max_bytes=MAX_IMAGE_BYTES,
        timeout=PROFILE_IMAGE_TIMEOUT,
        accept="image/*",
        allow_private=allow_private,
    )
    return check_image(page.body, PROFILE_IMAGE)
