"""Links in free text, as people paste them into a chat message."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

# Up to the first space or a character that cannot be part of a pasted link.
_URL = re.compile(r"""https?://[^\s<>"'`{}|\\^]+""", re.IGNORECASE)
# Sentence punctuation that follows a link in prose rather than belonging to it.
_TRAILING = ".,;:!?'\"…»\u3002\uff0c\u3001"  # also CJK full stop and commas
_CLOSERS = {")": "(", "]": "["}


def find_urls(text: str, limit: int = 3) -> list[str]:
    """The first `limit` distinct http(s) links in `text`, in order of appearance."""
    found: list[str] = []
    for match in _URL.finditer(text):
        if len(found) >= limit:
            break
        url = _trim(match.group(0))
        if urlsplit(url).hostname and url not in found:
            found.append(url)
    return found


def _trim(url: str) -> str:
    """Drop trailing punctuation; a closing bracket only when it is unbalanced, so
    `https://en.wikipedia.org/wiki/Python_(language)` keeps its `)`."""
    while url and (url[-1] in _TRAILING or _unbalanced_closer(url)):
        url = url[:-1]
    return url


def _unbalanced_closer(url: str) -> bool:
    opener = _CLOSERS.get(url[-1])
    return opener is not None and url.count(url[-1]) > url.count(opener)
