"""What a post carries to the networks besides its text.

A carousel post sends the carousel's PDF as a "document" (LinkedIn's document post)
and its first slide images as "image" items with alt text from the slide's title and
text (Bluesky and Mastodon); each adapter picks what its network takes.
"""

from __future__ import annotations

from sqlalchemy import Engine

from socialgen.files.store import MEDIA_TYPES, FileStore
from socialgen.publishing.networks.base import MediaItem
from socialgen.publishing.outbox.repository import carousel_of, first_slides
from socialgen.store.engine import read_session
from socialgen.store.tables import Post

MAX_IMAGES = 4  # Bluesky's limit per post, and Mastodon's default
MAX_ALT_CHARS = 1000  # within Bluesky's and Mastodon's (1,500) alt text limits


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
            )
        )
    return tuple(items)


def alt_text(title: str, content: str) -> str:
    text = ". ".join(part.strip().rstrip(".") for part in (title, content) if part.strip())
    if len(text) <= MAX_ALT_CHARS:
        return text
    return text[: MAX_ALT_CHARS - 1].rsplit(" ", 1)[0] + "…"
