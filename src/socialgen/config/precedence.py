"""Which source gives a setting its value, decided here and nowhere else: a
command-line option, then the environment (SOCIALGEN_*), then the config file, then the
default.

The settings object (loading.py, its one pydantic-settings source), the quick reader
every command uses first (`config.light_setting`, which must not import
pydantic-settings) and `config list`'s origins all call `decide`, so they cannot
disagree. Light (the standard library and config/ only): `socialgen --help` may
import it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from socialgen.config.file import FileValue
from socialgen.config.keys import Key, lenient

# The config file's path and values, asked for only when no option or variable set
# the key: a quick read whose variable is set never opens (nor fails on) the file.
FileReader = Callable[[], tuple[Path, Mapping[str, FileValue]]]


@dataclass(frozen=True)
class Origin:
    """Where a setting's value came from, as `config list` shows it."""

    kind: str  # "option", "env", "file", "default"
    detail: str = ""  # the variable, or PATH:LINE

    def __str__(self) -> str:
        return f"{self.kind} {self.detail}".strip()


@dataclass(frozen=True)
class Decided:
    value: Any
    origin: Origin


def decide(
    key: Key, *, options: Mapping[str, Any], environ: Mapping[str, str], read_file: FileReader
) -> Decided:
    """`key`'s value and where it came from.

    `options` holds only the options given (a caller leaves unset ones out). A variable
    counts when it is not empty, and is read leniently (keys.lenient: one of spaces
    only gives the default, and still hides the file). The file's values are typed
    already (keys.strict)."""
    if key.name in options:
        return Decided(options[key.name], Origin("option"))
    text = environ.get(key.env) or ""
    if text:
        return Decided(lenient(key, text), Origin("env", key.env))
    path, values = read_file()
    found = values.get(key.name)
    if found is not None:
        return Decided(found.value, Origin("file", f"{path}:{found.line}"))
    return Decided(key.default, Origin("default"))
