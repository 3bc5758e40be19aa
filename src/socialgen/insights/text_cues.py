"""More readable cues of a post's text for the draft ranker, beyond `text_features`:
how the opening is built, how the text is laid out and how hard it is to read. No word
lists (no sentiment lexicon: the creators write in several languages), only shapes a
person can check: a line break, a figure, a word in capitals, an ellipsis.

Pure standard library: 10,000 posts in a fraction of a second.
"""

from __future__ import annotations

import math
import re

from socialgen.insights.text_features import hook_of

CUES = (
    "log hook characters",
    "blank lines",
    "figures",
    "capitalised words",
    "mean word length",
    "log words per sentence",
    "opens with a mention",
    "ends with a link",
    "colon in the hook",
    "ellipsis",
    "quotes",
    "repeated ! or ?",
    "thread marker",
)

_FIGURE = re.compile(r"\d+(?:[.,]\d+)?")
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_SENTENCE = re.compile(r"[.!?]+(?:\s|$)")
_LINK_AT_END = re.compile(r"(?:https?://|www\.)\S+\s*$", re.IGNORECASE)
_LINK = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)
_THREAD = re.compile(r"(?:^|\s)\d+/\d*(?:\s|$)|\U0001f9f5")


def cues(text: str) -> tuple[float, ...]:
    """One value per CUES entry, in that order (bench/ranker_study.py compares them)."""
    plain = _without_links(text)
    hook = hook_of(text)
    words = _WORD.findall(plain)
    letters = sum(len(word) for word in words)
    stripped = text.strip()
    return (
        math.log1p(len(hook)),
        float(len(re.findall(r"\n\s*\n", text))),
        float(len(_FIGURE.findall(plain))),
        _capitalised(words),
        letters / len(words) if words else 0.0,
        _words_per_sentence(words, plain),
        _opens_with_mention(stripped),
        float(_LINK_AT_END.search(stripped) is not None),
        float(":" in _LINK.sub(" ", hook)),
        float("..." in text or "\u2026" in text),
        float('"' in plain or "\u201c" in plain),
        float("!!" in text or "??" in text or "?!" in text),
        float(_THREAD.search(text) is not None),
    )


def ranker_cues(text: str) -> tuple[float, float, float]:
    """The cues the ranker keeps (RANKER_CUES), without computing the others."""
    plain = _without_links(text)
    words = _WORD.findall(plain)
    return (
        _capitalised(words),
        _words_per_sentence(words, plain),
        _opens_with_mention(text.lstrip()),
    )


# Of CUES, those that ordered validation pairs better when added to the ranker's hand
# features on at least 3 of the 4 public archives (bench/ranker_study.py: folds inside
# each history's older 80% only, never the held-out newest 20%); the others did not.
RANKER_CUES = ("capitalised words", "log words per sentence", "opens with a mention")


def _without_links(text: str) -> str:
    return _LINK.sub(" ", text) if ("://" in text or "www." in text.lower()) else text


def _capitalised(words: list[str]) -> float:
    """Words in capitals ("NEVER", "API"): shouting, or acronyms."""
    return float(sum(1 for word in words if len(word) > 1 and word.isupper()))


def _words_per_sentence(words: list[str], plain: str) -> float:
    """A reading-grade proxy that needs no syllable rules in any language."""
    return math.log1p(len(words) / max(1, len(_SENTENCE.findall(plain))))


def _opens_with_mention(stripped: str) -> float:
    """Opens on an @handle: X shows it mostly to people who follow both accounts."""
    return float(stripped.startswith("@") or stripped.startswith(".@"))
