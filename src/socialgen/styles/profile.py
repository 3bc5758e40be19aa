"""A style profile: measurable writing habits derived from a style's example posts.

Everything here is deterministic, stdlib-only text statistics, so a profile can be
stored as JSON, recomputed at will, and shown to people and models alike. How one
post is read is in `post_reading.py`; how its first line is classified, `hooks.py`.

Person: pronouns are counted in three groups (I/me/my..., we/us/our...,
you/your...). Fewer than one pronoun per 100 words is "impersonal"; a group with
at least 60% of the pronouns names the person; otherwise "mixed".

Tone: each tone has cue words; a cue is one occurrence of such a word, and also:
every "!" and every emoji for "enthusiastic", every sentence of 25+ words for
"formal". The tone with the most cues wins (ties: the order of TONE_LEXICON);
below one cue per 100 words the tone is "neutral".
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from typing import Any

from socialgen.styles.hooks import (
    HOOK_BOLD,
    HOOK_LINE_MAX_CHARS,
    HOOK_NUMBER,
    HOOK_ONE_LINER,
    HOOK_ORDER,
    HOOK_QUESTION,
    HOOK_STATEMENT,
    HOOK_STORY,
    classify_hook,
)
from socialgen.styles.post_reading import Post, ends_with, read_post, wordset

PERSON_SINGULAR = "first person singular"
PERSON_PLURAL = "first person plural"
PERSON_SECOND = "second person"
PERSON_MIXED = "mixed"
PERSON_IMPERSONAL = "impersonal"

TONE_NEUTRAL = "neutral"

TONE_LEXICON: dict[str, frozenset[str]] = {
    "enthusiastic": wordset(
        "excited thrilled amazing awesome incredible love loving proud huge fantastic "
        "wow pumped insane unreal stoked celebrate celebrating"
    ),
    "reflective": wordset(
        "learned learnt lesson lessons realized realised reflect reflecting reflection "
        "remember remembered journey mistake mistakes wonder grateful taught regret "
        "humbled perspective"
    ),
    "direct": wordset(
        "stop don't dont must never here's heres focus quit skip avoid truth simple forget period"
    ),
    "formal": wordset(
        "however therefore moreover furthermore consequently thus notably significant "
        "significantly substantial substantially accordingly whereas respectively "
        "regarding indicates suggests analysis framework nevertheless approximately"
    ),
    "casual": wordset(
        "gonna wanna kinda lol haha yeah hey folks guys stuff cool ok okay btw tbh yep nope super"
    ),
}
LONG_SENTENCE_WORDS = 25  # a sentence this long reads formal whatever its words

_PRONOUNS: dict[str, frozenset[str]] = {
    PERSON_SINGULAR: wordset("i me my mine myself i'm i've i'd i'll"),
    PERSON_PLURAL: wordset("we us our ours ourselves we're we've we'd we'll"),
    PERSON_SECOND: wordset("you your yours yourself yourselves you're you've you'd you'll"),
}


@dataclass(frozen=True)
class StyleProfile:
    """Averages are per post; ratios are shares in [0, 1]. Defaults are the neutral
    profile of a style without examples."""

    examples: int = 0
    avg_chars: float = 0.0
    avg_words: float = 0.0
    avg_sentence_words: float = 0.0
    avg_paragraphs: float = 0.0
    line_break_ratio: float = 0.0  # non-empty lines per 100 words
    one_sentence_paragraph_ratio: float = 0.0
    emoji_per_post: float = 0.0
    uses_emoji: bool = False  # at least half of the posts have an emoji
    common_emoji: tuple[str, ...] = ()
    hashtags_per_post: float = 0.0
    hashtag_position: str = "none"  # "end", "inline" or "none"
    common_hashtags: tuple[str, ...] = ()
    question_ratio: float = 0.0  # share of sentences that are questions
    exclamation_ratio: float = 0.0  # share of sentences that end with "!"
    list_usage: float = 0.0  # share of posts with 2+ bullet or numbered lines
    hook_patterns: tuple[str, ...] = ()  # most frequent first
    avg_first_line_chars: float = 0.0
    person: str = PERSON_MIXED
    tone: str = TONE_NEUTRAL

    @property
    def main_hook(self) -> str | None:
        return self.hook_patterns[0] if self.hook_patterns else None


def derive_profile(posts: Sequence[str]) -> StyleProfile:
    """The profile of a set of example posts; blank posts are ignored."""
    parsed = [read_post(post) for post in posts if post.strip()]
    if not parsed:
        return StyleProfile()
    count = len(parsed)
    words = sum(len(p.words) for p in parsed)
    sentences = [s for p in parsed for s in p.sentences]
    sentence_words = [n for p in parsed for n in p.sentence_words]
    paragraphs = sum(p.paragraphs for p in parsed)
    emoji = [e for p in parsed for e in p.emoji]
    hashtags = [h for p in parsed for h in p.hashtags]
    return StyleProfile(
        examples=count,
        avg_chars=_mean([p.chars for p in parsed]),
        avg_words=_mean([len(p.words) for p in parsed]),
        avg_sentence_words=_mean(sentence_words),
        avg_paragraphs=_mean([p.paragraphs for p in parsed]),
        line_break_ratio=_ratio(100 * sum(p.lines for p in parsed), words),
        one_sentence_paragraph_ratio=_ratio(
            sum(p.one_sentence_paragraphs for p in parsed), paragraphs
        ),
        emoji_per_post=_ratio(len(emoji), count),
        uses_emoji=2 * sum(1 for p in parsed if p.emoji) >= count,
        common_emoji=_top(emoji, 3),
        hashtags_per_post=_ratio(len(hashtags), count),
        hashtag_position=_hashtag_position(parsed),
        common_hashtags=_top_hashtags(hashtags, 5),
        question_ratio=_ratio(sum(1 for s in sentences if ends_with(s, "?")), len(sentences)),
        exclamation_ratio=_ratio(sum(1 for s in sentences if ends_with(s, "!")), len(sentences)),
        list_usage=_ratio(sum(1 for p in parsed if p.has_list), count),
        hook_patterns=_hook_patterns(p.first_line for p in parsed),
        avg_first_line_chars=_mean([len(p.first_line) for p in parsed]),
        person=_person([w for p in parsed for w in p.words]),
        tone=_tone(parsed),
    )


def profile_to_dict(profile: StyleProfile) -> dict[str, Any]:
    """A JSON-ready dict (tuples become lists)."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(profile).items()}


