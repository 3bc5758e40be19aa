"""Discord's text rules: a post as the messages a webhook sends.

A message holds at most 2,000 characters. Discord counts them as the web app does;
we count UTF-16 code units, which is never fewer (an emoji outside the basic plane is
two), so a part that fits here fits there. A longer post goes out as consecutive
messages, cut at paragraph ends first, then line ends, sentence ends, word ends, and
inside a word only when one word is longer than a message. A webhook cannot reply, so
the parts of a "thread" are simply the channel's next messages.

Discord renders Markdown (`**bold**`, links); the text goes as written. Mentions are
never parsed: every message carries `allowed_mentions: {"parse": []}`, so an
`@everyone` in a post is shown, not pinged.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from socialgen.publishing.networks.base import PublishError

MAX_CHARACTERS = 2000
NO_MENTIONS: dict[str, Any] = {"parse": []}  # allowed_mentions: nobody is pinged
MENTIONS_NOTE = "none: @everyone, @here, roles and users are shown, never pinged"

# Cut points, best first: a match's start ends a part, its end starts the next. A cut
# counts only when the part before it is at least a third of a message, so a
# paragraph break near the start does not make a tiny first message.
BOUNDARIES = (
    re.compile(r"\n[ \t]*\n\s*"),  # paragraph
    re.compile(r"\n\s*"),  # line
    re.compile(r"(?<=[.!?\u2026])[\"'\u2019\u201d)\]]*\s+"),  # sentence
    re.compile(r"\s+"),  # word
)


def length(text: str) -> int:
    """A message's length in UTF-16 code units (see the module's note)."""
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def split(text: str, *, number_parts: bool = False, limit: int = MAX_CHARACTERS) -> list[str]:
    """`text` as messages of at most `limit` characters. With `number_parts`, each
    message of a longer post ends with " i/n": the room is kept before cutting, and the
    cut redone when n needs more digits."""
    text = text.strip()
    if length(text) <= limit:
        return [text]
    if not number_parts:
        return _cut(text, limit)
    digits = 1
    while True:
        widest = "9" * digits
        parts = _cut(text, limit - len(f" {widest}/{widest}"))
        if len(str(len(parts))) <= digits:
            total = len(parts)
            return [f"{part} {index}/{total}" for index, part in enumerate(parts, start=1)]
        digits += 1


def _cut(text: str, limit: int) -> list[str]:
    parts: list[str] = []
    rest = text
    while rest:
        if length(rest) <= limit:
            parts.append(rest)
            break
        end = _fitting(rest, limit)
        cut, resume = _best_cut(rest, end)
        parts.append(rest[:cut].rstrip())
        rest = rest[resume:].lstrip()
    return [part for part in parts if part]


def _fitting(text: str, limit: int) -> int:
    """How many leading code points fit in `limit` units (at least one: progress)."""
    used = 0
    for index, char in enumerate(text):
        used += 2 if ord(char) > 0xFFFF else 1
        if used > limit:
            return max(index, 1)
    return len(text)


def _best_cut(text: str, end: int) -> tuple[int, int]:
    """(end of this part, start of the next) for a part within text[:end]."""
    window = text[: end + 1]  # a boundary may start right at `end` (the space after)
    for pattern in BOUNDARIES:
        best: re.Match[str] | None = None
        for match in pattern.finditer(window):
            if 0 < match.start() <= end:
                best = match
        if best is not None and best.start() >= end // 3:
            return best.start(), best.end()
    return end, end  # one word longer than a message: cut inside it


def part_details(parts: list[str], index: int) -> dict[str, Any]:
    """What a dry run shows of message `index` besides its text."""
    details: dict[str, Any] = {
        "characters": length(parts[index]),
        "limit": MAX_CHARACTERS,
        "allowedMentions": MENTIONS_NOTE,
    }
    if len(parts) > 1:
        details["message"] = f"{index + 1} of {len(parts)}, sent one after the other"
    return details


def unconnected_parts(text: str, number_parts: bool) -> list[tuple[str, dict[str, Any]]]:
    """The messages a webhook would send for `text`, with their details (no network
    call: the dry run for a channel not connected yet)."""
    if not text.strip():
        raise PublishError("Discord: the post has no text and no files (Discord refuses it)")
    parts = split(text, number_parts=number_parts)
    return [(part, part_details(parts, index)) for index, part in enumerate(parts)]


def connect_command(handle: str) -> str:
    """The command that connects a channel's webhook (the URL is asked for, hidden)."""
    name = handle.strip().lstrip("#").strip()
    return f"socialgen accounts add discord --channel {shlex.quote(name) if name else 'CHANNEL'}"
