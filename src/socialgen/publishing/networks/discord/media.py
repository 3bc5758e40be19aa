"""The files a Discord message carries: a post's images and the carousel's PDF.

A webhook message takes at most 10 files, and 10 MiB in all on a server without
boosts (what a webhook can count on). Images go first, so Discord shows them inline
as a gallery; the PDF follows when there is room. Files past the tenth are left out
(said in the dry run); a post whose files weigh more than 10 MiB is refused before
anything is sent, since Discord would refuse the message whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from socialgen.publishing.networks.base import MediaItem, PublishError

MAX_FILES = 10
MAX_BYTES = 10 * 1024 * 1024
MAX_DESCRIPTION = 1024  # an attachment's description (alt text)
EXTENSIONS = {
    "image/png": "png",
    "image/jpeg": "jpg",
    "image/webp": "webp",
    "image/gif": "gif",
    "application/pdf": "pdf",
}
_UNSAFE = re.compile(r"[^a-z0-9]+")


@dataclass(frozen=True)
class Attachment:
    """One `files[n]` part, and its entry in the payload's `attachments`."""

    index: int
    filename: str
    mime_type: str
    data: bytes
    description: str

    def entry(self) -> dict[str, Any]:
        return {"id": self.index, "filename": self.filename, "description": self.description}

    def view(self) -> dict[str, Any]:
        return {
            "filename": self.filename,
            "mimeType": self.mime_type,
            "bytes": len(self.data),
            "description": self.description,
        }


def attachments(media: tuple[MediaItem, ...]) -> tuple[list[Attachment], list[str]]:
    """The files the first message carries, and sentences for what is left out."""
    ordered = [item for item in media if item.kind == "image"]
    ordered += [item for item in media if item.kind != "image"]
    chosen = ordered[:MAX_FILES]
    left_out = []
    if len(ordered) > len(chosen):
        dropped = ordered[MAX_FILES:]
        kinds = ", ".join(sorted({item.kind for item in dropped}))
        left_out.append(
            f"{len(dropped)} file(s) ({kinds}) left out: a Discord message takes at most "
            f"{MAX_FILES} files"
        )
    files = [_attachment(index, item) for index, item in enumerate(chosen)]
    total = sum(len(item.data) for item in chosen)
    if total > MAX_BYTES:
        raise PublishError(
            f"The post's files come to {total / 1024 / 1024:.1f} MiB; a Discord webhook "
            f"message takes at most {MAX_BYTES // 1024 // 1024} MiB of files: leave some "
            "out or make them smaller"
        )
    return files, left_out


def _attachment(index: int, item: MediaItem) -> Attachment:
    extension = EXTENSIONS.get(item.mime_type, "bin")
    if item.kind == "image":
        name = f"image-{index + 1:02d}"
        description = item.alt_text
    else:
        name = _UNSAFE.sub("-", item.title.lower()).strip("-")[:60] or "carousel"
        description = item.title
    return Attachment(
        index=index,
        filename=f"{name}.{extension}",
        mime_type=item.mime_type,
        data=item.data,
        description=description.strip()[:MAX_DESCRIPTION],
    )
