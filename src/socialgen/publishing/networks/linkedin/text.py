"""Post text for LinkedIn's Posts API, whose `commentary` is "little" text.

In that format the characters | { } @ [ ] ( ) < > # \\ * _ ~ are reserved (mentions
are `@[Name](urn)`, templates `{...}`). LinkedIn does not refuse a commentary with a
stray one: it publishes it cut at that character, so "Why I learned (C#)" goes out as
"Why I learned ". Every reserved character is therefore backslash-escaped, except the
`#` that starts a hashtag (`#word` after a space or at the start): that one is the
format's own hashtag element, and leaving it bare keeps the hashtag clickable. The
reader sees the same characters either way.
"""

from __future__ import annotations

import re

from socialgen.publishing.networks.base import PublishError

RESERVED = frozenset("|{}@[]()<>#\\*_~")
# LinkedIn's limit for a post's commentary. Counted on the text a reader sees (the
# escapes are the format's, not the author's). LinkedIn has no threads to spill into.
MAX_COMMENTARY = 3000
# A mention `@[Name](urn:li:person:ID)` and the hashtag template `{hashtag|\#|word}`.
_MENTION = re.compile(r"@\[((?:[^\]\\]|\\.)*)\]\((urn:li:[A-Za-z]+:[^)\s]+)\)")
_HASHTAG = re.compile(r"\{hashtag\|\\#\|([^{}|\\]+)\}")


def escape_little(text: str) -> str:
    """`text` as little text that LinkedIn shows exactly as `text`."""
    out: list[str] = []
    for index, char in enumerate(text):
        if char in RESERVED and not _starts_hashtag(text, index):
            out.append("\\")
        out.append(char)
    return "".join(out)


def _starts_hashtag(text: str, index: int) -> bool:
    if text[index] != "#" or index + 1 >= len(text) or not text[index + 1].isalnum():
        return False
    return index == 0 or not text[index - 1].isalnum()


def commentary(text: str) -> str:
    """The escaped commentary for `text`; a PublishError when LinkedIn would refuse it."""
    if len(text) > MAX_COMMENTARY:
        raise PublishError(
            f"The post has {len(text)} characters; LinkedIn takes at most {MAX_COMMENTARY} "
            "in one post and has no threads: shorten it before publishing to LinkedIn"
        )
    return escape_little(text)


def little_to_text(raw: str) -> str:
    """What a reader sees of a commentary LinkedIn hands back: escapes undone, a
    mention as the name it shows, the hashtag template as `#word`. A stray reserved
    character stays as it is (it is LinkedIn's stored text, not ours to cut)."""
    out: list[str] = []
    index = 0
    while index < len(raw):
        char = raw[index]
        if char == "\\" and index + 1 < len(raw):
            out.append(raw[index + 1])
            index += 2
            continue
        found = _MENTION.match(raw, index) or _HASHTAG.match(raw, index)
        if found is not None:
            shown = found.group(1)
            out.append(f"#{shown}" if found.re is _HASHTAG else little_to_text(shown))
            index = found.end()
            continue
        out.append(char)
        index += 1
    return "".join(out)
