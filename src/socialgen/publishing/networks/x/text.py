"""X's text rules: twitter-text's weighted length (configuration v3) and the thread split.

X does not count characters: it weighs them. The text is NFC-normalised first; then a
code point in 0-4351 (Latin, Greek, Cyrillic, Hebrew, Arabic, ...), 8192-8205,
8208-8223 or 8242-8247 (spaces and punctuation) weighs 1, any other (CJK, most emoji
code points) weighs 2; an emoji sequence (a family, a flag, a skin tone, a keycap)
weighs 2 as a whole; a URL weighs 23 whatever its length (X wraps it in a t.co link).
A post weighs at most 280.

URLs are recognised the way twitter-text does for the cases that matter to a count:
with a scheme (http/https), a host whose labels each fit DNS's 63 characters (a
Unicode label as punycode), or without a scheme when the host ends in a common
generic TLD. Where we do not recognise a URL X would, we count it whole: a part
comes out shorter, never refused (we never count less than X does).

A longer text becomes a thread of replies, cut at paragraph ends first, then
sentence ends, then word ends; a single word heavier than a post is cut between
grapheme clusters. Nothing here touches the network.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from typing import Any

import regex  # type: ignore[import-untyped]  # no stubs installed (types-regex)

from socialgen.publishing.networks.base import PublishError

MAX_WEIGHTED = 280
URL_WEIGHT = 23
_SCALE = 100
_DEFAULT_WEIGHT = 200
_LIGHT_RANGES = ((0, 4351), (8192, 8205), (8208, 8223), (8242, 8247))  # weigh 100
# twitter-text's invalid characters: X refuses a post holding one.
INVALID_CHARACTERS = frozenset("\ufffe\ufeff\uffff")

# The hosts a URL without a scheme may end with (generic TLDs X links; a ccTLD such
# as .io is left out: X links those only in some positions, and counting such a
# word whole is the safe side).
_BARE_TLDS = (
    "com|net|org|edu|gov|mil|int|info|biz|name|pro|app|dev|xyz|online|site|tech|blog|"
    "shop|news|store|cloud|page|link|live|media|social|email"
)
_LABEL = r"[\p{L}\p{M}\p{N}_](?:[\p{L}\p{M}\p{N}_-]*[\p{L}\p{M}\p{N}_])?"
_TAIL = r"(?:[/?#][^\s\p{Cf}<>\"]*)?"
_SCHEMED = regex.compile(
    rf"https?://(?P<host>(?:{_LABEL}\.)+{_LABEL})(?::\d{{1,5}})?{_TAIL}", regex.IGNORECASE
)
_BARE = regex.compile(
    rf"(?<![\w@#$./:-])(?P<host>(?:[a-z0-9](?:[a-z0-9_-]*[a-z0-9])?\.)+(?:{_BARE_TLDS}))"
    rf"(?![\w-]){_TAIL}",
    regex.IGNORECASE,
)
_TRAILING = ".,;:!?'\")]}\u2019\u201d"
_EXT_PICT = regex.compile(r"\p{Extended_Pictographic}")
_EMOJI_MARKS = frozenset("\ufe0f\u20e3")

_PARAGRAPH_BREAK = regex.compile(r"\n\s*\n")
_SENTENCE_END = regex.compile(r"(?<=[.!?\u2026][\"'\u201d\u2019)\]]?)\s+")


def normalised(text: str) -> str:
    """The text as X reads it (NFC)."""
    return unicodedata.normalize("NFC", text)


def url_spans(text: str) -> list[tuple[int, int]]:
    """Where the URLs X would wrap in a t.co link are, in `text` (NFC already)."""
    spans: list[tuple[int, int]] = []
    for pattern in (_SCHEMED, _BARE):
        for match in pattern.finditer(text):
            start, end = match.start(), match.end()
            while end > match.end("host") and text[end - 1] in _TRAILING:
                end -= 1
            if _valid_host(match.group("host")) and not _overlaps(spans, start, end):
                spans.append((start, end))
    return sorted(spans)


def weighted_length(text: str) -> int:
    """The text's weight as X counts it (twitter-text v3's weightedLength)."""
    text = normalised(text)
    total = 0
    position = 0
    for start, end in url_spans(text):
        total += _plain_weight(text[position:start]) + URL_WEIGHT * _SCALE
        position = end
    total += _plain_weight(text[position:])
    return total // _SCALE


def is_valid(text: str) -> bool:
    """Whether X takes `text` as one post's text (twitter-text's `valid`)."""
    return (
        bool(text.strip())
        and weighted_length(text) <= MAX_WEIGHTED
        and not INVALID_CHARACTERS.intersection(text)
    )


def _plain_weight(text: str) -> int:
    if text.isascii():
        # Every ASCII character weighs 1 and none is part of an emoji: the same sum as
        # the loop below, without splitting a long post into clusters at each try of
        # the thread split (most posts are ASCII, and previews weigh them often).
        return len(text) * _SCALE
    total = 0
    for cluster in regex.findall(r"\X", text):
        if _is_emoji(cluster):
            total += _DEFAULT_WEIGHT
        else:
            total += sum(_weight(ord(char)) for char in cluster)
    return total


def _is_emoji(cluster: str) -> bool:
    # © and ® are pictographic but light, and count as text unless they carry the
    # emoji variation selector: every other pictograph is at U+2000 or above.
    if _EMOJI_MARKS.intersection(cluster):
        return True
    if any(0x1F1E6 <= ord(char) <= 0x1F1FF for char in cluster):  # a flag's letters
        return True
    return any(ord(char) >= 0x2000 for char in _EXT_PICT.findall(cluster))


def _weight(code_point: int) -> int:
    for low, high in _LIGHT_RANGES:
        if low <= code_point <= high:
            return _SCALE
    return _DEFAULT_WEIGHT


def _valid_host(host: str) -> bool:
    labels = host.split(".")
    if len(labels) < 2 or not regex.fullmatch(r"[\p{L}\p{M}]{2,}|[0-9]{1,3}", labels[-1]):
        return False
    for label in labels:
        if label.isascii():
            size = len(label)
        else:
            try:
                size = len("xn--" + label.lower().encode("punycode").decode("ascii"))
            except UnicodeError:
                return False
        if not 0 < size <= 63:
            return False
    return True


def _overlaps(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(start < other_end and other_start < end for other_start, other_end in spans)


# --- the thread split -----------------------------------------------------------------


def split_text(text: str, *, number_parts: bool = False) -> list[str]:
    """The thread's parts, each weighing at most 280 (with its " i/N" marker when
    `number_parts`). A PublishError for a text X would refuse whatever the split."""
    text = normalised(text).strip()
    bad = sorted(INVALID_CHARACTERS.intersection(text))
    if bad:
        names = ", ".join(f"U+{ord(char):04X}" for char in bad)
        raise PublishError(f"X refuses a post holding {names}: remove it from the text")
    if weighted_length(text) <= MAX_WEIGHTED:
        return [text]
    if not number_parts:
        return _pack(text, _fits(0), 0)
    count = 9
    parts: list[str] = []
    for _ in range(4):  # the marker's width depends on how many parts there are
        parts = _pack(text, _fits(weighted_length(f" {count}/{count}")), 0)
        if len(parts) <= count:
            break
        count = len(parts)
    total = len(parts)
    return [f"{part} {index}/{total}" for index, part in enumerate(parts, start=1)]


def _fits(reserve: int) -> Callable[[str], bool]:
    return lambda candidate: weighted_length(candidate) + reserve <= MAX_WEIGHTED


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
        else:  # a paragraph (or sentence) heavier than a post: cut it finer
            parts.extend(_pack(piece, ok, level + 1))
            current = ""
    if current:
        parts.append(current)
    return parts


def _hard_cut(text: str, ok: Callable[[str], bool]) -> list[str]:
    parts: list[str] = []
    current = ""
    for cluster in regex.findall(r"\X", text):
        if current and not ok(current + cluster):
            parts.append(current)
            current = cluster
        else:
            current += cluster
    if current:
        parts.append(current)
    return parts


# --- what the dry run shows -----------------------------------------------------------


def part_details(texts: list[str]) -> list[dict[str, Any]]:
    """Each part's weight, the limit, and which part it replies to."""
    details: list[dict[str, Any]] = []
    for index, part in enumerate(texts):
        detail: dict[str, Any] = {"weightedLength": weighted_length(part), "limit": MAX_WEIGHTED}
        if index > 0:
            detail["inReplyTo"] = f"part {index}"
        details.append(detail)
    return details


def unconnected_parts(text: str, number_parts: bool) -> list[tuple[str, dict[str, Any]]]:
    """The parts X would receive for `text`, with their details (no network call)."""
    if not text.strip():
        raise PublishError("X: the post has no text")
    texts = split_text(text, number_parts=number_parts)
    return list(zip(texts, part_details(texts), strict=True))


def connect_command(handle: str) -> str:
    """The command that connects an X account (the handle comes from the sign-in)."""
    return "socialgen accounts add x --client-id CLIENT_ID"
