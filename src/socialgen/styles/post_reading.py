"""Reading one post: the text features a style profile is made of.

How a post is read:

- The *body* is the post without its trailing hashtag block (hashtags, spaces and
  separators up to the end of the text). Every structural feature (words,
  sentences, paragraphs, lines, first line, tone, person) is measured on the body,
  so a "#a #b #c" footer is not counted as a one-line paragraph or a sentence;
  `avg_chars` alone counts the whole post, because it is the length to aim for.
- Sentences end at ". ! ? …" followed by whitespace, and at every line break
  (LinkedIn lines often carry no punctuation at all).
- Paragraphs are separated by blank lines; lines are the non-empty lines.
- An emoji is a "So" (other symbol) character from U+2300 up, counted once per
  ZWJ sequence or flag; arrows and geometric shapes used as bullets are not emoji.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass


def wordset(words: str) -> frozenset[str]:
    """A lexicon from space-separated words; keeps the word lists compact."""
    return frozenset(words.split())


# Letters/digits with inner apostrophes ("don't"); underscores are not words.
_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*")
# A hashtag needs a letter (#1 is a rank, not a tag) and must not sit inside a URL.
_HASHTAG = re.compile(r"(?<![\w/#&])#(\w*[^\W\d_]\w*)")
SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_LIST_ITEM = re.compile(
    r"^\s*(?:[-*•·▪▸►→✓✔✅👉🔹🔸]|\d{1,2}[.)]|\d\ufe0f?\u20e3)\s+\S", re.MULTILINE
)
_TAIL_SEPARATORS = " \t\r\n,.|·"
EDGE_DECORATION = " \t\"'\u201c\u201d\u2018\u2019*-•·▪▸►→✓✔✅👉🔹🔸"
_ZWJ = "\u200d"


@dataclass(frozen=True)
class Post:
    """What one post contributes to a profile."""

    chars: int
    words: tuple[str, ...]  # lower-case, straight apostrophes
    sentences: tuple[str, ...]
    sentence_words: tuple[int, ...]
    paragraphs: int
    one_sentence_paragraphs: int
    lines: int
    emoji: tuple[str, ...]
    hashtags: tuple[str, ...]
    hashtags_at_end: bool
    has_list: bool
    first_line: str


def read_post(text: str) -> Post:
    text = text.replace("\r\n", "\n").replace("\u2019", "'").strip()
    hashtags = [m.group(0) for m in _HASHTAG.finditer(text)]
    tail_start = _hashtag_tail_start(text)
    body = text[:tail_start].rstrip() if tail_start is not None else text
    lines = [line.strip() for line in body.split("\n") if line.strip()]
    paragraph_sentences = [_sentences(p) for p in _PARAGRAPH_BREAK.split(body) if p.strip()]
    sentences = tuple(s for group in paragraph_sentences for s in group)
    tail_tags = len(_HASHTAG.findall(text[tail_start:])) if tail_start is not None else 0
    return Post(
        chars=len(text),
        words=tuple(split_words(body)),
        sentences=sentences,
        sentence_words=tuple(len(split_words(s)) for s in sentences),
        paragraphs=len(paragraph_sentences),
        one_sentence_paragraphs=sum(1 for group in paragraph_sentences if len(group) == 1),
        lines=len(lines),
        emoji=tuple(_emoji(text)),
        hashtags=tuple(hashtags),
        hashtags_at_end=bool(hashtags) and tail_tags == len(hashtags),
        has_list=len(_LIST_ITEM.findall(body)) >= 2,
        first_line=lines[0] if lines else "",
    )


def _hashtag_tail_start(text: str) -> int | None:
    """Where the run of hashtags that ends the text starts, if it ends with one."""
    start: int | None = None
    end = len(text)
    for match in reversed(list(_HASHTAG.finditer(text))):
        if text[match.end() : end].strip(_TAIL_SEPARATORS):
            break
        start, end = match.start(), match.start()
    return start


def _sentences(paragraph: str) -> list[str]:
    """Sentences with at least one word; emoji-only lines are decoration, not prose."""
    pieces = (s.strip() for line in paragraph.split("\n") for s in SENTENCE_END.split(line))
    return [s for s in pieces if split_words(s)]


def split_words(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("\u2019", "'"))


def _is_emoji(char: str) -> bool:
    code = ord(char)
    return (code >= 0x2600 or 0x2300 <= code <= 0x23FF) and unicodedata.category(char) == "So"


def _is_regional_indicator(char: str) -> bool:
    return 0x1F1E6 <= ord(char) <= 0x1F1FF


def _emoji(text: str) -> list[str]:
    """Emoji in order; a ZWJ sequence (👩‍💻) or a flag (two regional indicators) is one."""
    found: list[str] = []
    previous = ""
    flag_half = False
    for char in text:
        if _is_regional_indicator(char):
            flag_half = not flag_half
            if flag_half:
                found.append(char)
        elif _is_emoji(char) and previous != _ZWJ:
            flag_half = False
            found.append(char)
        else:
            flag_half = False
        previous = char
    return found


def strip_emoji(text: str) -> str:
    return "".join(c for c in text if not (_is_emoji(c) or _is_regional_indicator(c)))


def ends_with(sentence: str, mark: str) -> bool:
    """Ends with `mark`, ignoring trailing emoji, quotes and spaces ("Ready? 🚀")."""
    return strip_emoji(sentence).rstrip(" \t\"'\u201d\u2019)\ufe0f").endswith(mark)
