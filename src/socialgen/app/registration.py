"""What a feature adds to socialgen: its HTTP routes, its commands, its streams.

Each package with faces declares one `FEATURE` in its own `feature.py`; the CLI's
root and the app factory read them all (`socialgen.app.features`), so adding a feature
edits no registry. A test (or an embedding program) hands more features in through
its Runtime (`Runtime(features=(...))`): the app and the command line add them to the
ones found. Targets are "module:attribute" strings, imported only by the face
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
    # "module:function": an async context manager taking the FastAPI app, entered while
    # the app serves (the publishing scheduler); every feature's, in the features' order.
    lifespans: tuple[str, ...] = ()
    # "module:function" taking the migrated store's engine and `serve`'s Runtime: run
    # once by `serve` before it listens, in the one process that starts the workers
    # (the carousel sweep).
    serve_start: tuple[str, ...] = ()
    # "module:register": a function taking the MCP server and its face
    # (socialgen.mcp_server.access.Face) that adds the feature's tools, resources and
    # prompts (its `mcp_tools.py`); every feature's, in the features' order.
    mcp: tuple[str, ...] = ()
    # "module:OPERATION": a streamed operation (app.operations.StreamedOperation), which
    # the API serves as a POST route and MCP as a tool from its declaration alone,
    # before the feature's own routers and tools.
    operations: tuple[str, ...] = ()


def resolve(target: str) -> Any:
    """The object a "module:attribute" target names."""
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)
