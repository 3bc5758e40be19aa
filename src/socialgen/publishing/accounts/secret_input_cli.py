"""How `accounts add` takes a secret: the first line of stdin, or a hidden prompt."""

from __future__ import annotations

import sys

import typer


def read_stdin(what: str) -> str:
    """The first line of stdin, read as bytes: text mode takes a lone CR for a line
    end and would cut a secret there silently; here it stays in, to be refused."""
    from socialgen.kit.errors import BadRequest

    stream = getattr(sys.stdin, "buffer", None)
    raw = stream.readline() if stream is not None else sys.stdin.readline().encode()
    try:
        value = raw.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise BadRequest(f"The {what} on stdin is not UTF-8 text") from None
    if not value:
        raise BadRequest(f"No {what} on stdin")
    return value


def prompt_secret(label: str) -> str:
    # To stderr, so --json output on stdout stays one document.
    value: str = typer.prompt(label, hide_input=True, err=True)
    return value.strip()
