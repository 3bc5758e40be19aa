"""Fit a long source into the model's context: a map-reduce summary, never a blind cut.

`condense()` leaves a text that already fits untouched. A longer one is split at
paragraph and sentence boundaries into chunks, each chunk is summarised by the
model (the map, a few at a time), the summaries are joined and, while the result
is still over budget, condensed again the same way (the reduce). Rounds are
bounded; if the model will not shrink the text enough, the rest is cut at a
sentence end rather than mid-sentence.

The boundary helpers (`split_sentences`, `split_text`, `cut_at_sentence`) are
shared with the PDF reader.

The model is any object with `stream()` (`ai.model.TextModel` is one), named by a
protocol of this module rather than imported from `ai`: the image gateway fetches
through `sources`, so `sources` never imports `ai` and the two stay one-way.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from typing import Protocol

DEFAULT_PURPOSE = "source material for a content calendar of social media posts"
MAX_ROUNDS = 3
MAP_CONCURRENCY = 3
MIN_SUMMARY_CHARS = 300  # below this a summary loses the facts the posts need
CHARS_PER_TOKEN = 3  # conservative: max_tokens must not cut a summary short

SYSTEM_PROMPT = (
    "You condense source material for a social media writer. Keep the facts, figures, "
    "names, concrete examples and the main arguments; drop repetition, greetings, "
    "sponsor messages and filler. Write plain prose in the language of the source. "
    "Answer with the condensed text only: no preamble, no headings, no comments."
)
USER_PROMPT = (
    "This is part {part} of {parts} of {purpose}. Condense it to at most {words} words.\n"
    "\n"
    "---\n"
    "{text}"
)


class _Piece(Protocol):
    @property
    def text(self) -> str: ...


class StreamingModel(Protocol):
    """What condensing needs of a text model: `ai.model.TextModel` has it."""

    def stream(
        self,
        messages: list[dict[str, str]],
        *,
        max_tokens: int | None = None,
        temperature: float | None = None,
        purpose: str | None = None,
    ) -> AsyncIterator[_Piece]: ...


# A sentence ends at . ! ? or … (plus closing quotes or brackets) before white
# space or the end, or at a CJK full stop, which needs no space after it.
_SENTENCE_END = re.compile(
    r"(?:[.!?\u2026]+[\"'\u201d\u2019)\]\u00bb]*(?=\s|$)"  # . ! ? … then closing marks
    r"|[\u3002\uff01\uff1f]+[\u300d\u300f\u201d\u2019)]*)"  # CJK full stops, then closing brackets
)
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
_WHITESPACE = re.compile(r"\s+")
_PREAMBLE = re.compile(  # "Here is the condensed text:" and the like, on a line of its own
    r"^\s*(?:sure[,!.]?\s*)?"
    r"(?:here(?:'s| is| are)\b[^\n]*|(?:condensed|summary)[^\n]{0,40}):\s*\n+",
    re.IGNORECASE,
)


async def condense(
    model: StreamingModel,
    text: str,
    *,
    budget_chars: int,
    chunk_chars: int = 6000,
    purpose: str = DEFAULT_PURPOSE,
    max_rounds: int = MAX_ROUNDS,
    concurrency: int = MAP_CONCURRENCY,
) -> str:
    """`text` if it fits in `budget_chars`, else a model-written summary that does.

    Chunks never end mid-sentence (only a single sentence longer than
    `chunk_chars` is split, at a word boundary). At most `concurrency` model calls
    run at once. Raises `ModelError` when the model fails.
    """
    if budget_chars <= 0:
        raise ValueError("budget_chars must be positive")
    if chunk_chars <= 0:
        raise ValueError("chunk_chars must be positive")
    if len(text) <= budget_chars:
        return text
    limit = asyncio.Semaphore(max(1, concurrency))
    current = text.strip()
    for _ in range(max(1, max_rounds)):
        chunks = split_text(current, chunk_chars)
        # Aim each summary at its share of the budget, so one round usually suffices.
        target = max(MIN_SUMMARY_CHARS, budget_chars // len(chunks) - 2)
        summaries = await _map(model, chunks, target, purpose, limit)
        condensed = "\n\n".join(summary for summary in summaries if summary)
        if len(condensed) <= budget_chars:
            return condensed
        if len(condensed) >= len(current):
            break  # the model is not shrinking the text: another round will not help
        current = condensed
    return cut_at_sentence(current, budget_chars)


async def _map(
    model: StreamingModel, chunks: list[str], target: int, purpose: str, limit: asyncio.Semaphore
) -> list[str]:
    async def one(index: int, chunk: str) -> str:
        async with limit:
            return await _summarise(model, chunk, index, len(chunks), target, purpose)

    # A TaskGroup: one failing call cancels the others instead of leaving them running.
    async with asyncio.TaskGroup() as group:
        tasks = [group.create_task(one(index, chunk)) for index, chunk in enumerate(chunks)]
    return [task.result() for task in tasks]


async def _summarise(
    model: StreamingModel, chunk: str, index: int, count: int, target: int, purpose: str
) -> str:
    if len(chunk) <= target:
        return chunk  # already as short as its share: nothing to gain from the model
    words = max(40, target // 6)  # about 6 characters per English word with its space
    messages: list[dict[str, str]] = [
        {"role": "system", "content": SYSTEM_PROMPT},
        {
            "role": "user",
            "content": USER_PROMPT.format(
                part=index + 1, parts=count, purpose=purpose, words=words, text=chunk
            ),
        },
    ]
    pieces = model.stream(
        messages,
        max_tokens=target // CHARS_PER_TOKEN + 64,
        temperature=0.2,
        purpose="condense",
    )
    answer = "".join([piece.text async for piece in pieces])
    summary = _PREAMBLE.sub("", answer.strip(), count=1).strip()
    if not summary:
        # A model that answers nothing must not make the part vanish silently: keep
        # its opening sentences instead.
        return cut_at_sentence(chunk, target)
    return summary


# --- boundaries ------------------------------------------------------------------------


def sentence_ends(text: str) -> list[int]:
    """Offsets just after each sentence end in `text` (before the following space)."""
    return [match.end() for match in _SENTENCE_END.finditer(text)]


def split_sentences(text: str) -> list[str]:
    """`text` as sentences, each stripped; a trailing fragment counts as one."""
    sentences: list[str] = []
    start = 0
    for end in sentence_ends(text):
        if piece := text[start:end].strip():
            sentences.append(piece)
        start = end
    if rest := text[start:].strip():
        sentences.append(rest)
    return sentences


def split_text(text: str, chunk_chars: int) -> list[str]:
    """Chunks of at most `chunk_chars`, split between paragraphs, else between
    sentences; only a sentence longer than a chunk is split, between words."""
    pieces: list[tuple[str, str]] = []  # (text, separator placed before it)
    for paragraph in _PARAGRAPH_BREAK.split(text.strip()):
        paragraph = paragraph.strip()
        if not paragraph:
            continue
        if len(paragraph) <= chunk_chars:
            pieces.append((paragraph, "\n\n"))
            continue
        separator = "\n\n"
        for sentence in split_sentences(paragraph):
            for part in _split_words(sentence, chunk_chars):
                pieces.append((part, separator))
                separator = " "
    chunks: list[str] = []
    current = ""
    for piece, separator in pieces:
        if current and len(current) + len(separator) + len(piece) <= chunk_chars:
            current += separator + piece
            continue
        if current:
            chunks.append(current)
        current = piece
    if current:
        chunks.append(current)
    return chunks


def cut_at_sentence(text: str, limit: int) -> str:
    """`text` if it fits, else its longest prefix within `limit` that ends a sentence.

    Without any sentence end in reach it falls back to the last paragraph or line
    break, then the last space: a cut word is the very last resort.
    """
    text = text.strip()
    if len(text) <= limit:
        return text
    head = text[: limit + 1]  # +1: a sentence end may sit exactly at the limit
    ends = [end for end in sentence_ends(head) if end <= limit]
    if ends:
        return text[: ends[-1]].rstrip()
    for breaker in ("\n\n", "\n", " "):
        position = head.rfind(breaker, 0, limit + 1)
        if position > 0:
            return text[:position].rstrip()
    return text[:limit]


def _split_words(sentence: str, limit: int) -> list[str]:
    if len(sentence) <= limit:
        return [sentence]
    parts: list[str] = []
    current = ""
    for word in _WHITESPACE.split(sentence):
        while len(word) > limit:  # one "word" longer than a chunk: nothing else to do
            if current:
                parts.append(current)
                current = ""
            parts.append(word[:limit])
            word = word[limit:]
        if current and len(current) + 1 + len(word) > limit:
            parts.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    if current:
        parts.append(current)
    return parts
