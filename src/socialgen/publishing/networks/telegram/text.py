"""Telegram's text rules, without the client: what a channel post becomes, the names a
channel and a bot token may have, and where a message is seen.

A message holds 4,096 characters and a media caption 1,024. Telegram counts them
after it parses entities; we send plain text (no parse_mode), so nothing is parsed
away, and count UTF-16 code units, which is never fewer than what Telegram counts
(an emoji outside the BMP counts two here): a part that fits here fits there.

A longer post goes out as replies, each to the part before it, cut at paragraph ends
first, then line ends, sentence ends, word ends, and inside a word only for a word
longer than a whole message. Telegram drops a message's leading and trailing blanks,
so the parts are stripped here already and the dry run shows what goes live.

The parts of a post (`units`): the media first when it has any (one photo, an album
of 2 to 10, or the carousel's PDF as a document) with the text's start as caption,
then the rest of the text as text replies, then the carousel's PDF after an album
(the slides seen in the channel, the whole deck to download).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from socialgen.publishing.networks.base import MediaItem, PublishError

MAX_TEXT = 4096  # sendMessage's text, editMessageText's too
MAX_CAPTION = 1024  # sendPhoto, sendDocument, an album's first item, editMessageCaption
MAX_ALBUM = 10  # sendMediaGroup takes 2 to 10 items
MAX_PHOTO_BYTES = 10 * 1024 * 1024  # sendPhoto's limit for an upload
MAX_DOCUMENT_BYTES = 50 * 1024 * 1024  # sendDocument's limit for an upload
PHOTO_TYPES = frozenset({"image/jpeg", "image/png", "image/webp"})

# A bot token as @BotFather gives it: the bot's numeric id, a colon, 35 characters.
BOT_TOKEN = re.compile(r"\d{1,20}:[A-Za-z0-9_-]{35}", re.ASCII)
# A public channel's name: 5 to 32 letters, digits or underscores, starting with a
# letter; a chat id: a whole number (channels' are -100 followed by their own id).
CHANNEL_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{3,30}[A-Za-z0-9]")
CHAT_ID = re.compile(r"-?\d{1,20}", re.ASCII)
T_ME = re.compile(r"^(?:https?://)?(?:www\.)?(?:t|telegram)\.me/", re.IGNORECASE)

# Cut points, best first: each match's end is where the next part begins. A cut only
# counts when the part before it is a third of the room or more: a paragraph break
# near the start must not make a tiny first part.
BOUNDARIES = (
    re.compile(r"\n[ \t]*\n\s*"),  # paragraph
    re.compile(r"\n\s*"),  # line
    re.compile(r"(?<=[.!?…])[\"'\u2019\u201d)\]]*\s+"),  # sentence
    re.compile(r"\s+"),  # word
)


def units16(text: str) -> int:
    """`text`'s length in UTF-16 code units (see the module's note)."""
    return len(text.encode("utf-16-le")) // 2


@dataclass(frozen=True)
class Unit:
    """One call that makes something live: `kind` is "text" (sendMessage), "photo"
    (sendPhoto), "album" (sendMediaGroup) or "document" (sendDocument); `text` is the
    message or the caption; `media` what is uploaded with it."""

    kind: str
    text: str
    media: tuple[MediaItem, ...] = ()

    def detail(self) -> dict[str, Any]:
        """What the dry run shows of it besides the text."""
        limit = MAX_TEXT if self.kind == "text" else MAX_CAPTION
        shown: dict[str, Any] = {
            "method": METHODS[self.kind],
            "characters": units16(self.text),
            "limit": limit,
        }
        if self.media:
            shown["media"] = [
                {"kind": item.kind, "mimeType": item.mime_type, "bytes": len(item.data)}
                | ({"title": item.title} if item.kind == "document" and item.title else {})
                for item in self.media
            ]
        return shown


METHODS = {
    "text": "sendMessage",
    "photo": "sendPhoto",
    "album": "sendMediaGroup",
    "document": "sendDocument",
}


def chosen_media(
    media: tuple[MediaItem, ...],
) -> tuple[tuple[MediaItem, ...], MediaItem | None, list[str]]:
    """(the images for a photo or an album, the document, what is left out and why)."""
    left_out: list[str] = []
    images: list[MediaItem] = []
    for item in media:
        if item.kind != "image":
            continue
        if item.mime_type not in PHOTO_TYPES:
            left_out.append(f"An image of type {item.mime_type}: Telegram takes JPEG, PNG, WebP.")
        elif len(item.data) > MAX_PHOTO_BYTES:
            left_out.append("An image over 10 MB: Telegram's limit for a photo.")
        else:
            images.append(item)
    if len(images) > MAX_ALBUM:
        left_out.append(f"{len(images) - MAX_ALBUM} images past the album's {MAX_ALBUM}.")
        images = images[:MAX_ALBUM]
    if any(item.alt_text for item in images):
        left_out.append("The images' alt text: Telegram has no place for it.")
    documents = [item for item in media if item.kind == "document"]
    document = documents[0] if documents else None
    if len(documents) > 1:
        left_out.append(f"{len(documents) - 1} more documents: a post sends one.")
    if document is not None and len(document.data) > MAX_DOCUMENT_BYTES:
        left_out.append("The PDF, over 50 MB: Telegram's limit for a bot's upload.")
        document = None
    return tuple(images), document, left_out


def post_units(text: str, media: tuple[MediaItem, ...], number_parts: bool) -> list[Unit]:
    """The calls a post becomes, in order (see the module's note). Raises
    PublishError for a post Telegram would refuse (nothing to send)."""
    images, document, _ = chosen_media(media)
    text = text.strip()
    first: Unit | None = None
    if images:
        first = Unit("photo" if len(images) == 1 else "album", "", images)
    elif document is not None:
        first = Unit("document", "", (document,))
        document = None
    if first is None and not text:
        raise PublishError("Telegram: the post has no text and no media")
    limits = [MAX_CAPTION if first is not None else MAX_TEXT]
    pieces = split(text, limits, MAX_TEXT, number=number_parts) if text else [""]
    units: list[Unit] = []
    if first is not None:
        units.append(Unit(first.kind, pieces[0], first.media))
        pieces = pieces[1:]
    units.extend(Unit("text", piece) for piece in pieces if piece)
    if document is not None:  # an album's carousel: the deck follows, titled
        units.append(Unit("document", document.title[:MAX_CAPTION].strip(), (document,)))
    return units


def split(text: str, first_limits: list[int], limit: int, *, number: bool = False) -> list[str]:
    """`text` as parts: the first ones within `first_limits` (a caption's 1,024), the
    others within `limit`, counted in UTF-16 units. With `number`, every part of a
    thread of two or more ends with " i/n", its room kept before cutting."""
    text = text.strip()
    if not text:
        return [""]
    parts = _cut(text, first_limits, limit, 0)
    if not number or len(parts) == 1:
        return parts
    digits = len(str(len(parts)))
    while True:
        reserve = units16(f" {10**digits - 1}/{10**digits - 1}")
        parts = _cut(text, first_limits, limit, reserve)
        if len(str(len(parts))) <= digits:
            total = len(parts)
            return [f"{part} {index}/{total}" for index, part in enumerate(parts, start=1)]
        digits += 1


def _cut(text: str, first_limits: list[int], limit: int, reserve: int) -> list[str]:
    parts: list[str] = []
    rest = text
    while rest:
        room = first_limits[len(parts)] if len(parts) < len(first_limits) else limit
        room = max(room - reserve, 1)
        if units16(rest) <= room:
            parts.append(rest)
            break
        cut, resume = _best_cut(rest, _fit(rest, room), room)
        part = rest[:cut].rstrip()
        if part:
            parts.append(part)
        rest = rest[resume:].lstrip()
    return parts


def _fit(text: str, room: int) -> int:
    """How many leading code points fit in `room` UTF-16 units (at least one)."""
    total = 0
    for index, char in enumerate(text):
        total += 2 if ord(char) > 0xFFFF else 1
        if total > room:
            return max(index, 1)
    return len(text)


def _best_cut(text: str, end: int, room: int) -> tuple[int, int]:
    """(end of this part, start of the next) for a part within text[:end]."""
    window = text[: end + 1]  # a boundary may start right at `end` (the blank after)
    for pattern in BOUNDARIES:
        best: re.Match[str] | None = None
        for match in pattern.finditer(window):
            if 0 < match.start() <= end:
                best = match
        if best is not None and units16(text[: best.start()]) >= room / 3:
            return best.start(), best.end()
    return end, end  # one word longer than a message: cut inside it


def chat_of(handle: str) -> str:
    """The chat id a handle names: "@name" (also "name" or a t.me link) or a numeric
    id; a clear refusal for anything else."""
    raw = handle.strip()
    bare = T_ME.sub("", raw).strip("/").lstrip("@")
    if CHAT_ID.fullmatch(raw):
        return raw
    if CHANNEL_NAME.fullmatch(bare):
        return "@" + bare
    raise PublishError(
        f"Telegram: {brief_handle(raw)} is not a channel: give its @name (5 to 32 letters, "
        "digits or underscores) or its numeric chat id (e.g. -1001234567890)"
    )


def brief_handle(handle: str) -> str:
    shown = handle if len(handle) <= 40 else handle[:39] + "…"
    return repr(shown) if shown else "an empty handle"


def check_token(token: str) -> str:
    """The bot token, if it has @BotFather's shape (`<digits>:<35 characters>`)."""
    token = token.strip()
    if not BOT_TOKEN.fullmatch(token):
        raise PublishError(
            "Telegram: that is not a bot token: @BotFather gives one as the bot's number, "
            "a colon and 35 letters, digits, - or _ (e.g. 123456789:AAE...)"
        )
    return token


def message_url(chat: str, message_id: str) -> str:
    """Where a channel message is seen: t.me/name/id for a public channel, t.me/c/id/id
    for a private one (its members only); "" for a chat t.me cannot link."""
    if chat.startswith("@"):
        return f"https://t.me/{chat[1:]}/{message_id}"
    if chat.startswith("-100") and chat[4:].isdigit():
        return f"https://t.me/c/{chat[4:]}/{message_id}"
    return ""


def unconnected_parts(text: str, number_parts: bool) -> list[tuple[str, dict[str, Any]]]:
    """What a channel would receive of a text post, as the adapter sends it (the dry run
    for a handle no account has yet: no media, no network call)."""
    return [(unit.text, unit.detail()) for unit in post_units(text, (), number_parts)]


def connect_command(handle: str) -> str:
    """The command that connects a channel (its bot token is asked for, or read from
    stdin with --token-stdin). A chat id starts with "-": it follows "--", or the
    command line would read it as an option."""
    try:
        chat = chat_of(handle)
    except PublishError:
        chat = "@CHANNEL"
    return f"socialgen accounts add telegram {'-- ' if chat.startswith('-') else ''}{chat}"
