"""A one-word topic that is a `posts` command: `socialgen post recent` is one letter
from `socialgen posts recent`, and without this check it spent model time writing a
post about "recent" and saved it.

So before any model call: at a terminal, ask (no is the default, and then say which
command was probably meant); in a script, where nobody can answer, refuse with the
same pointer and how to write about that word after all (give it in more words).
The words are the `posts` group's commands as the command line has them, publishing's
`publish`/`schedule` included, so a command added there is guarded too.
"""

from __future__ import annotations

import sys

import typer

from socialgen.cli.support import console, styled
from socialgen.kit.errors import BadRequest


def check_topic(ctx: typer.Context, topic: str, command: str) -> None:
    """Go on, ask, or refuse (see the module's note) for `socialgen COMMAND TOPIC`."""
    word = topic.strip()
    if len(word.split()) != 1 or word.lower() not in posts_commands(ctx):
        return
    meant = f"socialgen posts {word.lower()}"
    doing = _doing(command, word)
    if not at_terminal():
        raise BadRequest(
            f'"{word}" is a posts command: did you mean `{meant}`? '
            f"To {doing}, say it in more words."
        )
    question = f'"{word}" is also a posts command ({meant}). {doing.capitalize()}?'
    if not typer.confirm(question, default=False, err=True):
        console(stderr=True).print(styled("Nothing written. Did you mean: ", (meant, "bold")))
        raise typer.Exit(1)


def at_terminal() -> bool:
    """Whether a person can answer: a terminal on stdin (as `support.confirm` asks)."""
    return sys.stdin.isatty()


def posts_commands(ctx: typer.Context) -> set[str]:
    """The `posts` group's command names, as the root group knows them."""
    root = ctx.find_root()
    group = root.command.get_command(root, "posts")  # type: ignore[attr-defined]
    return set(group.list_commands(root)) if group is not None else set()


def _doing(command: str, word: str) -> str:
    if command == "chat":
        return f'send "{word}" to the model'
    return f'write a post about "{word}"'
