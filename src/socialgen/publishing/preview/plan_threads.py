"""The networks whose long posts become threads of replies: Bluesky, Mastodon, X,
Threads and Nostr. Each plan is its adapter's `prepare` without the client: the same
split, counts and media choices, from the network's own modules."""

from __future__ import annotations

from socialgen.publishing.networks.base import MediaItem, PublishError
from socialgen.publishing.preview.shapes import Plan, media_view, part, plural

NO_DOCUMENTS = "The carousel's PDF: {name} takes images, not documents (its slides go as images)"


def bluesky(text: str, media: tuple[MediaItem, ...], number_parts: bool) -> Plan:
    from socialgen.publishing.networks.bluesky.adapter import IMAGES_PER_POST
    from socialgen.publishing.networks.bluesky.media import MAX_IMAGE_BYTES
    from socialgen.publishing.networks.bluesky.text import (
        MAX_BYTES,
        MAX_GRAPHEMES,
        graphemes,
        split_text,
    )

    texts = split_text(text, number_parts=number_parts) if text.strip() else []
    images = [item for item in media if item.kind == "image"]
    groups = [images[i : i + IMAGES_PER_POST] for i in range(0, len(images), IMAGES_PER_POST)]
    count = max(len(texts), len(groups))
    if count == 0:
        raise PublishError("Bluesky: the post has no text and no images")
    texts += [""] * (count - len(texts))  # more images than text: parts of images alone
    shrunk = f"re-encoded as JPEG to fit Bluesky's {MAX_IMAGE_BYTES:,} bytes"
    parts = [
        part(
            index,
            piece,
            graphemes(piece),
            MAX_GRAPHEMES,
            "graphemes",
            [
                media_view(item, shrunk if len(item.data) > MAX_IMAGE_BYTES else "")
                for item in (groups[index] if index < len(groups) else [])
            ],
        )
        for index, piece in enumerate(texts)
    ]
    plan = Plan(
        parts,
        [
            f"{MAX_GRAPHEMES} graphemes and {MAX_BYTES:,} bytes a post; a longer text "
            "becomes a thread",
            f"{IMAGES_PER_POST} images a post, each within {MAX_IMAGE_BYTES:,} bytes; no documents",
        ],
    )
    if len(images) < len(media):
        plan.left_out.append(NO_DOCUMENTS.format(name="Bluesky"))
    return plan


def mastodon(text: str, media: tuple[MediaItem, ...], number_parts: bool) -> Plan:
    from socialgen.publishing.networks.mastodon.adapter import DEFAULT_MAX_MEDIA
    from socialgen.publishing.networks.mastodon.text import (
        DEFAULT_MAX_CHARACTERS,
        URL_CHARACTERS,
        count,
        split,
    )

    texts = split(text, DEFAULT_MAX_CHARACTERS, number=number_parts)
    images = [item for item in media if item.kind == "image"]
    attached = images[:DEFAULT_MAX_MEDIA]
    parts = [
        part(
            index,
            piece,
            count(piece),
            DEFAULT_MAX_CHARACTERS,
            "characters",
            [media_view(item) for item in attached] if index == 0 else [],
        )
        for index, piece in enumerate(texts)
    ]
    plan = Plan(
        parts,
        [
            f"{DEFAULT_MAX_CHARACTERS} characters a post (Mastodon's default: the instance's "
            f"own limit is read when the post goes out); a link counts {URL_CHARACTERS}",
            f"{DEFAULT_MAX_MEDIA} images on the first post (the default); no documents",
        ],
    )
    if len(images) > len(attached):
        plan.left_out.append(
            f"{plural(len(images) - len(attached), 'image')} past the {DEFAULT_MAX_MEDIA} "
            "a post takes"
        )
    if len(images) < len(media):
        plan.left_out.append(NO_DOCUMENTS.format(name="Mastodon"))
    return plan


def x(text: str, media: tuple[MediaItem, ...], number_parts: bool) -> Plan:
    from socialgen.publishing.networks.x.media import IMAGES_PER_POST, MAX_IMAGE_BYTES, plan_media
    from socialgen.publishing.networks.x.text import (
        MAX_WEIGHTED,
        URL_WEIGHT,
        split_text,
        weighted_length,
    )

    # As the adapter's _plan: a post of images alone is one part without text.
    if not text.strip() and not any(item.kind == "image" for item in media):
        raise PublishError("X: the post has no text and no images")
    texts = split_text(text, number_parts=number_parts) if text.strip() else [""]
    per_part, left_out = plan_media(media, len(texts))
    parts = [
        part(
            index,
            piece,
            weighted_length(piece),
            MAX_WEIGHTED,
            "weighted characters",
            [media_view(item) for item in per_part[index]],
        )
        for index, piece in enumerate(texts)
    ]
    return Plan(
        parts,
        [
            f"{MAX_WEIGHTED} weighted characters a post: a link counts {URL_WEIGHT}, most "
            "emoji and CJK characters 2; a longer text becomes a thread",
            f"{IMAGES_PER_POST} images a post, each within {MAX_IMAGE_BYTES // 1024 // 1024} "
            "MB; no documents",
        ],
        left_out=list(left_out),
    )


def threads(text: str, media: tuple[MediaItem, ...], number_parts: bool) -> Plan:
    from socialgen.publishing.networks.threads.media import MAX_IMAGES, images_of
    from socialgen.publishing.networks.threads.text import (
        MAX_CHARACTERS,
        MAX_LINKS,
        count,
        thread_parts,
    )

    texts = thread_parts(text, number_parts)
    images = images_of(media)
    parts = [
        part(
            index,
            piece,
            count(piece),
            MAX_CHARACTERS,
            "characters (an emoji counts its UTF-8 bytes)",
            [media_view(item) for item in images.sent] if index == 0 else [],
        )
        for index, piece in enumerate(texts)
    ]
    return Plan(
        parts,
        [
            f"{MAX_CHARACTERS} characters a post and {MAX_LINKS} links; a longer text "
            "becomes a thread",
            f"images only from a public address (files in a bucket): one, or a carousel of "
            f"2 to {MAX_IMAGES}; no documents",
        ],
        left_out=list(images.left_out),
    )


def nostr(text: str, media: tuple[MediaItem, ...], number_parts: bool) -> Plan:
    from socialgen.publishing.networks.nostr.text import (
        NOTE_CHARACTERS,
        left_out,
        parts_of,
    )

    notes = parts_of(text, number_parts, media)
    parts = [
        part(index, piece, int(details["characters"]), NOTE_CHARACTERS, "characters")
        for index, (piece, details) in enumerate(notes)
    ]
    return Plan(
        parts,
        [
            f"{NOTE_CHARACTERS:,} characters a note (what relays take); a longer text "
            "becomes a thread (NIP-10)",
            "text only: images and documents are left out (no public host to link them from)",
        ],
        left_out=left_out(media),
    )
