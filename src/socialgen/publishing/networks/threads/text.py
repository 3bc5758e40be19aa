"""Threads' text rules, without the client: what `prepare` shows and the dry run for an
unconnected handle reads.

- A post takes 500 characters, and Meta counts an emoji as its UTF-8 bytes (a flag
  is 8, a family of four 25), so a part is measured the same way: one per character,
  the UTF-8 length for an emoji and the invisible characters that glue emoji
  together. A longer post becomes a thread, each part a reply to the one before.
- A post carries at most 5 distinct links (Meta refuses a container with more:
  THREADS_API__LINK_LIMIT_EXCEEDED), so a part with more is refused here, before
  anything is sent.
- Images and carousels need a public URL Threads downloads them from (media.py):
  with a bucket the outbox presigns one, without one the post goes out as text and
  the dry run says what is left out.

A long post is cut at a paragraph end first, then a line end, a sentence end, a word
end, and inside a word only when one word is longer than a whole post.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from socialgen.publishing.networks.base import PublishError

MAX_CHARACTERS = 500
MAX_LINKS = 5
# Links as Threads finds them in a text: a scheme, or a bare www. address.
LINK = re.compile(r"(?:https?://|www\.)[^\s<>\"]+[^\s<>\".,;:!?)\]'\u2019\u201d]", re.I)
# Cut points, best first: the match's start ends a part, its end starts the next. A cut
# only counts when the part before it is at least a third of the limit (no tiny part).
BOUNDARIES = (
    re.compile(r"\n[ \t]*\n\s*"),  # paragraph
    re.compile(r"\n\s*"),  # line
    re.compile(r"(?<=[.!?…])[\"'\u2019\u201d)\]]*\s+"),  # sentence
    re.compile(r"\s+"),  # word
)
# Glue inside emoji sequences: the zero-width joiner, variation selectors, tags.
_EMOJI_GLUE = frozenset({0x200D, 0xFE0E, 0xFE0F, 0x20E3}) | frozenset(range(0xE0020, 0xE0080))


def weight(char: str) -> int:
    """What one character adds to Threads' count: an emoji counts its UTF-8 bytes."""
    point = ord(char)
    is_emoji = (
        point in _EMOJI_GLUE
        or point >= 0x1F000
        or 0x1F1E6 <= point <= 0x1F1FF
        or (point >= 0x2100 and unicodedata.category(char) == "So")
    )
    return len(char.encode("utf-8")) if is_emoji else 1


def count(text: str) -> int:
    """A post's length as Threads counts it (see the module's note)."""
    return sum(weight(char) for char in text)


def links(text: str) -> set[str]:
    """The distinct links in `text`, as Threads counts them."""
    return {match.group(0).lower() for match in LINK.finditer(text)}


def split(text: str, *, number: bool = False, limit: int = MAX_CHARACTERS) -> list[str]:
    """`text` as the thread's parts, each within `limit`; with `number`, each part of a
    thread of several ends with " i/n" (its room kept before cutting)."""
    text = text.strip()
    if count(text) <= limit or not text:
        return [text]
    if not number:
        return _cut(text, limit)
    digits = 1
    while True:
        reserve = len(f" {10**digits - 1}/{10**digits - 1}")
        parts = _cut(text, limit - reserve)
        if len(str(len(parts))) <= digits:
            return [f"{part} {index}/{len(parts)}" for index, part in enumerate(parts, 1)]
        digits += 1


def thread_parts(text: str, number_parts: bool) -> list[str]:
    """The parts the adapter sends, in order; a PublishError for a post Threads would
    refuse (nothing to say, or a part with more links than a post takes)."""
    if not text.strip():
        raise PublishError(
            "Threads: the post has no text (socialgen sends images to Threads only with "
            "the post's text)"
        )
    parts = split(text, number=number_parts)
    for index, part in enumerate(parts, 1):
        found = len(links(part))
        if found > MAX_LINKS:
            where = f"part {index} of the thread" if len(parts) > 1 else "the post"
            raise PublishError(
                f"Threads takes at most {MAX_LINKS} links in a post and {where} has "
                f"{found}: remove some links before publishing to Threads"
            )
    return parts


def part_details(part: str, index: int, total: int) -> dict[str, Any]:
    details: dict[str, Any] = {
        "characters": count(part),
        "limit": MAX_CHARACTERS,
        "links": len(links(part)),
        "mediaType": "TEXT",
    }
    if index > 0:
        details["replyTo"] = f"part {index} of {total}"
    return details


def unconnected_parts(text: str, number_parts: bool) -> list[tuple[str, dict[str, Any]]]:
    """The parts and their details as the adapter would send them (no network call)."""
    parts = thread_parts(text, number_parts)
    return [(part, part_details(part, i, len(parts))) for i, part in enumerate(parts)]


def connect_command(handle: str) -> str:
    """The command that connects a Threads account: a sign-in with the user's Meta app
    (the token says whose it is, so the handle is not part of it; --token-stdin takes
    a token made in the app's dashboard instead)."""
    return "socialgen accounts add threads --client-id THREADS_APP_ID"


def _cut(text: str, limit: int) -> list[str]:
    parts: list[str] = []
    rest = text
    while rest:
        if count(rest) <= limit:
            parts.append(rest)
            break
        end = _fit(rest, limit)
        cut, resume = _best_cut(rest, end, limit)
        parts.append(rest[:cut].rstrip())
        rest = rest[resume:].lstrip()
    return [part for part in parts if part]


def _fit(text: str, limit: int) -> int:
    """How many leading characters fit in `limit` (at least one: progress)."""
    total = 0
    for index, char in enumerate(text):
        total += weight(char)
        if total > limit:
            return max(index, 1)
    return len(text)


def _best_cut(text: str, end: int, limit: int) -> tuple[int, int]:
    """(end of this part, start of the next) for a part within text[:end]."""
    window = text[: end + 1]  # a boundary may start right at `end` (the space after)
    for pattern in BOUNDARIES:
        starts = [m for m in pattern.finditer(window) if 0 < m.start() <= end]
        if starts and count(text[: starts[-1].start()]) >= limit / 3:
            return starts[-1].start(), starts[-1].end()
    cut = end
    # Never split an emoji sequence: back up over its glue.
    while cut > 1 and ord(text[cut]) in _EMOJI_GLUE:
        cut -= 1
    return cut, cut
