"""Make model output fit LinkedIn: plain text, within the length limit."""

from __future__ import annotations

import html
import re

from socialgen.drafting.separators import strip_separators
from socialgen.kit.limits import MAX_HOOK_CHARS, MAX_POST_CHARS

_TAG = re.compile(r"</?[a-zA-Z][^<>]*>")
_BOLD = re.compile(r"(\*\*|__)(.+?)\1", re.DOTALL)
_STRAY_MARKS = re.compile(r"\*{2,}|_{2,}")  # an unpaired ** or __ (a cut or sloppy answer)
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+", re.MULTILINE)
_LINK = re.compile(r"\[([^\]]+)\]\((https?://[^)]+)\)")
_PREAMBLE = re.compile(r"^(sure|here is|here's|certainly)[^\n]*:\s*\n+", re.IGNORECASE)
_BLANKS = re.compile(r"\n{3,}")
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|\n|$)\s*")
_ENDINGS = frozenset(".!?)\"'…:")
_SENTENCE_ENDS = (". ", "! ", "? ", ".\n", "!\n", "?\n")
_FIRST_SENTENCE_END = re.compile(r"[.!?…]+[\"')]?(?=\s)")


def to_linkedin_text(text: str) -> str:
    """Strip the model's framing (separators.py) and the markdown LinkedIn would show
    literally, keep the hook (first line) within 200 characters and the post within
    3000."""
    text = _PREAMBLE.sub("", strip_separators(text))
    text = html.unescape(_TAG.sub(_tag_space, text))
    text = _STRAY_MARKS.sub("", _BOLD.sub(r"\2", text))
    text = _HEADING.sub("", text)
    text = _LINK.sub(r"\1 (\2)", text)
    text = _BLANKS.sub("\n\n", text).strip().strip('"').strip()
    return drop_unfinished_sentence(clip(fit_hook(drop_repeats(text)), MAX_POST_CHARS))


def _tag_space(match: re.Match[str]) -> str:
    """HTML is shown literally on LinkedIn: block ends become line breaks, other tags go."""
    tag = match.group(0).lower()
    if tag.startswith(("</p", "</div", "</li", "<br")):
        return "\n"
    return ""


def drop_repeats(text: str) -> str:
    """Keep each sentence once: models (small ones above all) can loop on a line."""
    seen: set[str] = set()
    paragraphs = []
    for paragraph in text.split("\n\n"):
        kept = []
        for sentence in _SENTENCE.findall(paragraph):
            key = " ".join(sentence.lower().split())
            if len(key) < 12 or key not in seen:  # short lines ("Why?") may recur
                seen.add(key)
                kept.append(sentence)
        joined = "".join(kept).strip()
        if joined:
            paragraphs.append(joined)
    return "\n\n".join(paragraphs)


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


def fit_hook(text: str, limit: int = MAX_HOOK_CHARS) -> str:
    """LinkedIn shows about 200 characters before "see more": a longer first line
    loses its hook. Break it after its first sentence when that fits, else at the
    last word boundary that does (never mid-word)."""
    first, newline, rest = text.partition("\n")
    if len(first) <= limit:
        return text
    end = _FIRST_SENTENCE_END.search(first)
    if end is not None and end.end() <= limit:
        cut, joiner = end.end(), "\n\n"
    else:
        cut = first.rfind(" ", 0, limit + 1)
        if cut <= 0:
            return text  # one unbroken word: nothing to break on
        joiner = "\n"
    head, tail = first[:cut].rstrip(), first[cut:].lstrip()
    return head + joiner + tail + newline + rest if tail else text
