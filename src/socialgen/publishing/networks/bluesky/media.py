"""Images for Bluesky: within the 1,000,000-byte blob limit, with their size.

Carousel slides rendered at full resolution can be larger than a Bluesky image may
be; such an image is re-encoded as JPEG, smaller step by step, until it fits,
rather than refused by the PDS at publish time.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from PIL import Image

from socialgen.publishing.networks.base import MediaItem, PublishError

MAX_IMAGE_BYTES = 1_000_000


@dataclass(frozen=True)
class FittedImage:
    data: bytes
    mime_type: str
    width: int
    height: int


def fit_image(item: MediaItem) -> FittedImage:
    try:
        with Image.open(io.BytesIO(item.data)) as opened:
            width, height = opened.size
            if len(item.data) <= MAX_IMAGE_BYTES:
                return FittedImage(item.data, item.mime_type, width, height)
            picture = opened.convert("RGB")
    except (OSError, ValueError, Image.DecompressionBombError):
        raise PublishError("Bluesky: an image could not be read") from None
    scale = 1.0
    for quality in (90, 85, 80, 75, 70, 70, 70, 70):
        size = (max(1, int(width * scale)), max(1, int(height * scale)))
        resized = picture if scale == 1.0 else picture.resize(size, Image.Resampling.LANCZOS)
        buffer = io.BytesIO()
        resized.save(buffer, format="JPEG", quality=quality, optimize=True)
        if buffer.tell() <= MAX_IMAGE_BYTES:
            return FittedImage(buffer.getvalue(), "image/jpeg", size[0], size[1])
        scale *= 0.8
    raise PublishError("Bluesky: an image is too large even after shrinking it")
