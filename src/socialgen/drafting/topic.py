"""Whether a draft is about what was asked: the share of the topic's content words
it carries. A topic word is carried by any word that starts with its first five
letters: "shipping" carries "ship", "bakery's" carries "bakery"."""

from __future__ import annotations

import re

_WORD = re.compile(r"[a-z][a-z']+")
_STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "of",
        "to",
        "in",
        "on",
        "for",
        "from",
        "with",
        "about",
        "our",
        "my",
        "your",
        "why",
        "how",
        "what",
        "when",
        "as",
        "at",
        "by",
        "is",
        "are",
        "was",
        "were",
        "be",
        "it",
        "its",
        "this",
        "that",
        "we",
        "i",
        "you",
        "their",
        "they",
        "me",
        "us",
    ]
)
_STEM = 5


def topic_words(text: str) -> list[str]:
    """The content words of `text`, each once, in order."""
    words = _WORD.findall(text.lower())
    return [w for w in dict.fromkeys(words) if w not in _STOPWORDS and len(w) > 2]


def topic_coverage(post: str, topic: str) -> float:
    """The share of the topic's content words the post carries (1.0 for a topic with none)."""
    wanted = topic_words(topic)
    if not wanted:
        return 1.0
    carried = topic_words(post)
    found = sum(any(w.startswith(word[:_STEM]) for w in carried) for word in wanted)
    return found / len(wanted)


def on_topic(post: str, topic: str) -> bool:
    """At least a third of the topic's content words are in the post."""
    return topic_coverage(post, topic) * 3 >= 1
