"""Prompt templates live as text files in a `prompts/` folder beside the package that
uses them ($name placeholders): the drafting core's own (post writing, variations,
summaries) here, each slice's in its own package."""

from __future__ import annotations

import re
from functools import cache
from importlib.resources import files
from string import Template

CORE = "socialgen.drafting"


@cache
def _template(package: str, name: str) -> Template:
    return Template(files(package).joinpath("prompts", f"{name}.txt").read_text())


class Prompts:
    """The prompt templates of one package (its `prompts/NAME.txt` files)."""

    def __init__(self, package: str) -> None:
        self.package = package

    def render(self, name: str, **values: str) -> str:
        """The template with its placeholders filled; runs of blank lines left by
        empty values folded."""
        text = _template(self.package, name).safe_substitute(values)
        return re.sub(r"\n{3,}", "\n\n", text).strip()

    def raw(self, name: str) -> str:
        return _template(self.package, name).template


core_prompts = Prompts(CORE)
render = core_prompts.render


@cache
def variations() -> tuple[tuple[str, str], ...]:
    """(name, instruction) of the five batch variations, in order."""
    rows = []
    for line in core_prompts.raw("variations").splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, instruction = line.partition("|")
            rows.append((name.strip(), instruction.strip()))
    return tuple(rows)
