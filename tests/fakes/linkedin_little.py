"""LinkedIn's "little" text format, read the way the fake LinkedIn reads commentary.

Written from LinkedIn's documentation of the format (Posts API, "little text format"):
the characters | { } @ [ ] ( ) < > # \\ * _ ~ are reserved; a backslash makes the next
character plain text; `#word` is a hashtag element, `@[Name](urn:li:person:ID)` a
mention, `{hashtag|\\#|word}` the hashtag template. Any other unescaped reserved
character is where LinkedIn stops: the post is accepted and published cut there (the
bug every hand-written client meets: "(C#)" loses everything from the parenthesis).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

RESERVED = frozenset("|{}@[]()<>#\\*_~")
_MENTION = re.compile(r"@\[([^\]\\]*)\]\((urn:li:[a-zA-Z]+:[^)\s]+)\)")
_TEMPLATE = re.compile(r"\{hashtag\|\\#\|([^{}|\\]+)\}")


@dataclass
class Reading:
    """What a reader sees of a commentary."""

    text: str  # as displayed in the feed
    hashtags: list[str] = field(default_factory=list)
    mentions: list[str] = field(default_factory=list)  # URNs
    cut_at: int | None = None  # index in the raw commentary of the offending character


def read_little(raw: str) -> Reading:
    """Parse `raw` as LinkedIn does; `cut_at` says where (and whether) it truncated."""
    shown: list[str] = []
    reading = Reading(text="")
    index = 0
    while index < len(raw):
        char = raw[index]
        if char not in RESERVED:
            shown.append(char)
            index += 1
            continue
        if char == "\\" and index + 1 < len(raw):
            shown.append(raw[index + 1])
            index += 2
            continue
        if char == "#" and _starts_hashtag(raw, index, shown):
            word = _word_at(raw, index + 1)
            reading.hashtags.append(word)
            shown.append("#" + word)
            index += 1 + len(word)
            continue
        if char == "@" and (mention := _MENTION.match(raw, index)):
            reading.mentions.append(mention.group(2))
            shown.append(mention.group(1))
            index = mention.end()
            continue
        if char == "{" and (template := _TEMPLATE.match(raw, index)):
            reading.hashtags.append(template.group(1))
            shown.append("#" + template.group(1))
            index = template.end()
            continue
        reading.cut_at = index
        break
    reading.text = "".join(shown)
    return reading


def _starts_hashtag(raw: str, index: int, shown: list[str]) -> bool:
    before = shown[-1][-1:] if shown else ""
    return bool(_word_at(raw, index + 1)) and not before.isalnum()


def _word_at(raw: str, index: int) -> str:
    end = index
    while end < len(raw) and raw[end].isalnum():
        end += 1
    return raw[index:end]
