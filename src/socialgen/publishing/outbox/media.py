"""What a post carries to the networks besides its text.

A carousel post sends the carousel's PDF as a "document" (LinkedIn's document post)
and its first slide images as "image" items with alt text from the slide's title and
text (Bluesky and Mastodon); each adapter picks what its network takes.

With the files in a bucket, each image also carries a public URL: a presigned GET
that lasts `PUBLIC_URL_LIFETIME`, for a network that fetches the file itself
(Threads) instead of receiving its bytes. It is made right before publishing (the
worker calls `post_media` just before the adapter), so the lifetime only needs to
cover the publish and the network's fetch. A bucket that cannot sign one leaves the
image without a URL: the networks that take bytes still get it.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from sqlalchemy import Engine

from socialgen.files.backend import StorageUnavailable
from socialgen.files.store import MEDIA_TYPES, FileStore
from socialgen.kit.errors import NotFound
from socialgen.publishing.networks.base import MediaItem
from socialgen.publishing.outbox.repository import carousel_of, first_slides
from socialgen.store.engine import read_session
from socialgen.store.tables import Post

MAX_IMAGES = 4  # Bluesky's limit per post, and Mastodon's default
MAX_ALT_CHARS = 1000  # within Bluesky's and Mastodon's (1,500) alt text limits
# A publish, a slow container and Meta's fetch (its own retries) fit well inside.
PUBLIC_URL_LIFETIME = timedelta(hours=1)
logger = logging.getLogger("socialgen.publishing")


def post_media(engine: Engine, files: FileStore, post: Post) -> tuple[MediaItem, ...]:
    """The post's media, read from the file store `files` (nothing when it has none)."""
    if not post.carousel:
        return ()
    with read_session(engine) as session:
        carousel = carousel_of(session, post.workspace_id, post.id)
        if carousel is None:
            return ()
        slides = first_slides(session, carousel.id, MAX_IMAGES)
    # Read outside the session: a bucket read can take a while.
    items = [
        MediaItem(
            kind="document",
            data=files.read(post.workspace_id, carousel.pdf_file),
            mime_type="application/pdf",
            title=carousel.name,
        )
    ]
    for slide in slides:
        extension = slide.image_file.rsplit(".", 1)[-1].lower()
        items.append(
            MediaItem(
                kind="image",
                data=files.read(post.workspace_id, slide.image_file),
                mime_type=MEDIA_TYPES.get(extension, "image/jpeg"),
                alt_text=alt_text(slide.title, slide.content),
                public_url=public_url(files, post.workspace_id, slide.image_file),
            )
        )
    return tuple(items)


def public_url(files: FileStore, workspace_id: str, key: str) -> str:
    """A presigned GET of the file in the bucket; "" for a local folder, or when the
    bucket cannot sign it now (logged: the post still goes where bytes are sent)."""
    try:
        return files.presign(workspace_id, key, PUBLIC_URL_LIFETIME)
    except (StorageUnavailable, NotFound):
        logger.warning(
            "no public URL for %s/%s: the file storage did not sign it", workspace_id, key
        )
        return ""


def alt_text(title: str, content: str) -> str:
    text = ". ".join(part.strip().rstrip(".") for part in (title, content) if part.strip())
    if len(text) <= MAX_ALT_CHARS:
        return text
    return text[: MAX_ALT_CHARS - 1].rsplit(" ", 1)[0] + "…"
