"""Bluesky text rules: a post into thread parts, rich-text facets, record keys.

A Bluesky post holds at most 300 graphemes and 3,000 UTF-8 bytes. A longer text
becomes a thread, cut at paragraph ends first, then sentence ends, then word ends
(a single word longer than a post, such as a huge URL, is cut anywhere). Facets
(links, @mentions, #hashtags) index the text in UTF-8 *bytes*, not characters, so
an emoji before a link moves the link's offsets by 4, not 1.

Nothing here touches the network: mentions carry the handle, and the adapter
resolves it to a DID at publish time.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass

# `regex` understands extended grapheme clusters (\X); the stdlib `re` does not.
import regex  # type: ignore[import-untyped]  # no stubs installed (types-regex)

MAX_GRAPHEMES = 300
MAX_BYTES = 3000
MAX_TAG_GRAPHEMES = 64  # Bluesky drops longer hashtags

# TIDs are written in this base32 alphabet, which sorts like the numbers it encodes.
TID_ALPHABET = "234567abcdefghijklmnopqrstuvwxyz"

_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
# After ., ! ? or an ellipsis, possibly closed by a quote or bracket.
_SENTENCE_END = re.compile(r"(?<=[.!?\u2026])\s+|(?<=[.!?\u2026][\"'\u201d\u2019)\]])\s+")
_LINK = re.compile(r"https?://[^\s<>\"']+", re.IGNORECASE)
# Bluesky's own rule: an @ at the start or after a space or "(", then a domain-like
# handle (letters, digits, dots, hyphens, with at least one dot).
_MENTION = re.compile(
    r"(?:^|(?<=[\s(]))@((?:[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z][a-zA-Z0-9-]*)"
)
_HASHTAG = regex.compile(r"(?:^|(?<=\s))[#\uff03]((?!\ufe0f)[^\s\u00ad\u2060\u200a-\u200d\u20e2]+)")
_TRAILING_PUNCTUATION = ".,;:!?\"')]}\u2019\u201d"


def graphemes(text: str) -> int:
    return len(regex.findall(r"\X", text))


def fits(text: str) -> bool:
    return graphemes(text) <= MAX_GRAPHEMES and len(text.encode("utf-8")) <= MAX_BYTES


# --- splitting ------------------------------------------------------------------------


def split_text(text: str, *, number_parts: bool = False) -> list[str]:
    """The thread parts of `text`, each within both limits (with its "i/N" marker
    when `number_parts`)."""
    text = text.strip()
    if fits(text):
        return [text]
    if not number_parts:
        return _split(text, _fits_with(0))
    # The marker's width depends on the number of parts, which depends on the
    # marker's width: start with a guess and go again until the count holds.
    count = 9
    for _ in range(4):
        reserve = graphemes(f" {count}/{count}")
        parts = _split(text, _fits_with(reserve))
        if len(parts) <= count:
            break
        count = len(parts)
    total = len(parts)
    return [f"{part} {index}/{total}" for index, part in enumerate(parts, start=1)]


def _fits_with(reserve: int) -> Callable[[str], bool]:
    def check(candidate: str) -> bool:
        return (
            graphemes(candidate) + reserve <= MAX_GRAPHEMES
            and len(candidate.encode("utf-8")) + reserve <= MAX_BYTES
        )

    return check


def _split(text: str, ok: Callable[[str], bool]) -> list[str]:
    return _pack(text, ok, level=0)


def _pieces(text: str, level: int) -> tuple[list[str], str]:
    if level == 0:
        return [p.strip() for p in _PARAGRAPH_BREAK.split(text) if p.strip()], "\n\n"
    if level == 1:
        return [p.strip() for p in _SENTENCE_END.split(text) if p.strip()], " "
    return text.split(), " "


def _pack(text: str, ok: Callable[[str], bool], level: int) -> list[str]:
    if ok(text):
        return [text]
    if level > 2:
        return _hard_cut(text, ok)
    pieces, joiner = _pieces(text, level)
    if len(pieces) <= 1:
        return _pack(text, ok, level + 1)
    parts: list[str] = []
    current = ""
    for piece in pieces:
        candidate = f"{current}{joiner}{piece}" if current else piece
        if ok(candidate):
            current = candidate
            continue
        if current:
            parts.append(current)
        if ok(piece):
            current = piece
        else:
            # A paragraph (or sentence) larger than a post: cut it at the next level.
            parts.extend(_pack(piece, ok, level + 1))
            current = ""
    if current:
        parts.append(current)
    return parts


def _hard_cut(text: str, ok: Callable[[str], bool]) -> list[str]:
    parts: list[str] = []
    current = ""
    for cluster in regex.findall(r"\X", text):
        if ok(current + cluster):
            current += cluster
        else:
            parts.append(current)
            current = cluster
    if current:
        parts.append(current)
    return parts


# --- facets ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Facet:
    """A span of the text in UTF-8 byte offsets [start, end) and what it is."""

    kind: str  # "link" | "mention" | "tag"
    start: int
    end: int
    value: str  # the URL, the handle (without @), or the tag (without #)

    def as_detail(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "byteStart": self.start,
            "byteEnd": self.end,
            "value": self.value,
        }


def _byte_span(text: str, start: int, end: int) -> tuple[int, int]:
    byte_start = len(text[:start].encode("utf-8"))
    return byte_start, byte_start + len(text[start:end].encode("utf-8"))


def find_facets(text: str) -> list[Facet]:
    facets: list[Facet] = []
    for match in _LINK.finditer(text):
        url = match.group(0).rstrip(_TRAILING_PUNCTUATION)
        # Keep a closing bracket that closes one inside the URL (Wikipedia links).
        if match.group(0)[len(url) : len(url) + 1] == ")" and url.count("(") > url.count(")"):
            url += ")"
        facets.append(
            Facet("link", *_byte_span(text, match.start(), match.start() + len(url)), url)
        )
    for match in _MENTION.finditer(text):
        handle = match.group(1).rstrip(".")
        start = match.start(0)
        facets.append(Facet("mention", *_byte_span(text, start, start + 1 + len(handle)), handle))
    for tag_match in _HASHTAG.finditer(text):
        tag = tag_match.group(1).rstrip(_TRAILING_PUNCTUATION)
        if not tag or tag.isdigit() or graphemes(tag) > MAX_TAG_GRAPHEMES:
            continue
        start = tag_match.start(0)
        facets.append(Facet("tag", *_byte_span(text, start, start + 1 + len(tag)), tag))
    return _without_overlaps(facets)


def _without_overlaps(facets: list[Facet]) -> list[Facet]:
    # A "#fragment" or "@user" inside a URL is part of the link, not a facet of its own.
    kept: list[Facet] = []
    for facet in sorted(facets, key=lambda f: (f.start, f.kind != "link")):
        if kept and facet.start < kept[-1].end:
            continue
        kept.append(facet)
    return kept


def first_link(text: str) -> str | None:
    for facet in find_facets(text):
        if facet.kind == "link":
            return facet.value
    return None


# --- record keys ----------------------------------------------------------------------


def record_key(idempotency_key: str, index: int) -> str:
    """A TID-form record key derived from the publication's key and the part's index.

    The same publication always gets the same keys, so a retry after a crash meets
    the records the first attempt wrote instead of posting again. A TID is a 64-bit
    number: top bit 0, microseconds since 1970, then a 10-bit clock id. The first
    character is fixed to "3" (a timestamp between 2005 and 2041, where today's
    TIDs live) and the other 60 bits come from a hash.
    """
    digest = hashlib.sha256(f"{idempotency_key}\x00{index}".encode()).digest()
    value = int.from_bytes(digest[:8], "big") & ((1 << 60) - 1)
    chars = [TID_ALPHABET[(value >> (5 * shift)) & 31] for shift in range(11, -1, -1)]
    return "3" + "".join(chars)
