"""Threads' images: which of a post's media go, and which are left out and why.

Threads never receives a file's bytes: a container names an `image_url` Meta fetches
the image from, so it must be a public web address. With the files in a bucket, the
outbox hands each image a presigned GET (`MediaItem.public_url`); with a local folder
there is none, and the post goes out as text. One image is an IMAGE container; two to
twenty are a CAROUSEL (each image a container of its own with `is_carousel_item`,
then the carousel naming them as `children`). Threads takes JPEG and PNG only, and no
documents: the carousel's PDF is never sent (its slides go as the images).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from socialgen.publishing.networks.base import MediaItem

MAX_IMAGES = 20  # a carousel's children
TYPES = frozenset({"image/jpeg", "image/png"})
NO_ADDRESS = (
    "Threads takes images only from a public web address it downloads them from, and "
    "socialgen has none for {them} (the files live in a local folder, or the bucket "
    "could not sign a link): the post goes out without its {count}"
)
NO_DOCUMENTS = "Threads takes no documents: the post goes out without its {count} (PDF)"
WRONG_TYPE = "Threads takes JPEG and PNG images only: {count} left out"
TOO_MANY = "Threads takes at most {limit} images in a post: the last {count} are left out"


@dataclass(frozen=True)
class Images:
    """What the first part of a post carries: `sent` (in order) and `left_out`, the
    sentences the dry run shows for the rest."""

    sent: tuple[MediaItem, ...]
    left_out: tuple[str, ...]

    @property
    def media_type(self) -> str:
        if not self.sent:
            return "TEXT"
        return "IMAGE" if len(self.sent) == 1 else "CAROUSEL"


def images_of(media: Sequence[MediaItem]) -> Images:
    images = [item for item in media if item.kind == "image"]
    documents = len(media) - len(images)
    unsigned = [item for item in images if not item.public_url]
    signed = [item for item in images if item.public_url]
    usable = [item for item in signed if item.mime_type in TYPES]
    left: list[str] = []
    if unsigned:
        them = "it" if len(unsigned) == 1 else "them"
        left.append(NO_ADDRESS.format(them=them, count=_many(len(unsigned), "image")))
    if len(usable) < len(signed):
        left.append(WRONG_TYPE.format(count=_many(len(signed) - len(usable), "image")))
    if len(usable) > MAX_IMAGES:
        left.append(TOO_MANY.format(limit=MAX_IMAGES, count=len(usable) - MAX_IMAGES))
    if documents:
        left.append(NO_DOCUMENTS.format(count=_many(documents, "document")))
    return Images(tuple(usable[:MAX_IMAGES]), tuple(left))


def _many(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' if count != 1 else ''}"
