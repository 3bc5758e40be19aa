"""A live post changed or taken down, every part of it (base.py's `RemoteEditor`).

An edit cuts the new text as the post was cut (a caption's 1,024 characters on a
leading photo, album or document, 4,096 a message after it) and changes each part in
place: editMessageText for a message, editMessageCaption for media. A trailing PDF
(an album's carousel) keeps its title. A text that now needs more messages than the
post has is refused before anything changes (a new reply would land at the channel's
end, not under the post): delete the post and publish it again. One that needs fewer
deletes the messages left over. Telegram's "message is not modified" (the same text
again) is no failure.

A delete deletes every message of every part; one already gone counts as deleted.
"""

from __future__ import annotations

from collections.abc import Sequence

from socialgen.publishing.networks.base import PublishError
from socialgen.publishing.networks.telegram.client import TelegramClient
from socialgen.publishing.networks.telegram.media import Part, read_part
from socialgen.publishing.networks.telegram.text import MAX_CAPTION, MAX_TEXT, split

NOT_MODIFIED = "message is not modified"
ALREADY_GONE = ("message to delete not found", "wasn't found")


def edit_parts(client: TelegramClient, part_ids: Sequence[str], text: str) -> list[str]:
    """Edit the parts to say `text`; the part ids that remain (extra ones deleted)."""
    parts = [(value, read_part(value)) for value in part_ids]
    leading = parts[0][1].captioned
    # A captioned part after the first is the album's PDF: its title stays.
    editable = parts[:1] + [(value, part) for value, part in parts[1:] if not part.captioned]
    trailer = [value for value, part in parts[1:] if part.captioned]
    pieces = split(text, [MAX_CAPTION if leading else MAX_TEXT], MAX_TEXT)
    if not pieces[0] and not leading:
        raise PublishError("Telegram: a message cannot be edited to no text")
    if len(pieces) > len(editable):
        raise PublishError(
            f"Telegram: the new text needs {len(pieces)} messages and the post has "
            f"{len(editable)}; a new one would not sit under the post. Delete the post "
            "and publish the new text instead"
        )
    kept: list[str] = []
    for index, (value, part) in enumerate(editable):
        if index >= len(pieces):
            _delete(client, part)
            continue
        _edit(client, part, pieces[index], index, len(editable))
        kept.append(value)
    return kept + trailer


def _edit(client: TelegramClient, part: Part, text: str, index: int, total: int) -> None:
    what = f"editing part {index + 1} of {total}"
    if part.captioned:
        method, fields = "editMessageCaption", {"caption": text}
    else:
        method, fields = "editMessageText", {"text": text}
    try:
        client.call(method, {"chat_id": part.chat, "message_id": part.first, **fields}, what=what)
    except PublishError as error:
        if NOT_MODIFIED not in error.message:
            raise


def delete_parts(client: TelegramClient, part_ids: Sequence[str]) -> None:
    for value in part_ids:
        _delete(client, read_part(value))


def _delete(client: TelegramClient, part: Part) -> None:
    for message_id in part.ids:
        try:
            client.call(
                "deleteMessage",
                {"chat_id": part.chat, "message_id": message_id},
                what=f"deleting message {message_id}",
            )
        except PublishError as error:
            if not any(words in error.message for words in ALREADY_GONE):
                raise
