"""Whether a planned title only echoes its prompt's instructions: asked for "slide 1
is the hook: a bold promise or question. The middle slides each make one point",
Qwen2.5-Coder-0.5B titled its slides "The Hook", "Hook: A Bold Promise or Question"
and "Middle Slides: One Point". Such a title is the slide's role, not its content:
not the model's slide.

The check is derived from the prompts themselves, so it follows them when they
change: a title echoes when it carries no content word of the topic, every content
word of it is a word of the prompts, and (titles of two words or more) two of its
words stand side by side, or one word apart, in a prompt too, as they do in a copied
phrase. A slice may add the rewordings its model was seen to make. A real
title that happens to use prompt words ("Write short posts") pairs them as no
prompt does; a title about hooks on a topic about hooks carries the topic's word."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import pairwise

from socialgen.drafting.topic import topic_words

_PLACEHOLDER = re.compile(r"\$\w+")
_KEY = 5
# Words that carry no content of their own in a title ("What Will Sum It Up" echoes
# "sums up" as much as "Sum It Up" does); topic_words keeps them, as a topic may need.
_AUXILIARIES = frozenset(
    ["will", "would", "can", "could", "should", "must", "may", "might", "shall", "does", "did"]
)
_VOWELS = frozenset("aeiou")


def _key(word: str) -> str:
    """One key for a word's forms: "slides" and "slide", "summing" and "sums",
    "invites" and "inviting" (the suffix, a final e and a doubled consonant go)."""
    for suffix in ("ing", "ed", "s"):
        if word.endswith(suffix) and not word.endswith("ss") and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in _VOWELS:
        word = word[:-1]
    return word[:_KEY]


def _keys(text: str) -> list[str]:
    return [_key(word) for word in topic_words(text)] if text else []


def _sequence(text: str) -> list[str]:
    """The content words of `text` in order, repeats kept (side by side counts)."""
    return [
        _key(word)
        for word in re.findall(r"[a-z][a-z']+", text.lower())
        if word in set(topic_words(word)) and word not in _AUXILIARIES
    ]


@dataclass(frozen=True)
class PromptWords:
    """The words of a plan's prompts, and which of them stand side by side."""

    words: frozenset[str]
    pairs: frozenset[frozenset[str]]  # either order: a list's "stories, lessons"

    @classmethod
    def of(cls, prompts: Iterable[str]) -> PromptWords:
        words: set[str] = set()
        pairs: set[frozenset[str]] = set()
        for prompt in prompts:
            for sentence in re.split(r"[.;\n]", _PLACEHOLDER.sub(" ", prompt)):
                sequence = _sequence(sentence)
                words.update(sequence)
                pairs.update(map(frozenset, pairwise(sequence)))
                # One word apart too: "invites the reader to follow" pairs "invites"
                # with "follow" as a paraphrase ("Invites Followers") does.
                apart = zip(sequence, sequence[2:], strict=False)
                pairs.update(frozenset(pair) for pair in apart)
        return cls(frozenset(words), frozenset(pairs))

    def echoed_by(self, title: str, topic: str) -> bool:
        """Whether `title` only echoes these prompts (see the module's doc)."""
        said = _sequence(title)
        if not said or set(said) & set(_keys(topic)):
            return False
        if not set(said) <= self.words:
            return False
        return len(said) == 1 or any(frozenset(pair) in self.pairs for pair in pairwise(said))
