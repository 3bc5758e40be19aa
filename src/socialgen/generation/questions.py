"""Suggested and refinement questions: a plan of three through the planning step
(drafting/planning.py), so the model's profile decides how they are asked (a JSON
answer, or three lines under a grammar), and each kept only when it is a whole
question written as one. None survive: none are shown (no template stands in for
the model's questions)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field, field_validator

from socialgen.ai.model import TextModel
from socialgen.drafting.planning import PlanSpec, plan_items

QUESTION_COUNT = 3
MAX_QUESTION_CHARS = 100
MIN_QUESTION_CHARS = 8
# A small model's line is held to this by its grammar: a line that runs on is cut
# ("import\nance?") and the check drops both pieces. A longer cap measured worse: the
# model wrote longer lines, fewer of them fit (bench/quality.py, embedded model).
LINE_CHARS = MAX_QUESTION_CHARS
# A run of this many words copied from the text the questions are about is a piece
# of it with "?" added, not a question ("It speaks to the import?").
COPIED_WORDS = 4

# A question opens a clause with one of these ("Who is it for?", "And what changed?",
# "In the post, which number matters?").
_ASKING = re.compile(
    r"wh(?:o|om|ose|at|ich|en|ere|y)|how|is|are|am|was|were|do|does|did|can|could|would|"
    r"should|will|shall|may|might|have|has|had|any(?:thing|one)?|"
    r"(?:is|are|do|does|did|ca|wo|would|should)n't"
)
_LEADING = ("and", "but", "so", "or", "then", "also")
_CLAUSES = re.compile(r"[,;:]\s+|\s+[-\u2013\u2014]\s+")
_SENTENCE_END = re.compile(r"[.!?]\s+[\"']?[A-Z]")  # "e.g. 4x faster" is one sentence
_BULLET = re.compile(r"^\s*(?:[-*\u2022]+|\(?\d{1,2}[.):])\s*")
_WORDS = re.compile(r"[a-z0-9']+")
# A question never ends on these: it was cut ("... even if it'?" ends on a cut word).
_CUT_END = re.compile(
    r"(?:\b(?:a|an|the|and|or|of|your|my|our|their|its)|['\u2019,;:-])\s*\?$", re.IGNORECASE
)
_PAIRS = (("(", ")"), ("[", "]"), ("\u201c", "\u201d"))


class Questions(BaseModel):
    questions: list[str] = Field(description="Three short questions.")

    @field_validator("questions", mode="before")
    @classmethod
    def _unwrapped(cls, value: Any) -> Any:
        # Qwen2.5-Coder-0.5B (json_object) now and then writes each question as an
        # object, [{"question": "Who is it for?"}]: the question is still its own.
        if not isinstance(value, list):
            return value
        return [_only_text(item) for item in value]


def _only_text(item: Any) -> Any:
    """The text of a one-field object ({"question": "..."}); anything else as it is."""
    if isinstance(item, dict) and len(item) == 1:
        (inner,) = item.values()
        if isinstance(inner, str):
            return inner
    return item


async def plan_questions(
    model: TextModel, prompt: str, *, about: str, max_tokens: int
) -> list[str]:
    """Up to three whole questions for `prompt`; `about` is the text they ask about
    (a post, an answer): a question copied out of it is dropped."""

    async def as_is(line: str, _position: int) -> str:
        return line

    def whole(question: str) -> bool:
        return is_whole_question(question, about)

    spec = PlanSpec[Questions, str](
        count=QUESTION_COUNT,
        schema=Questions,
        items_of=lambda answer: [tidy_question(q) for q in answer.questions],
        json_prompt=lambda _wanted, _planned: prompt,
        lines_prompt=lambda _wanted, _planned: f"{prompt}\nOne question per line.",
        from_line=as_is,
        title_of=lambda question: question,
        usable_title=whole,
        templates=_no_templates,
        json_tokens=max_tokens // QUESTION_COUNT,
        json_extra_tokens=max_tokens % QUESTION_COUNT,
        line_chars=LINE_CHARS,
        sentences=True,  # prose lines (ai.line_lists.prose_grammar), punctuation kept
        line_tokens=max_tokens,
        top_up=False,  # a side answer: one question fewer beats another wait
    )
    return (await plan_items(model, spec)).items


def _no_templates(_missing: int, _planned: Sequence[str]) -> list[str]:
    return []


def tidy_question(text: str) -> str:
    """A JSON answer's question without surrounding space, quotes or a bullet."""
    return _BULLET.sub("", text.strip()).strip().strip("\"'").strip()


def is_whole_question(question: str, about: str = "") -> bool:
    """Whether `question` is one whole question: one line, a capital first, a
    sensible length, one sentence ending in "?" after a word that can end one,
    brackets and quotes closed, a clause opening with a question word, and not a run
    of words copied from `about` (the answer cut and "?" added)."""
    if "\n" in question or "\r" in question or question != question.strip():
        return False
    if not MIN_QUESTION_CHARS <= len(question) <= MAX_QUESTION_CHARS:
        return False
    if not question[0].isupper() or not question.endswith("?"):
        return False
    if _SENTENCE_END.search(question) or len(question.split()) < 2:
        return False
    if _CUT_END.search(question) or not _balanced(question):
        return False
    return _asks(question[:-1]) and not _copied(question[:-1], about)


def _balanced(text: str) -> bool:
    """Brackets and quotes closed: an open one is a question cut short ("(a detail
    to add, audience and 30?")."""
    if text.count('"') % 2:
        return False
    return all(text.count(opening) == text.count(closing) for opening, closing in _PAIRS)


def _asks(body: str) -> bool:
    for clause in _CLAUSES.split(body.lower()):
        words = [w for w in _WORDS.findall(clause) if w not in _LEADING]
        # "what's", "how'd": the word before its contraction asks.
        if words and (_ASKING.fullmatch(words[0]) or _ASKING.fullmatch(words[0].split("'")[0])):
            return True
    return False


def _copied(body: str, about: str) -> bool:
    """Whether `body` (at least COPIED_WORDS words) appears in `about`, compared as
    lowercase words: a cut inside a word ("the import") still matches."""
    words = _WORDS.findall(body.lower())
    if len(words) < COPIED_WORDS:
        return False
    return " ".join(words) in " ".join(_WORDS.findall(about.lower()))
