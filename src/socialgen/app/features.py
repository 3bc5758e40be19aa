"""Every feature of socialgen, found by its `feature.py`: the faces are built from them
(cli/commands.py, http/feature_routes.py, mcp_server/build.py).

A package (or a slice one level below it: publishing/accounts/) joins by holding a
`feature.py` with a `FEATURE` (socialgen.app.registration): nothing here names it. Found
once per process; a scan of two directory levels, so cheap. A Runtime may hand in
more (`Runtime(features=...)`): the app's routes and lifespans, `serve`'s start work
and the command line's commands take them too.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from socialgen.app.registration import Feature, resolve

if TYPE_CHECKING:
    from socialgen.app.runtime import Runtime
    from socialgen.events.stream import Stream

PACKAGE = Path(__file__).resolve().parents[1]  # src/socialgen: app/ is one of its folders


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
