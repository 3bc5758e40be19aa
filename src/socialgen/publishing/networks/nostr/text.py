"""A post as Nostr notes (kind 1): the pure rules, read by `prepare` and by the dry run
of a handle no account has yet (no client, no key, no network call).

Nostr itself sets no length; relays do. nostr-relay refuses content past 4,096
characters by default and others cap a whole event (64 KB for strfry), so a note here
carries at most NOTE_CHARACTERS and a longer post becomes a thread (NIP-10), cut at
paragraph ends first, then line ends, sentence ends, words, and inside a word only for
a word longer than a whole note. `#word` becomes a `t` tag (NIP-24: lower case), which
is how clients find a note by hashtag.

Images need a public URL to link to (NIP-92 imeta); socialgen has no such host, so
media are left out, and the dry run says so.
"""

from __future__ import annotations

import re
from typing import Any

from socialgen.publishing.networks.base import MediaItem, PublishError

NOTE_CHARACTERS = 4000
MAX_HASHTAGS = 20  # a note with more is spam to most relays' filters
_HASHTAG = re.compile(r"(?<![\w#&])#(\w[\w-]*)")
_CUTS = (
    re.compile(r"\n[ \t]*\n\s*"),  # paragraph
    re.compile(r"\n\s*"),  # line
    re.compile(r"(?<=[.!?…])[\"'\u2019\u201d)\]]*\s+"),  # sentence
    re.compile(r"\s+"),  # word
)


def hashtags(text: str) -> list[str]:
    """The note's `t` tag values: each #hashtag once, lower case, in order."""
    found = [match.group(1).lower().rstrip("-") for match in _HASHTAG.finditer(text)]
    return list(dict.fromkeys(tag for tag in found if tag))[:MAX_HASHTAGS]


def split(text: str, limit: int = NOTE_CHARACTERS, *, number: bool = False) -> list[str]:
    """`text` as notes of at most `limit` characters; with `number`, each part of a
    thread ends with " i/n" (its room is kept before cutting)."""
    text = text.strip()
    if len(text) <= limit:
        return [text]
    if not number:
        return _cut(text, limit)
    total = 9
    for _ in range(4):  # the marker's width depends on the count it marks
        parts = _cut(text, limit - len(f" {total}/{total}"))
        if len(parts) <= total:
            break
        total = len(parts)
    return [f"{part} {i}/{len(parts)}" for i, part in enumerate(parts, start=1)]


def _cut(text: str, limit: int) -> list[str]:
    parts: list[str] = []
    rest = text
    while len(rest) > limit:
        at = _cut_point(rest, limit)
        parts.append(rest[:at].rstrip())
        rest = rest[at:].lstrip()
    if rest:
        parts.append(rest)
    return parts


def _cut_point(text: str, limit: int) -> int:
    """Where the next part begins: the end of the last boundary of the best kind that
    leaves a first part of at least a third of the limit (no tiny parts)."""
    window = text[: limit + 1]
    for boundary in _CUTS:
        best = None
        for match in boundary.finditer(window):
            if limit // 3 <= len(window[: match.end()].rstrip()) <= limit:
                best = match.end()
        if best is not None:
            return best
    return limit


def left_out(media: tuple[MediaItem, ...] | list[Any]) -> list[str]:
    """What the notes will not carry, in sentences (details["leftOut"])."""
    if not media:
        return []
    images = sum(1 for item in media if getattr(item, "kind", "image") == "image")
    others = len(media) - images
    said: list[str] = []
    if images:
        said.append(
            f"{images} image{'s' if images != 1 else ''} left out: a Nostr note shows an "
            "image by linking to it on a public host, and socialgen has none to put it on"
        )
    if others:
        said.append(f"{others} document{'s' if others != 1 else ''} left out: notes carry text")
    return said


def parts_of(
    text: str, number_parts: bool, media: tuple[MediaItem, ...] | list[Any] = ()
) -> list[tuple[str, dict[str, Any]]]:
    """The notes of a post and their details, as the adapter sends them."""
    if not text.strip():
        raise PublishError("Nostr: the post has no text (notes carry text; images are left out)")
    texts = split(text, NOTE_CHARACTERS, number=number_parts)
    out: list[tuple[str, dict[str, Any]]] = []
    for index, part in enumerate(texts):
        details: dict[str, Any] = {
            "kind": 1,
            "characters": len(part),
            "limit": NOTE_CHARACTERS,
            "hashtags": hashtags(part),
        }
        if index > 0:
            details["in_reply_to"] = f"part {index} (NIP-10 reply, root: part 1)"
        if index == 0 and media:
            details["leftOut"] = left_out(media)
        out.append((part, details))
    return out


def unconnected_parts(text: str, number_parts: bool) -> list[tuple[str, dict[str, Any]]]:
    """What a Nostr account would receive, for the dry run of an unconnected handle."""
    return parts_of(text, number_parts)


def connect_command(handle: str) -> str:
    """How a Nostr account is connected: its private key on stdin (the handle, an npub,
    is what the key says; the relays are the default ones unless --relays names others)."""
    return "socialgen accounts add nostr --nsec-stdin"