def profile_from_dict(data: Mapping[str, Any]) -> StyleProfile:
    """The profile stored by `profile_to_dict`. Missing keys take their neutral
    default, unknown keys are ignored and ill-typed values fall back to the
    default, so profiles stored by older or newer versions still load."""
    neutral = StyleProfile()
    values = {
        f.name: _coerce(data[f.name], getattr(neutral, f.name))
        for f in fields(StyleProfile)
        if f.name in data
    }
    return StyleProfile(**values)


def describe_profile(profile: StyleProfile) -> list[str]:
    """Short instructions to write in the style; empty for a style without examples.

    The same lines go into the model prompt and `socialgen style show`, so they are
    imperative and concrete, and only mention habits that stand out."""
    if profile.examples == 0:
        return []
    lines = [
        _describe_length(profile),
        _describe_sentences(profile),
        _describe_layout(profile),
        _describe_hook(profile),
        _describe_emoji(profile),
        _describe_hashtags(profile),
        _describe_punctuation(profile),
        _describe_lists(profile),
        _describe_voice(profile),
    ]
    return [line for line in lines if line]


# --- aggregating ------------------------------------------------------------------


def _mean(values: Sequence[int]) -> float:
    return round(sum(values) / len(values), 2) if values else 0.0


def _ratio(part: int, whole: int) -> float:
    return round(part / whole, 2) if whole else 0.0


