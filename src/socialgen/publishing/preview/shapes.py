"""What a network's plan is made of: the parts (the post, then its thread's replies,
each with its count against the limit and the media it carries), the limits that
shaped them, what is left out and what to watch; and the networks' names."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from socialgen.publishing.networks.base import MediaItem
from socialgen.publishing.preview.schemas import MediaView, PartView

NAMES = {
    "bluesky": "Bluesky",
    "mastodon": "Mastodon",
    "linkedin": "LinkedIn",
    "x": "X",
    "threads": "Threads",
    "telegram": "Telegram",
    "discord": "Discord",
    "nostr": "Nostr",
    "pixelfed": "Pixelfed",
}


@dataclass
class Plan:
    parts: list[PartView]
    rules: list[str]
    left_out: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def images_on(self, number: int) -> bool:
        """Whether part `number` (1-based) carries an image (a card then gives way)."""
        return any(
            item.kind == "image"
            for part in self.parts
            if part.number == number
            for item in part.media
        )


def part(
    index: int,
    text: str,
    count: int,
    limit: int,
    unit: str,
    media: Sequence[MediaView] = (),
    *,
    kind: str = "",
) -> PartView:
    """Part `index` (0-based) of a thread: the post, then replies."""
    return PartView(
        number=index + 1,
        kind=kind or ("post" if index == 0 else "reply"),
        text=text,
        count=count,
        limit=limit,
        unit=unit,
        media=list(media),
    )


def media_view(item: MediaItem, note: str = "") -> MediaView:
    return MediaView(
        kind=item.kind,
        mimeType=item.mime_type,
        bytes=len(item.data),
        label=item.title if item.kind == "document" else item.alt_text,
        note=note,
    )


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"
