"""How close a text is to a style's examples, and which examples suit a topic.

Two simple, documented measures, both in [0, 1]:

- `ngram_similarity`: cosine similarity of character 3-gram counts (term
  frequency, no IDF). Texts are lower-cased and runs of spaces collapsed, but line
  breaks (up to a blank line), punctuation and emoji are kept, so the measure sees
  vocabulary *and* surface habits ("!\\n\\n", "🚀 ", " #"). Its weakness: it is
  dominated by topic, and any two English texts already share common 3-grams.
- `feature_similarity`: one minus a normalised distance per style feature of
  `StyleProfile` (length, sentence length, paragraphs, line breaks, emoji,
  hashtags, questions, exclamations, lists, first line; hashtag position, person,
  tone, main hook, emoji use), averaged with equal weights. Blind to topic, but
  coarse for a single short text.

`style_similarity` averages the two with weights 0.5 / 0.5: each measure covers
the other's blind spot (surface wording vs structure), neither is clearly more
trustworthy, and equal weights keep the number easy to explain.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from socialgen.styles.profile import StyleProfile, derive_profile

NGRAM_WEIGHT = 0.5
FEATURE_WEIGHT = 0.5

# (feature, floor): distance = |a - b| / max(a, b, floor). Relative differences
# treat 900 vs 1000 characters as close and 0 vs 3 emoji as far; the floor stops
# tiny values (0 vs 0.2 emoji per post) from counting as a complete mismatch.
_SCALED_FEATURES: tuple[tuple[str, float], ...] = (
    ("avg_chars", 200.0),
    ("avg_words", 40.0),
    ("avg_sentence_words", 8.0),
    ("avg_paragraphs", 2.0),
    ("line_break_ratio", 4.0),
    ("emoji_per_post", 1.0),
    ("hashtags_per_post", 1.0),
    ("avg_first_line_chars", 30.0),
)
# Shares already in [0, 1]: distance = |a - b|.
_SHARE_FEATURES = (
    "one_sentence_paragraph_ratio",
    "question_ratio",
    "exclamation_ratio",
    "list_usage",
)
# Categories: similarity 1 if equal, else 0.
_CATEGORY_FEATURES = ("hashtag_position", "person", "tone", "main_hook", "uses_emoji")

_SUFFIXES = ("ing", "ed", "es", "s", "ly")
_TOPIC_NGRAM_WEIGHT = 0.1
_WORD = re.compile(r"[^\W_]+")
_SPACES = re.compile(r"[^\S\n]+")
_BLANK_LINES = re.compile(r"\n\s*\n\s*")
# Closest examples: words too common to say anything about a topic.
_STOPWORDS = frozenset(
    _WORD.findall(
        "a an and are as at be but by can do for from has have how i in into is it its "
        "my of on or our so that the their this to was we what when who why will with "
        "you your about post write"
    )
)


def ngram_similarity(a: str, b: str, n: int = 3) -> float:
    """Cosine similarity of the character n-gram counts of two texts, in [0, 1].

    Identical texts (after normalising) score 1, texts without a shared n-gram 0;
    a non-empty text shorter than n is a single n-gram of its own."""
    grams_a, grams_b = _ngrams(a, n), _ngrams(b, n)
    if grams_a == grams_b:
        return 1.0
    if not grams_a or not grams_b:
        return 0.0
    small, large = sorted((grams_a, grams_b), key=len)
    dot = sum(count * large[gram] for gram, count in small.items())
    norm = math.sqrt(_sum_squares(grams_a) * _sum_squares(grams_b))
    return min(1.0, dot / norm)


def feature_similarity(a: StyleProfile, b: StyleProfile) -> float:
    """How alike two profiles are, in [0, 1]: the mean per-feature similarity.

    A profile without examples has no features: two such are alike (1), one such
    and a real profile are not (0)."""
    if a.examples == 0 or b.examples == 0:
        return 1.0 if a.examples == b.examples else 0.0
    scores = [
        _scaled(getattr(a, name), getattr(b, name), floor) for name, floor in _SCALED_FEATURES
    ]
    scores += [1.0 - min(1.0, abs(getattr(a, name) - getattr(b, name))) for name in _SHARE_FEATURES]
    scores += [1.0 if getattr(a, name) == getattr(b, name) else 0.0 for name in _CATEGORY_FEATURES]
    return sum(scores) / len(scores)


def style_similarity(
    text: str, examples: Sequence[str], profile: StyleProfile | None = None
) -> float:
    """How close `text` is to a style, in [0, 1]: 0.5 x the mean n-gram similarity
    to each example + 0.5 x the feature similarity of the text's own profile to the
    examples' profile. `profile` may pass the examples' profile already derived.
    Without examples (or with only blank ones) the similarity is 0."""
    usable = [example for example in examples if example.strip()]
    if not usable:
        return 0.0
    style = profile if profile is not None else derive_profile(usable)
    ngram = sum(ngram_similarity(text, example) for example in usable) / len(usable)
    features = feature_similarity(derive_profile([text]), style)
    return NGRAM_WEIGHT * ngram + FEATURE_WEIGHT * features


def closest_examples(
    topic: str, examples: Sequence[tuple[str, str]], k: int = 3
) -> list[tuple[str, str]]:
    """The k (id, text) examples most on-topic, best first, for few-shot prompting.

    Score = share of the topic's content words (crudely stemmed, stopwords
    dropped) found in the example + 0.1 x character 3-gram similarity, which
    breaks ties and still ranks something when the topic has no content words.
    Equal scores keep the examples' given order."""
    if k <= 0:
        return []
    topic_stems = _stems(topic)
    scored = [
        (_topic_score(topic, topic_stems, text), index, (example_id, text))
        for index, (example_id, text) in enumerate(examples)
    ]
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [example for _, _, example in scored[:k]]


def _ngrams(text: str, n: int) -> Counter[str]:
    normal = _BLANK_LINES.sub("\n\n", _SPACES.sub(" ", text.lower())).strip()
    if not normal:
        return Counter()
    if len(normal) < n:
        return Counter([normal])
    return Counter(normal[i : i + n] for i in range(len(normal) - n + 1))


def _sum_squares(counts: Counter[str]) -> int:
    return sum(count * count for count in counts.values())


def _scaled(a: float, b: float, floor: float) -> float:
    return 1.0 - min(1.0, abs(a - b) / max(a, b, floor))


def _stem(word: str) -> str:
    """Crude stemming, enough to match hire/hiring and engineers/engineering: one
    suffix off, a final "e" off, then the first six letters."""
    for suffix in _SUFFIXES:
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            word = word[: -len(suffix)]
            break
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word[:6]


def _stems(text: str) -> set[str]:
    words = _WORD.findall(text.lower())
    return {_stem(w) for w in words if w not in _STOPWORDS and len(w) > 1}


def _topic_score(topic: str, topic_stems: set[str], text: str) -> float:
    overlap = len(topic_stems & _stems(text)) / len(topic_stems) if topic_stems else 0.0
    return overlap + _TOPIC_NGRAM_WEIGHT * ngram_similarity(topic, text)