def _top(items: Iterable[str], n: int) -> tuple[str, ...]:
    """The n most frequent items; ties keep first-seen order, for stable output."""
    counts = Counter(items)
    first_seen = {item: i for i, item in reversed(list(enumerate(counts)))}
    ranked = sorted(counts, key=lambda item: (-counts[item], first_seen[item]))
    return tuple(ranked[:n])


def _top_hashtags(hashtags: Sequence[str], n: int) -> tuple[str, ...]:
    """Counted case-insensitively (#AI = #ai), shown as first spelled."""
    spelling: dict[str, str] = {}
    for tag in hashtags:
        spelling.setdefault(tag.lower(), tag)
    return tuple(spelling[key] for key in _top((t.lower() for t in hashtags), n))


def _hashtag_position(posts: Sequence[Post]) -> str:
    """ "none" unless at least half the posts use hashtags; then "end" when most of
    those keep all their hashtags in a closing block, else "inline"."""
    tagged = [p for p in posts if p.hashtags]
    if 2 * len(tagged) < len(posts):
        return "none"
    at_end = sum(1 for p in tagged if p.hashtags_at_end)
    return "end" if 2 * at_end >= len(tagged) else "inline"


def _hook_patterns(first_lines: Iterable[str]) -> tuple[str, ...]:
    counts = Counter(classify_hook(line) for line in first_lines if line)
    return tuple(sorted(counts, key=lambda hook: (-counts[hook], HOOK_ORDER.index(hook))))


def _person(words: Sequence[str]) -> str:
    counts = {person: sum(1 for w in words if w in group) for person, group in _PRONOUNS.items()}
    total = sum(counts.values())
    if not words or 100 * total < len(words):
        return PERSON_IMPERSONAL
    person, top = max(counts.items(), key=lambda item: item[1])
    return person if top >= 0.6 * total else PERSON_MIXED


def _tone(posts: Sequence[Post]) -> str:
    words = [w for p in posts for w in p.words]
    if not words:
        return TONE_NEUTRAL
    scores = {tone: sum(1 for w in words if w in cues) for tone, cues in TONE_LEXICON.items()}
    scores["enthusiastic"] += sum(len(p.emoji) + _exclamations(p) for p in posts)
    scores["formal"] += sum(1 for p in posts for n in p.sentence_words if n >= LONG_SENTENCE_WORDS)
    tone, best = max(scores.items(), key=lambda item: item[1])  # first max wins ties
    return tone if 100 * best >= len(words) else TONE_NEUTRAL


def _exclamations(post: Post) -> int:
    return sum(s.count("!") for s in post.sentences)


def _coerce(value: Any, default: Any) -> Any:
    """`value` if it has the type of `default` (ints pass as floats), else `default`."""
    if isinstance(default, bool):
        return value if isinstance(value, bool) else default
    if isinstance(default, int):
        return value if isinstance(value, int) and not isinstance(value, bool) else default
    if isinstance(default, float):
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return float(value) if ok and math.isfinite(value) else default
    if isinstance(default, str):
        return value if isinstance(value, str) else default
    if isinstance(default, tuple):
        ok = isinstance(value, list | tuple) and all(isinstance(v, str) for v in value)
        return tuple(value) if ok else default
    return default


# --- describing -------------------------------------------------------------------


def _about(value: float, step: int) -> int:
    """Round to a friendly step (900 characters, not 913.4), never to zero."""
    return max(step, round(value / step) * step)


def _describe_length(p: StyleProfile) -> str:
    chars = _about(p.avg_chars, 50 if p.avg_chars < 1000 else 100)
    paragraphs = max(1, round(p.avg_paragraphs))
    words_per_paragraph = p.avg_words / paragraphs
    size = "short " if words_per_paragraph <= 30 and paragraphs > 1 else ""
    noun = "paragraph" if paragraphs == 1 else "paragraphs"
    return f"Write about {chars} characters in {paragraphs} {size}{noun}."


