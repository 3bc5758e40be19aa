"""What a feature adds to socialgen: its HTTP routes, its commands, its streams.

Each package with faces declares one `FEATURE` in its own `feature.py`; the CLI's
root and the app factory read them all (`socialgen.features`), so adding a feature
edits no registry. Targets are "module:attribute" strings, imported only by the face
that needs them: `socialgen --help` imports no router, `serve` no command.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Group:
    """A command group, loaded when it is used: `socialgen --help` shows `help` without
    importing `target`, so the help of every group is written here, not in its module."""

    name: str
    target: str  # "module:app", a typer.Typer
    help: str


@dataclass(frozen=True)
class Feature:
    name: str
    order: int  # its place in `socialgen --help` and in /openapi.json (lowest first)
    routers: tuple[str, ...] = ()  # "module:router" (FastAPI APIRouter)
    commands: tuple[tuple[str, str], ...] = ()  # (command name, "module:function")
    groups: tuple[Group, ...] = ()
    # (another feature's group name, "module:function") called with that group, to add
    # commands to it (publishing adds `posts publish`, `posts schedule --to` ...).
    extends: tuple[tuple[str, str], ...] = ()
    streams: str | None = None  # "module:STREAMS", a tuple of events.stream.Stream


def resolve(target: str) -> Any:
    """The object a "module:attribute" target names."""
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)
