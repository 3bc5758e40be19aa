"""One part of a post as the Bot API call that makes it live, and the message ids its
answer gives.

Files go up in the call itself, as multipart: sendPhoto's `photo`, sendDocument's
`document`, and for an album sendMediaGroup's `media`, a JSON list whose items name
their upload `attach://<field>`. An album's caption is its first item's: Telegram
shows it under the album.

A part's id, as the outbox keeps it (`posted_parts`, `Published.part_ids`), is
`<chat>/<message id>` for a text message and `<chat>/c<id>,<id>...` for media with a
caption (an album is several messages, posted and deleted together): the chat is the
numeric id Telegram answered with, so the message is found again even after the
channel's @name changed, and the `c` says the text is a caption (editMessageCaption).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from socialgen.publishing.networks.base import MediaItem, PublishError
from socialgen.publishing.networks.telegram.client import Files
from socialgen.publishing.networks.telegram.text import METHODS, Unit

CAPTIONED = "c"
EXTENSIONS = {"image/jpeg": "jpg", "image/png": "png", "image/webp": "webp"}


@dataclass(frozen=True)
class Call:
    method: str
    fields: dict[str, Any]
    files: Files | None


def unit_call(unit: Unit, chat: str, reply_to: int | None) -> Call:
    """The call that sends `unit` to `chat`, as a reply to `reply_to` when given."""
    fields: dict[str, Any] = {"chat_id": chat}
    if reply_to is not None:
        fields["reply_parameters"] = {"message_id": reply_to}
    method = METHODS[unit.kind]
    if unit.kind == "text":
        # Plain text, no parse_mode: nothing in it is read as markup.
        return Call(method, {**fields, "text": unit.text}, None)
    if unit.kind == "album":
        media, files = [], {}
        for index, item in enumerate(unit.media):
            name = f"photo{index}"
            entry: dict[str, Any] = {"type": "photo", "media": f"attach://{name}"}
            if index == 0 and unit.text:
                entry["caption"] = unit.text
            media.append(entry)
            files[name] = _file(item, f"slide-{index + 1}")
        return Call(method, {**fields, "media": media}, files)
    if unit.text:
        fields["caption"] = unit.text
    (item,) = unit.media
    field = "photo" if unit.kind == "photo" else "document"
    return Call(method, fields, {field: _file(item, "slide-1" if field == "photo" else "")})


def _file(item: MediaItem, stem: str) -> tuple[str, bytes, str]:
    if item.kind == "document":
        name = _file_name(item.title) + ".pdf"
    else:
        name = f"{stem}.{EXTENSIONS.get(item.mime_type, 'jpg')}"
    return name, item.data, item.mime_type


def _file_name(title: str) -> str:
    """The PDF's name as readers download it: the carousel's title, tamed."""
    kept = "".join(char if char.isalnum() or char in " -_" else " " for char in title)
    return "-".join(kept.split())[:60] or "carousel"


def message_ids(result: Any, kind: str) -> list[int]:
    """The ids of the messages a send call made (an album: one per item)."""
    messages = result if kind == "album" else [result]
    ids: list[int] = []
    for message in messages if isinstance(messages, list) else []:
        value = message.get("message_id") if isinstance(message, dict) else None
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            ids.append(value)
    if not ids:
        raise PublishError(
            "Telegram took the message but its answer gave no message id: look at the "
            "channel before retrying with `socialgen posts publish POST_ID --retry`",
            outcome_unknown=True,
        )
    return ids


def answered_chat(result: Any, fallback: str) -> tuple[str, str]:
    """(the chat id to keep, the chat to link to): the numeric id and public @name
    Telegram answered with, else the account's own."""
    first = result[0] if isinstance(result, list) and result else result
    chat = first.get("chat") if isinstance(first, dict) else None
    if not isinstance(chat, dict):
        return fallback, fallback
    number = chat.get("id")
    kept = str(number) if isinstance(number, int) and not isinstance(number, bool) else fallback
    username = chat.get("username")
    linked = f"@{username}" if isinstance(username, str) and username else fallback
    return kept, linked


def part_id(chat: str, ids: list[int], kind: str) -> str:
    joined = ",".join(str(value) for value in ids)
    return f"{chat}/{CAPTIONED if kind != 'text' else ''}{joined}"


@dataclass(frozen=True)
class Part:
    """A part's id read back: its chat, its messages, whether its text is a caption."""

    chat: str
    ids: tuple[int, ...]
    captioned: bool

    @property
    def first(self) -> int:
        return self.ids[0]


def read_part(value: str) -> Part:
    chat, slash, rest = value.rpartition("/")
    captioned = rest.startswith(CAPTIONED)
    numbers = rest[1:] if captioned else rest
    try:
        ids = tuple(int(number) for number in numbers.split(","))
    except ValueError:
        ids = ()
    if not slash or not chat or not ids:
        raise PublishError(f"Telegram: {value!r} is not a message this account posted")
    return Part(chat, ids, captioned)
