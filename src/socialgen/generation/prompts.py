"""Prompt templates live as text files next to this module ($name placeholders)."""

from __future__ import annotations

import re
from functools import cache
from importlib.resources import files
from string import Template


@cache
def _template(name: str) -> Template:
    return Template(files("socialgen.generation").joinpath("prompts", f"{name}.txt").read_text())


def render(name: str, **values: str) -> str:
    """The template with its placeholders filled; runs of blank lines left by empty
    values folded."""
    text = _template(name).safe_substitute(values)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


@cache
def variations() -> tuple[tuple[str, str], ...]:
    """(name, instruction) of the five batch variations, in order."""
    rows = []
    for line in _template("variations").template.splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, instruction = line.partition("|")
            rows.append((name.strip(), instruction.strip()))
    return tuple(rows)
