"""Whether a model's answer declines the task instead of doing it: "I'm sorry, but I
can't assist with that." A refusal is no post: saved as a draft, or counted as one, it
would be handed over as if the model had written the post (Qwen2.5-Coder-0.5B
declined one batch draft in thirty). The drafting core writes a declined draft once
more and otherwise says the model declined (drafting/writing.py); bench/quality.py
counts one as a post outside the rules.

Only an answer that opens by declining and says little else is a refusal: a post may
well start "I'm sorry to say our launch failed" or "I can't stop thinking about ..."."""

from __future__ import annotations

import re

# "I'm sorry, but I can't assist", "I cannot write that", "I am unable to help",
# "I won't be able to provide", "I must decline", "As an AI language model".
_DECLINES = re.compile(
    r"\b(?:i|we)\s*(?:'m|am|are)?\s*"
    r"(?:can(?:not|'t| not)|unable|not able|won't be able|must decline|"
    r"(?:do not|don't) have (?:enough |the )?(?:information|context|access))"
    r"(?:\s+to)?(?:\s+(?:assist|help|fulfil+|comply|provide|write|create|generate|do|"
    r"complete|produce|support|answer|respond|engage|continue|give|draft|with)\b|\W*$)"
    r"|\bas an ai\b|\blanguage model\b",
    re.IGNORECASE | re.MULTILINE,
)
# "I'm sorry, ...", "Sorry for ...", "I apologize, but ..." (not "Sorry is the hardest word").
_APOLOGY = re.compile(
    r"^\W*(?:(?:i'?m|i am)\s+(?:so\s+|very\s+|really\s+)?sorry|sorry|i apologi[sz]e|apologies)"
    r"(?:\s*[,.!;:]|\s+(?:but|for|about|that)\b)",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]*")
# What is left after the declining sentences: fewer words than this is no post.
CONTENT_WORDS = 30


def is_refusal(text: str) -> bool:
    """Whether `text` declines in its first two sentences and has fewer than
    CONTENT_WORDS words after them (an offer to help with something else, a
    question back: no post)."""
    text = text.replace("\u2019", "'")  # a typographic apostrophe: "I\u2019m sorry"
    sentences = [s.strip() for s in _SENTENCE.findall(text.strip()) if s.strip()]
    if not sentences:
        return False
    opening = " ".join(sentences[:2])
    if not _DECLINES.search(opening) and not (
        _APOLOGY.search(sentences[0]) and len(text.split()) < CONTENT_WORDS
    ):
        return False
    declining = 2 if len(sentences) > 1 and _DECLINES.search(sentences[1]) else 1
    rest = " ".join(sentences[declining:])
    return len(rest.split()) < CONTENT_WORDS


def opening_of(text: str, limit: int = 80) -> str:
    """The first line of `text`, cut to `limit` characters, for an error message."""
    first = " ".join(text.strip().split("\n", 1)[0].split())
    return first if len(first) <= limit else first[: limit - 3].rstrip() + "..."
