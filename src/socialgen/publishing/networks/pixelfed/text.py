"""Pixelfed's rules for a post: one photo post, its text the caption.

- An image is required. Pixelfed refuses a status without media ("Empty statuses are
  not allowed"), so a post without one is refused here, before anything is sent.
- The caption is counted as Pixelfed's validator counts it (Laravel's `max:` on a
  string: code points, every URL in full, not Mastodon's 23 a link), up to the
  instance's `max_characters` (MAX_CAPTION_LENGTH, 500 by default).
- No thread: a caption that is too long is refused, not split. On Pixelfed a reply is
  a comment under the photo, without an image of its own: a "thread" would read as the
  author commenting on their own post, and a part would show nowhere on its own.
- Pixelfed passes a caption through PHP's strip_tags: what reads as an HTML tag goes,
  and a `<` not followed by a space takes everything up to the next `>` (or the end)
  with it (`I <3 it` becomes `I `). The caption is sent as Pixelfed would keep it, and
  what goes is said in `leftOut`.
- The album: the first `max_media_attachments` images (MAX_ALBUM_LENGTH, 4 by default)
  of the types the instance takes (JPEG, PNG, GIF by default). A carousel's PDF is no
  image: its slides go, the PDF is left out.

Pure rules, no client: the dry run of a handle not connected yet reads them too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from socialgen.publishing.networks.base import MediaItem, PreparedPart, PublishError

DEFAULT_MAX_CHARACTERS = 500  # Pixelfed's MAX_CAPTION_LENGTH
DEFAULT_MAX_MEDIA = 4  # Pixelfed's MAX_ALBUM_LENGTH
DEFAULT_MIME_TYPES = ("image/jpeg", "image/png", "image/gif")  # Pixelfed's MEDIA_TYPES
DESCRIPTION_LIMIT = 1000  # alt text: Pixelfed's PF_MEDIA_MAX_ALTTEXT_LENGTH
NO_IMAGE = (
    "Pixelfed needs an image: a post without one is refused (attach a carousel, whose "
    "slides go as the album)"
)
# What PHP's strip_tags takes: `<` then no white space, up to the next `>` or the end.
TAG = re.compile(r"<(?!\s)[^>]*>?", re.DOTALL)


@dataclass(frozen=True)
class Rules:
    """What the instance takes; `known`: it said so (else Pixelfed's defaults)."""

    max_characters: int = DEFAULT_MAX_CHARACTERS
    max_media: int = DEFAULT_MAX_MEDIA
    mime_types: tuple[str, ...] = DEFAULT_MIME_TYPES
    known: bool = False


def count(text: str) -> int:
    """A caption's length as Pixelfed's validator counts it: code points."""
    return len(text)


def as_kept(text: str) -> tuple[str, list[str]]:
    """The caption as Pixelfed keeps it (strip_tags), and what it takes out."""
    removed = [match.group() for match in TAG.finditer(text)]
    return TAG.sub("", text).strip(), removed


def album(media: Sequence[MediaItem], rules: Rules) -> tuple[list[MediaItem], list[str]]:
    """The images that go, in order, and a sentence for each thing that does not."""
    left_out: list[str] = []
    if any(item.kind != "image" for item in media):
        left_out.append(
            "The carousel's PDF: Pixelfed takes images, not documents (its slides go as the album)"
        )
    images = [item for item in media if item.kind == "image"]
    taken: list[MediaItem] = []
    for number, item in enumerate(images, start=1):
        if item.mime_type in rules.mime_types:
            taken.append(item)
        else:
            left_out.append(
                f"Image {number} ({item.mime_type}): the instance takes "
                f"{', '.join(rules.mime_types)}"
            )
    if len(taken) > rules.max_media:
        left_out.append(
            f"{len(taken) - rules.max_media} more image(s): the instance takes "
            f"{rules.max_media} a post"
        )
    return taken[: rules.max_media], left_out


def photo_post(text: str, media: Sequence[MediaItem], rules: Rules) -> PreparedPart:
    """The one part Pixelfed receives, or a PublishError saying why it would refuse it
    (no image it takes, a caption over the limit)."""
    images, left_out = album(media, rules)
    if not images:
        reason = NO_IMAGE if not left_out else f"{NO_IMAGE}. Left out: {'; '.join(left_out)}"
        raise PublishError(reason)
    caption, removed = as_kept(text)
    _check_length(caption, rules)
    if removed:
        left_out.append(
            "Pixelfed removes what reads as an HTML tag from a caption: "
            + ", ".join(repr(piece) for piece in removed)
        )
    details: dict[str, Any] = {
        "characters": count(caption),
        "limit": rules.max_characters,
        "media": [
            {
                "mime_type": item.mime_type,
                "bytes": len(item.data),
                "description": item.alt_text[:DESCRIPTION_LIMIT],
            }
            for item in images
        ],
    }
    if not rules.known:
        details["limit_note"] = (
            "the instance did not say its limits: Pixelfed's defaults assumed "
            f"({DEFAULT_MAX_CHARACTERS} characters, {DEFAULT_MAX_MEDIA} images)"
        )
    if left_out:
        details["leftOut"] = left_out
    return PreparedPart(text=caption, details=details)


def _check_length(caption: str, rules: Rules) -> None:
    length = count(caption)
    if length > rules.max_characters:
        raise PublishError(
            f"The caption has {length} characters and Pixelfed takes "
            f"{rules.max_characters} on this instance; a Pixelfed post is one photo "
            "post, never split into a thread: shorten the text"
        )


def unconnected_parts(
    text: str, number_parts: bool, *, images: int | None = None
) -> list[tuple[str, dict[str, Any]]]:
    """The dry run for a handle not connected yet, by Pixelfed's default limits.
    `images`: how many images the post carries (None: not said, then the need for one
    is a note; 0: refused). One post, never a thread: `number_parts` has nothing to
    number."""
    if images == 0:
        raise PublishError(NO_IMAGE)
    caption, removed = as_kept(text)
    rules = Rules()
    _check_length(caption, rules)
    details: dict[str, Any] = {
        "characters": count(caption),
        "limit": rules.max_characters,
        "limit_note": "the instance's own limits are read once connected: 500 assumed",
    }
    if images is None:
        details["image_note"] = NO_IMAGE
    if removed:
        details["leftOut"] = [
            "Pixelfed removes what reads as an HTML tag from a caption: "
            + ", ".join(repr(piece) for piece in removed)
        ]
    return [(caption, details)]


def connect_command(handle: str) -> str:
    """The command that connects `handle` (`@name@server` names its server)."""
    _, at, server = handle.strip().lstrip("@").partition("@")
    where = server if at and server else "SERVER"
    return f"socialgen accounts add pixelfed --instance https://{where}"
