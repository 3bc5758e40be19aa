"""What kind of opening a post's first line is (its "hook").

Hook classification (first non-empty line of the body, first rule that matches):

1. "question": its first sentence ends with "?".
2. "number/stat": it contains a digit (bare years such as 2019 do not count) or
   starts with a number word ("Three lessons ...").
3. "story opener": it starts with I / I'm / We / My / Our / Yesterday / Last /
   When / Today / Once / Years ...
4. "bold claim": it ends with "!" or contains an absolute word (never, always,
   nobody, everyone, stop, dead, myth, truth, wrong, overrated, unpopular, ...).
5. "short one-liner": at most 8 words.
6. "statement": anything else (a plain opening sentence).
"""

from __future__ import annotations

import re

from socialgen.styles.post_reading import (
    EDGE_DECORATION,
    SENTENCE_END,
    ends_with,
    split_words,
    strip_emoji,
    wordset,
)

HOOK_QUESTION = "question"
HOOK_NUMBER = "number/stat"
HOOK_STORY = "story opener"
HOOK_BOLD = "bold claim"
HOOK_ONE_LINER = "short one-liner"
HOOK_STATEMENT = "statement"
HOOK_ORDER = (HOOK_QUESTION, HOOK_NUMBER, HOOK_STORY, HOOK_BOLD, HOOK_ONE_LINER, HOOK_STATEMENT)

ONE_LINER_MAX_WORDS = 8
HOOK_LINE_MAX_CHARS = 120  # a longer first line is a paragraph, not a hook line

_STORY_STARTS = wordset(
    "i i'm i've i'd i'll we we're we've we'd my our yesterday last when today once years"
)
_NUMBER_WORDS = wordset(
    "two three four five six seven eight nine ten twelve fifteen twenty fifty hundred "
    "thousand million billion half"
)
_BOLD_WORDS = wordset(
    "never always nobody everyone everybody stop dead myth myths truth wrong overrated "
    "unpopular lie lies secret biggest only"
)
_BARE_YEAR = re.compile(r"\b(?:19|20)\d{2}\b(?![%\d])")


def classify_hook(first_line: str) -> str:
    """What kind of opening a first line is; the rules are in this module's docstring."""
    line = first_line.strip(EDGE_DECORATION)
    line = strip_emoji(line).strip(EDGE_DECORATION)
    first_sentence = SENTENCE_END.split(line, maxsplit=1)[0]
    words = split_words(first_sentence)
    if ends_with(first_sentence, "?"):
        return HOOK_QUESTION
    if re.search(r"\d", _BARE_YEAR.sub("", first_sentence)) or (
        words and words[0] in _NUMBER_WORDS
    ):
        return HOOK_NUMBER
    if words and words[0] in _STORY_STARTS:
        return HOOK_STORY
    if ends_with(line, "!") or any(w in _BOLD_WORDS for w in words) or "hot take" in line.lower():
        return HOOK_BOLD
    if len(words) <= ONE_LINER_MAX_WORDS:
        return HOOK_ONE_LINER
    return HOOK_STATEMENT
