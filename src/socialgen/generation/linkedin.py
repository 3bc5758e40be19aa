"""Make model output fit LinkedIn: plain text, within the length limit."""

from __future__ import annotations

import re

from socialgen.limits import MAX_POST_CHARS

_BOLD = re.compile(r"(\*\*|__)(.+?)\1", re.DOTALL)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+", re.MULTILINE)
_LINK = re.compile(r"\[([^\]]+)\]\((https?://[^)]+)\)")
_PREAMBLE = re.compile(r"^(sure|here is|here's|certainly)[^\n]*:\s*\n+", re.IGNORECASE)
_BLANKS = re.compile(r"\n{3,}")
_ENDINGS = frozenset(".!?)\"'…:")
_SENTENCE_ENDS = (". ", "! ", "? ", ".\n", "!\n", "?\n")


def to_linkedin_text(text: str) -> str:
    """Strip the markdown LinkedIn would show literally and keep within 3000 characters."""
    text = _PREAMBLE.sub("", text.strip())
    text = _BOLD.sub(r"\2", text)
    text = _HEADING.sub("", text)
    text = _LINK.sub(r"\1 (\2)", text)
    text = _BLANKS.sub("\n\n", text).strip().strip('"').strip()
    return drop_unfinished_sentence(clip(text, MAX_POST_CHARS))


def drop_unfinished_sentence(text: str) -> str:
    """A model stopped by its token limit ends mid-sentence: end at the last
    complete sentence instead, when that keeps most of the post."""
    if not text or text[-1] in _ENDINGS or text.rsplit("\n", 1)[-1].lstrip().startswith("#"):
        return text
    cut = max(text.rfind(mark) for mark in _SENTENCE_ENDS)
    if cut >= len(text) // 2:
        return text[: cut + 1].rstrip()
    return text


def clip(text: str, limit: int) -> str:
    """Cut at the last sentence or paragraph end before `limit`, never mid-word."""
    if len(text) <= limit:
        return text
    window = text[:limit]
    cut = max(window.rfind(mark) for mark in (".\n", "\n\n", ". ", "! ", "? "))
    if cut < limit // 2:
        cut = window.rfind(" ")
    return window[: cut + 1].rstrip()
