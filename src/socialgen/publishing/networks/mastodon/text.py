"""Mastodon's character count and the split of a long post into a thread.

Mastodon counts a status the way its StatusLengthValidator does: every http(s) URL
counts as 23 characters whatever its length, and a mention `@user@domain` counts as
`@user`. It counts grapheme clusters; we count code points, which is never fewer, so a
part that fits here fits there (an emoji family may end a part a little early).

A longer post is cut at paragraph ends first, then line ends, sentence ends, word
ends, and only inside a word as a last resort (a word longer than a whole status).
"""

from __future__ import annotations

import re

DEFAULT_MAX_CHARACTERS = 500
URL_CHARACTERS = 23  # Mastodon's characters_reserved_per_url

# What Mastodon's extractor links: a scheme, then anything up to whitespace; the
# trailing punctuation of a sentence is not part of the link.
URL = re.compile(r"https?://[^\s<>\"]+[^\s<>\".,;:!?)\]'\u2019\u201d]")
# @user@domain.tld counts as @user (Mastodon shortens the remote part).
REMOTE_MENTION = re.compile(r"(?<![\w@/])@(\w+(?:[.\-]+\w+)*)@[\w\-]+(?:\.[\w\-]+)+", re.ASCII)

# Cut points, best first: each pattern's match END is where the next part begins.
# A cut only counts when the part before it is at least a third of the limit, so a
# paragraph break near the start does not make a tiny first part.
BOUNDARIES = (
    re.compile(r"\n[ \t]*\n\s*"),  # paragraph
    re.compile(r"\n\s*"),  # line
    re.compile(r"(?<=[.!?…])[\"'\u2019\u201d)\]]*\s+"),  # sentence
    re.compile(r"\s+"),  # word
)


def weights(text: str) -> list[int]:
    """Per code point, what it adds to Mastodon's count (a URL's first character
    carries its 23, the rest 0; a remote mention's domain part 0)."""
    out = [1] * len(text)
    for match in URL.finditer(text):
        out[match.start() : match.end()] = [0] * (match.end() - match.start())
        out[match.start()] = URL_CHARACTERS
    for match in REMOTE_MENTION.finditer(text):
        if any(weight != 1 for weight in out[match.start() : match.end()]):
            continue  # inside a URL: already counted
        domain_start = match.end(1)
        out[domain_start : match.end()] = [0] * (match.end() - domain_start)
    return out


def count(text: str) -> int:
    """A status's length as Mastodon counts it (see the module's note on graphemes)."""
    return sum(weights(text))


def split(text: str, limit: int, *, number: bool = False) -> list[str]:
    """`text` as thread parts of at most `limit` counted characters each.

    With `number`, each part of a thread ends with " i/n"; the room for it is
    reserved before cutting, and the cut is redone when n needs more digits."""
    text = text.strip()
    if count(text) <= limit or not text:
        return [text]
    if not number:
        return _cut(text, limit)
    digits = 1
    while True:
        reserve = len(f" {10**digits - 1}/{10**digits - 1}")
        parts = _cut(text, max(limit - reserve, 1))
        if len(str(len(parts))) <= digits:
            total = len(parts)
            return [f"{part} {index}/{total}" for index, part in enumerate(parts, start=1)]
        digits += 1


def _cut(text: str, limit: int) -> list[str]:
    parts: list[str] = []
    rest = text
    while rest:
        rest_weights = weights(rest)
        if sum(rest_weights) <= limit:
            parts.append(rest)
            break
        end = _fit(rest_weights, limit)  # characters that fit, before any boundary
        cut, resume = _best_cut(rest, end, limit)
        parts.append(rest[:cut].rstrip())
        rest = rest[resume:].lstrip()
    return [part for part in parts if part]


def _fit(text_weights: list[int], limit: int) -> int:
    """How many leading characters fit in `limit` (at least one: progress)."""
    total = 0
    for index, weight in enumerate(text_weights):
        total += weight
        if total > limit:
            return max(index, 1)
    return len(text_weights)


def _best_cut(text: str, end: int, limit: int) -> tuple[int, int]:
    """(end of this part, start of the next) for a part within text[:end]."""
    window = text[: end + 1]  # a boundary may start right at `end` (the space after)
    for pattern in BOUNDARIES:
        best: re.Match[str] | None = None
        for match in pattern.finditer(window):
            if match.start() == 0 or match.start() > end:
                continue
            best = match
        if best is not None and count(text[: best.start()]) >= limit / 3:
            return best.start(), best.end()
    # One word longer than a status: cut inside it, never inside a URL (which counts
    # 23 and so always fits whole).
    cut = end
    for match in URL.finditer(text):
        if match.start() < cut < match.end():
            cut = match.start() if match.start() > 0 else match.end()
    return cut, cut