def _describe_sentences(p: StyleProfile) -> str:
    """Punchy LinkedIn posts average under 12 words a sentence; 18+ reads long-form."""
    words = round(p.avg_sentence_words)
    if words <= 12:
        return f"Keep sentences short (about {words} words)."
    if words >= 18:
        return f"Use long, complete sentences (about {words} words each)."
    return f"Sentences average about {words} words."


def _describe_layout(p: StyleProfile) -> str:
    """The line-break rhythm; only when it stands out. A paragraph that is one long
    sentence is prose, not the airy one-line-per-thought LinkedIn layout."""
    airy = p.one_sentence_paragraph_ratio >= 0.6 and p.avg_sentence_words <= 15
    if airy and p.avg_paragraphs >= 3:
        return "Put most sentences on a line of their own, with blank lines between them."
    if p.one_sentence_paragraph_ratio <= 0.3 and p.avg_words / max(1.0, p.avg_paragraphs) >= 40:
        return "Write full paragraphs of several sentences each."
    return ""


_HOOK_INSTRUCTIONS = {
    HOOK_QUESTION: "Open with a question",
    HOOK_NUMBER: "Open with a number or statistic",
    HOOK_STORY: "Open like a story, in the first person (I/We ...)",
    HOOK_BOLD: "Open with a bold claim",
    HOOK_ONE_LINER: "Open with a short one-line sentence",
    HOOK_STATEMENT: "Open with a plain statement of the topic",
}


def _describe_hook(p: StyleProfile) -> str:
    if p.main_hook is None:
        return ""
    opening = _HOOK_INSTRUCTIONS.get(p.main_hook, "Open strongly")
    if p.avg_first_line_chars > HOOK_LINE_MAX_CHARS:
        return f"{opening}."  # the first line is a whole paragraph: no hook line to size
    chars = _about(p.avg_first_line_chars, 10)
    return f"{opening} (first line about {chars} characters)."


def _count_range(value: float) -> str:
    low = max(1, math.floor(value))
    high = max(low, math.ceil(value))
    return str(low) if low == high else f"{low}-{high}"


def _describe_emoji(p: StyleProfile) -> str:
    if not p.uses_emoji:
        return "Do not use emoji."
    examples = f" such as {' '.join(p.common_emoji)}" if p.common_emoji else ""
    return f"Use {_count_range(p.emoji_per_post)} emoji{examples}."


def _describe_hashtags(p: StyleProfile) -> str:
    if p.hashtag_position == "none":
        return "Do not use hashtags."
    count = _count_range(p.hashtags_per_post)
    noun = "hashtag" if count == "1" else "hashtags"
    examples = f" such as {' '.join(p.common_hashtags[:3])}" if p.common_hashtags else ""
    if p.hashtag_position == "end":
        return f"End with {count} {noun}{examples}."
    return f"Weave {count} {noun} into the text{examples}."


def _describe_punctuation(p: StyleProfile) -> str:
    parts = []
    if p.question_ratio >= 0.15:
        parts.append("Ask the reader questions")
    if p.exclamation_ratio >= 0.15:
        parts.append("use exclamation marks freely" if parts else "Use exclamation marks freely")
    elif p.exclamation_ratio == 0:
        parts.append("avoid exclamation marks" if parts else "Avoid exclamation marks")
    return "; ".join(parts) + "." if parts else ""


def _describe_lists(p: StyleProfile) -> str:
    return "Use a bulleted or numbered list." if p.list_usage >= 0.5 else ""


_PERSON_INSTRUCTIONS = {
    PERSON_SINGULAR: "Write in the first person singular (I)",
    PERSON_PLURAL: "Write in the first person plural (we)",
    PERSON_SECOND: "Address the reader directly (you)",
    PERSON_MIXED: "Mix I, we and you",
    PERSON_IMPERSONAL: "Write impersonally, without I, we or you",
}


def _describe_voice(p: StyleProfile) -> str:
    voice = _PERSON_INSTRUCTIONS.get(p.person, "Write")
    return f"{voice}, {p.tone} tone." if p.tone != TONE_NEUTRAL else f"{voice}."
