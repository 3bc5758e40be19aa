"""Every feature of socialgen, found by its `feature.py`, and the faces built from them.

A package joins by holding a `feature.py` with a `FEATURE` (socialgen.registration):
nothing here names it. Found once per process; a scan of one directory, so cheap.
"""

from __future__ import annotations

import importlib
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from socialgen.registration import Feature, resolve

if TYPE_CHECKING:
    import typer
    from fastapi import FastAPI

    from socialgen.events.stream import Stream

PACKAGE = Path(__file__).resolve().parent


@cache
def features() -> tuple[Feature, ...]:
    found = []
    for declaration in sorted(PACKAGE.glob("*/feature.py")):
        module = importlib.import_module(f"socialgen.{declaration.parent.name}.feature")
        feature = getattr(module, "FEATURE", None)
        if not isinstance(feature, Feature):
            raise TypeError(f"{declaration} must define FEATURE = Feature(...)")
        found.append(feature)
    return tuple(sorted(found, key=lambda feature: (feature.order, feature.name)))


def add_commands(app: typer.Typer) -> None:
    """Every feature's commands and command groups, in the features' order; then the
    extensions, once every group exists."""
    groups: dict[str, typer.Typer] = {}
    for feature in features():
        for name, target in feature.commands:
            app.command(name)(resolve(target))
        for name, target in feature.groups:
            groups[name] = resolve(target)
            app.add_typer(groups[name], name=name)
    for feature in features():
        for group, target in feature.extends:
            if group not in groups:
                raise LookupError(f"feature {feature.name} extends an unknown group {group!r}")
            resolve(target)(groups[group])


def include_routers(app: FastAPI) -> None:
    for feature in features():
        for target in feature.routers:
            app.include_router(resolve(target))


def streams() -> tuple[Stream, ...]:
    """Every stream, for the docs' event tables and the contract tests."""
    return tuple(
        stream for feature in features() if feature.streams for stream in resolve(feature.streams)
    )
