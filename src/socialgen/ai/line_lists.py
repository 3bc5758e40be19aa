"""Plans from small models, as short line lists.

A 135M model cannot write a JSON outline, but it can write five slide titles one
per line when a llama.cpp grammar holds it to that shape: exactly `count` lines of
plain words, no markup, no numbering. The embedded model enforces the grammar in
process; a remote model marked small gets it as the `grammar` body field
(llama_cpp.server, llama.cpp's server); a provider that refuses it is asked again
without, and the lines are cleaned either way.
"""

from __future__ import annotations

import logging
import re

from socialgen.ai.model import FormatRefused, Message, ModelError, Output, TextModel, complete
from socialgen.ai.structured import remember_grammar_refused, takes_grammar

logger = logging.getLogger("socialgen.ai")

# Bullets and numbering, however many the model stacked ("1. 4. Embracing ...").
_NUMBERING = re.compile(r"^\s*(?:(?:[-*•]+|\(?\d{1,2}[.):]|[A-Za-z][.)])\s*)+")


def line_grammar(count: int, *, max_words: int = 10) -> str:
    """GBNF for exactly `count` lines of 2 to `max_words` plain words, with the
    numbering small models like to write ("1. ") allowed and stripped later. A
    line can end only between words, never mid-word as a character cap would."""
    lines = " ".join(["line"] * count)
    return (
        f"root ::= {lines}\n"
        f'line ::= num? (word " "){{1,{max_words - 1}}} last "\\n"\n'
        'num ::= [0-9] [0-9]? [.)] " "\n'
        "word ::= chars [,:;?!.]?\n"
        # A line does not end on "," or ":" (a heading, or a list cut short).
        "last ::= chars [?!.]?\n"
        # No "/" or "%": small models otherwise start writing links.
        "chars ::= [A-Za-z0-9'&$-]{1,14}\n"
    )


async def ask_lines(
    model: TextModel,
    messages: list[Message],
    count: int,
    *,
    purpose: str,
    max_chars: int = 70,
    max_tokens: int | None = None,
    temperature: float = 0.2,  # small models stay on topic when they are not creative
    sentences: bool = False,
    about: str | None = None,
) -> list[str]:
    """Up to `count` cleaned, distinct lines; [] when the model failed. Titles lose
    their end punctuation; `sentences` keep it."""
    grammar = None
    if takes_grammar(model):
        grammar = prose_grammar(count, max_chars) if sentences else line_grammar(count)
    budget = max_tokens or count * (max_chars // 3 + 4)
    try:
        text = await _ask(model, messages, grammar, budget, temperature, purpose)
    except ModelError as error:
        logger.info("line list from %s failed: %s", model.name, error.message)
        return []
    lines = clean_lines(text, count, max_chars=max_chars, sentences=sentences)
    return [line for line in lines if about is None or shares_a_word(line, about)]


async def _ask(
    model: TextModel,
    messages: list[Message],
    grammar: str | None,
    max_tokens: int,
    temperature: float,
    purpose: str,
) -> str:
    try:
        return await complete(
            model,
            messages,
            output=Output(mode="text", grammar=grammar) if grammar else None,
            max_tokens=max_tokens,
            temperature=temperature,
            purpose=purpose,
        )
    except FormatRefused:
        remember_grammar_refused(model)
        return await complete(
            model, messages, max_tokens=max_tokens, temperature=temperature, purpose=purpose
        )


def prose_grammar(count: int, max_chars: int) -> str:
    """GBNF for `count` lines of prose (a slide's text, questions) of at most
    `max_chars` each, with no markup."""
    lines = " ".join(["line"] * count)
    return (
        f"root ::= {lines}\n"
        f'line ::= [A-Za-z0-9"] [^\\n\\r#*<>{{}}\\[\\]|_`]{{10,{max_chars - 1}}} "\\n"\n'
    )


_LINK_START = re.compile(r"\b(?:https?|www)\b", re.IGNORECASE)
_GLUED = re.compile(r"(?<=[a-z])(?=[A-Z])")  # "JobOffa": words run together at a cap
_DANGLING = frozenset(
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
        "with",
        "at",
        "by",
        "from",
        "your",
        "my",
        "our",
        "their",
        "its",
        "as",
        "is",
        "are",
        "how",
        "that",
        "this",
        "be",
        "can",
        "will",
        "when",
        "who",
        "what",
    ]
)
# "8 How To Build ...": a list number written without its dot (a count would be
# followed by what it counts, not by "How" or "The").
_BARE_NUMBER = re.compile(
    r"^\d{1,2}\s+(?=(?:how|the|what|why|when|where|a|an|your|my|our|is|are|do)\b)",
    re.IGNORECASE,
)
# Lines that talk about the task instead of doing it ("Here are 7 titles",
# "Provide your response with bullet points only", "Relevant title for ...", a
# top-up's "Not these, they are taken: ...").
_PREAMBLE = re.compile(
    r"\b(?:per line|here is|here are|here's|list of|titles?|your response|bullet points|"
    r"formatting|as an ai|assistant|for example|this is just|taken|not these|not in those)\b",
    re.IGNORECASE,
)


def tidy_title(line: str) -> str:
    """A title a length cap may have cut: glued words split off, the words that
    dangle at its end ("... Running Your") dropped, end punctuation trimmed."""
    line = _LINK_START.split(line, maxsplit=1)[0]  # "Running a bakery: https ..."
    words = [_GLUED.split(word, maxsplit=1)[0] for word in _BARE_NUMBER.sub("", line).split()]
    while words and words[-1].lower().strip(",:;-") in _DANGLING:
        words.pop()
    return " ".join(words).rstrip(" .,;:-")


_WORD = re.compile(r"[a-z]{4,}")


def shares_a_word(line: str, about: str) -> bool:
    """Whether `line` carries a content word of `about` (matched on its first four
    letters: "baking" carries "bakery"). A small model that drifts ("You are an AI
    assistant ...") writes lines that carry none."""
    stems = {word[:4] for word in _WORD.findall(about.lower())}
    return any(word[:4] in stems for word in _WORD.findall(line.lower()))


def clean_lines(
    text: str, count: int, *, max_chars: int = 70, sentences: bool = False
) -> list[str]:
    """Lines without numbering, bullets, wrapping quotes or echoes of the
    instructions ("Here are 5 slide titles:"); each once; at most `count`; none
    longer than `max_chars` or shorter than two characters. Titles are tidied;
    `sentences` keep their punctuation."""
    seen: set[str] = set()
    kept: list[str] = []
    for raw in text.splitlines():
        line = _NUMBERING.sub("", raw).strip().strip("\"'").strip()
        if not sentences:
            if _PREAMBLE.search(line):
                continue
            line = tidy_title(line)
        line = " ".join(line.rstrip(" ,;:-").split())
        key = line.lower()
        if len(line) < 2 or len(line) > max_chars or key in seen:
            continue
        seen.add(key)
        kept.append(line)
        if len(kept) == count:
            break
    return kept
