"""Every feature of socialgen, found by its `feature.py`, and the faces built from them.

A package (or a slice one level below it: publishing/accounts/) joins by holding a
`feature.py` with a `FEATURE` (socialgen.registration): nothing here names it. Found
once per process; a scan of two directory levels, so cheap. A Runtime may hand in
more (`Runtime(features=...)`): the app's routes and lifespans, `serve`'s start work
and the command line's commands take them too.
"""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import AsyncExitStack, asynccontextmanager
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from socialgen.cli_support import LazyGroup, SocialgenGroup
from socialgen.registration import Feature, Group, resolve

if TYPE_CHECKING:
    import typer
    from fastapi import FastAPI

    from socialgen.events.stream import Stream
    from socialgen.runtime import Runtime

PACKAGE = Path(__file__).resolve().parent


def features(handed_in: Iterable[Feature] = ()) -> tuple[Feature, ...]:
    """Every feature found under socialgen/, with those `handed_in` (a Runtime's)."""
    handed_in = tuple(handed_in)
    if not handed_in:
        return _found()
    return tuple(sorted((*_found(), *handed_in), key=lambda feature: (feature.order, feature.name)))


@cache
def _found() -> tuple[Feature, ...]:
    found = []
    # A package's own, or each slice's of a package split in slices (publishing/'s
    # accounts/ and outbox/).
    declarations = (*PACKAGE.glob("*/feature.py"), *PACKAGE.glob("*/*/feature.py"))
    for declaration in sorted(declarations):
        parts = declaration.relative_to(PACKAGE).with_suffix("").parts
        module = importlib.import_module(".".join(("socialgen", *parts)))
        feature = getattr(module, "FEATURE", None)
        if not isinstance(feature, Feature):
            raise TypeError(f"{declaration} must define FEATURE = Feature(...)")
        found.append(feature)
    return tuple(sorted(found, key=lambda feature: (feature.order, feature.name)))


def add_commands(app: typer.Typer) -> None:
    """Every feature's commands, then its command groups, in the features' order. A
    group is loaded (its module imported, the features that extend it applied) when a
    command line names it: `socialgen --help` and `socialgen post ...` import none."""
    extensions: dict[str, list[str]] = {}
    for feature in features():
        for group_name, target in feature.extends:
            extensions.setdefault(group_name, []).append(target)
    groups = {group.name: group for feature in features() for group in feature.groups}
    if unknown := set(extensions) - set(groups):
        raise LookupError(f"features extend unknown command groups: {sorted(unknown)}")
    for feature in features():
        for name, target in feature.commands:
            app.command(name)(resolve(target))
    for group in groups.values():
        SocialgenGroup.lazy_groups[group.name] = LazyGroup(
            group.help, _loader(group, extensions.get(group.name, []))
        )


def _loader(group: Group, extensions: list[str]) -> Callable[[], Any]:
    # Once per process: the extensions add their commands to the group's Typer app, so
    # a second load would add them again (an in-process caller such as typer's
    # CliRunner loads the group on every invoke; each load grew slower).
    @cache
    def load() -> Any:
        from typer.main import get_group

        sub_app = resolve(group.target)
        for target in extensions:
            resolve(target)(sub_app)
        command = get_group(sub_app)
        command.name = group.name
        command.help = group.help
        return command

    return load


def include_routers(app: FastAPI, handed_in: Iterable[Feature] = ()) -> None:
    for feature in features(handed_in):
        for target in feature.routers:
            app.include_router(resolve(target))


@asynccontextmanager
async def lifespans(app: FastAPI, handed_in: Iterable[Feature] = ()) -> AsyncIterator[None]:
    """Every feature's lifespan work while the app serves, entered in the features'
    order and left in the reverse one."""
    async with AsyncExitStack() as stack:
        for feature in features(handed_in):
            for target in feature.lifespans:
                await stack.enter_async_context(resolve(target)(app))
        yield


def serve_start(engine: Any, runtime: Runtime) -> None:
    """Every feature's work before `serve` listens (once, before any worker starts),
    with the migrated store and `serve`'s Runtime (its features are handed in too)."""
    for feature in features(runtime.features):
        for target in feature.serve_start:
            resolve(target)(engine, runtime)


def streams(handed_in: Iterable[Feature] = ()) -> tuple[Stream, ...]:
    """Every stream, for the docs' event tables and the contract tests."""
    return tuple(
        stream
        for feature in features(handed_in)
        if feature.streams
        for stream in resolve(feature.streams)
    )
