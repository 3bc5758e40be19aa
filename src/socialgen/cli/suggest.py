"""Help that never cuts a sentence, and "Did you mean" for a mistyped command.

Kept light on purpose (the standard library only): `socialgen --help` imports this.
"""

from __future__ import annotations

from collections.abc import Iterable
from difflib import get_close_matches

# A word that ends a sentence: its last character, not counting closing brackets or
# quotes ("(see docs/mcp.md)." ends one).
_SENTENCE_END = (".", "!", "?")
_CLOSERS = ")]'\"`"


def summary(help_text: str) -> str:
    """A command's line in its group's listing: the first sentence of its help,
    whole. click cut it to the columns left ("...streams as it...") at 80 columns;
    whole, the listing wraps it under itself instead (HelpFormatter.write_dl)."""
    paragraph = help_text.strip().split("\n\n", 1)[0]
    words = [word for word in paragraph.split() if word != "\b"]  # click's no-rewrap mark
    for index, word in enumerate(words):
        core = word.rstrip(_CLOSERS)
        if core.endswith(_SENTENCE_END) and not core.endswith("..."):  # "Gemini ...)" goes on
            return " ".join(words[: index + 1])
    return " ".join(words)


def suggestions(typed: str, names: Iterable[str]) -> list[str]:
    """The names `typed` was likely meant as: close in spelling (difflib, as typer
    does), or started by it (`socialgen ins` for `insights`), at most three."""
    known = list(dict.fromkeys(names))
    lowered = typed.lower()
    close = get_close_matches(lowered, known, n=3)
    started = [name for name in known if lowered and name.startswith(lowered)]
    return list(dict.fromkeys([*close, *started]))[:3]


def with_suggestion(message: str, typed: str, names: Iterable[str]) -> str:
    """click's "No such command 'insight'." with the names it may have meant (in
    place of typer's, which knew only some of them)."""
    message = message.split(" Did you mean ", 1)[0]
    found = suggestions(typed, names)
    if not found:
        return message
    return f"{message.rstrip('.')}. Did you mean {', '.join(repr(name) for name in found)}?"
