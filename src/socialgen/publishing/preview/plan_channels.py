"""The networks whose post is one piece or a run of messages: LinkedIn (one post, no
thread), Telegram (media with a caption, then text replies), Discord (the channel's
next messages) and Pixelfed (one photo post). Each plan is its adapter's `prepare`
without the client, from the network's own modules."""

from __future__ import annotations

from socialgen.publishing.networks.base import MediaItem
from socialgen.publishing.preview.schemas import MediaView
from socialgen.publishing.preview.shapes import Plan, media_view, part, plural


def linkedin(text: str, media: tuple[MediaItem, ...], number_parts: bool) -> Plan:
    from socialgen.publishing.networks.linkedin.media import MAX_IMAGES, chosen_media
    from socialgen.publishing.networks.linkedin.text import MAX_COMMENTARY, commentary

    commentary(text)  # LinkedIn's refusal (over 3,000 characters) before anything else
    chosen = chosen_media(media)
    # The reader sees the text as written: the escapes are the API format's.
    parts = [
        part(0, text, len(text), MAX_COMMENTARY, "characters", [media_view(i) for i in chosen])
    ]
    plan = Plan(
        parts,
        [
            f"{MAX_COMMENTARY:,} characters in one post, never a thread",
            f"one document (the carousel's PDF, shown as swipeable pages) or up to "
            f"{MAX_IMAGES} images",
        ],
    )
    images = [item for item in media if item.kind == "image"]
    if chosen and chosen[0].kind == "document" and images:
        plan.left_out.append(
            f"The {plural(len(images), 'slide image')}: the carousel goes as its PDF, "
            "LinkedIn's document post"
        )
    elif len(images) > len(chosen):
        plan.left_out.append(f"{plural(len(images) - len(chosen), 'image')} past {MAX_IMAGES}")
    return plan


def telegram(text: str, media: tuple[MediaItem, ...], number_parts: bool) -> Plan:
    from socialgen.publishing.networks.telegram.text import (
        MAX_ALBUM,
        MAX_CAPTION,
        MAX_TEXT,
        chosen_media,
        post_units,
        units16,
    )

    units = post_units(text, media, number_parts)
    _, _, left_out = chosen_media(media)
    kinds = {"photo": "caption", "album": "caption", "document": "document"}
    parts = [
        part(
            index,
            unit.text,
            units16(unit.text),
            MAX_TEXT if unit.kind == "text" else MAX_CAPTION,
            "UTF-16 code units",
            [media_view(item) for item in unit.media],
            kind=kinds.get(unit.kind, "post" if index == 0 else "reply"),
        )
        for index, unit in enumerate(units)
    ]
    return Plan(
        parts,
        [
            f"{MAX_TEXT:,} characters a message, {MAX_CAPTION:,} under media; the rest "
            "follows as replies",
            f"one photo or an album of 2 to {MAX_ALBUM}; the carousel's PDF as a document",
        ],
        left_out=list(left_out),
    )


def discord(text: str, media: tuple[MediaItem, ...], number_parts: bool) -> Plan:
    from socialgen.publishing.networks.base import PublishError
    from socialgen.publishing.networks.discord.media import MAX_BYTES, MAX_FILES, attachments
    from socialgen.publishing.networks.discord.text import MAX_CHARACTERS, length, split

    files, left_out = attachments(media)  # refuses files over 10 MiB in all
    texts = split(text, number_parts=number_parts)
    if not texts[0] and not files:
        raise PublishError("Discord: the post has no text and no files (Discord refuses it)")
    # The files go with the first message, images first (media.py's order).
    carried = [
        MediaView(
            kind="image" if file.mime_type.startswith("image/") else "document",
            mimeType=file.mime_type,
            bytes=len(file.data),
            label=file.description,
        )
        for file in files
    ]
    parts = [
        part(
            index,
            piece,
            length(piece),
            MAX_CHARACTERS,
            "UTF-16 code units",
            carried if index == 0 else [],
            kind="post" if index == 0 else "message",
        )
        for index, piece in enumerate(texts)
    ]
    return Plan(
        parts,
        [
            f"{MAX_CHARACTERS:,} characters a message; a longer post goes as the channel's "
            "next messages (a webhook cannot reply)",
            f"{MAX_FILES} files on the first message, {MAX_BYTES // 1024 // 1024} MiB in all",
        ],
        left_out=list(left_out),
    )


def pixelfed(text: str, media: tuple[MediaItem, ...], number_parts: bool) -> Plan:
    from socialgen.publishing.networks.pixelfed.text import (
        DEFAULT_MAX_CHARACTERS,
        DEFAULT_MAX_MEDIA,
        Rules,
        album,
        photo_post,
    )

    rules = Rules()  # the instance's own are read when the post goes out
    photo = photo_post(text, media, rules)  # refuses a post without an image
    taken, _ = album(media, rules)
    left_out = [str(line) for line in photo.details.get("leftOut", [])]
    parts = [
        part(
            0,
            photo.text,
            int(photo.details["characters"]),
            rules.max_characters,
            "characters",
            [media_view(item) for item in taken],
        )
    ]
    return Plan(
        parts,
        [
            f"one photo post: {DEFAULT_MAX_CHARACTERS} characters of caption (Pixelfed's "
            "default: the instance's own is read when the post goes out), never a thread",
            f"an image is required; {DEFAULT_MAX_MEDIA} images (the default); no documents",
        ],
        left_out=left_out,
    )
