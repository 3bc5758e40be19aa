"""The shape of the package, checked: imports run downhill, without cycles, and files
stay small. docs/architecture.md explains the layers; the table below is the law.

Repeat by hand: `.venv/bin/python -m pytest tests/test_architecture.py -q`. Each
failure names the file and line of the import (or the cycle) that breaks the rule.

Imports are read with `ast` from every file under src/socialgen: module-level
imports, imports inside functions (a lazy import is still a dependency) and those
under `if TYPE_CHECKING:` alike (a name a reader must look up is a dependency too,
even if it never runs).
"""

from __future__ import annotations

import ast
import fnmatch
import itertools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
ROOT = "socialgen"
MAX_LINES = 400

# Top to bottom, by folder: a module's layer is the layer of the folder it is in (the
# first part after `socialgen.`; "" is socialgen/__init__). A module may import from
# its own layer (see the rules for peers below) and from any layer under it, never
# from a layer above. The top of src/socialgen holds no module but __init__ and
# __main__ (test_the_top_holds_only_the_package_and_its_entry).
LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    ("entry", frozenset({"__main__"})),
    # The slices, and the faces (FACES below) of every package under them.
    (
        "slices",
        frozenset({"generation", "content_calendar", "carousels", "publishing", "admin"}),
    ),
    # What the faces share: the command line's (cli/), HTTP's (http/) and MCP's
    # (mcp_server/). Their entry points (cli/main.py, http/server.py,
    # mcp_server/build.py) reach the features only through app/.
    ("faces' layers", frozenset({"cli", "http", "mcp_server"})),
    ("drafting core", frozenset({"drafting"})),
    # The Runtime and who a call runs as (Caller), the features and how they are
    # found, start-up, the event docs. It names nothing above it.
    ("application", frozenset({"app"})),
    # Domain services the core and the slices build on: drafting/persist.py saves
    # through posts and workspaces.usage; plans read styles.guide; auth checks keys.
    ("domain services", frozenset({"posts", "styles", "workspaces", "auth", "insights"})),
    ("gateways", frozenset({"ai", "sources", "render", "files", "images"})),
    ("foundation", frozenset({"store", "events", "config"})),
    # Small foundations every layer may use (errors, clock, ids, limits ...).
    ("kit", frozenset({"kit", ""})),
)
# A package's CLI commands, HTTP routes and MCP tools are a face: they sit with the
# slices, whichever package they are in (posts/api.py, posts/cli.py,
# posts/mcp_tools.py, posts/mcp_transfer_tools.py, admin/files_api.py ...), and so
# does the declaration that registers them (feature.py).
FACES = ("api", "cli", "*_cli", "*_api", "mcp_tools", "mcp_*_tools", "feature")
SLICES = "slices"


@dataclass(frozen=True)
class Import:
    importer: str  # module name
    imported: str  # the socialgen module it names (a submodule when it is one)
    names: tuple[str, ...]  # the names taken from it ("from m import a, b"), else ()
    path: Path
    line: int

    def where(self) -> str:
        return f"{self.path.relative_to(SRC.parent)}:{self.line}"


# --- reading the imports ------------------------------------------------------------


@cache
def modules() -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in sorted((SRC / ROOT).rglob("*.py")):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


@cache
def imports() -> tuple[Import, ...]:
    return tuple(found for name, path in modules().items() for found in _imports_of(name, path))


def _imports_of(module: str, path: Path) -> Iterator[Import]:
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in _all_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if target := _known(alias.name):
                    yield Import(module, target, (), path, node.lineno)
        elif isinstance(node, ast.ImportFrom):
            base = _absolute(node, package)
            for alias in node.names:
                # "from socialgen.ai import images" names the module socialgen.ai.images.
                target = _known(f"{base}.{alias.name}") or _known(base)
                if target:
                    names = () if target.endswith(f".{alias.name}") else (alias.name,)
                    yield Import(module, target, names, path, node.lineno)


def _all_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node, the bodies of `if TYPE_CHECKING:` included."""
    return ast.walk(tree)


def _absolute(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    parts = package.split(".")
    base = parts[: len(parts) - node.level + 1]
    return ".".join([*base, node.module] if node.module else base)


def _known(name: str) -> str | None:
    """`name`, or its nearest enclosing module, when it is one of socialgen's."""
    while name:
        if name in modules():
            return name
        name = name.rpartition(".")[0]
    return None


# --- layers ---------------------------------------------------------------------------


def area(module: str) -> str:
    """The first part after `socialgen.` ("" for the package itself)."""
    return module.split(".")[1] if "." in module else ""


def is_face(module: str) -> bool:
    parts = module.split(".")
    return len(parts) > 2 and any(fnmatch.fnmatch(parts[-1], face) for face in FACES)


def layer_of(module: str) -> int:
    """The index in LAYERS (0 is the top)."""
    if is_face(module):
        return next(index for index, (name, _) in enumerate(LAYERS) if name == SLICES)
    for index, (_, areas) in enumerate(LAYERS):
        if area(module) in areas:
            return index
    raise AssertionError(f"{module} is in no layer: add {area(module)!r} to LAYERS")


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


# --- the checks ---------------------------------------------------------------------


def test_every_module_has_a_layer() -> None:
    for module in modules():
        layer_of(module)


def import_cycle(found: Iterable[Import]) -> list[str] | None:
    graph: dict[str, set[str]] = {module: set() for module in modules()}
    for one in found:
        if one.imported != one.importer:
            graph[one.importer].add(one.imported)
    return find_cycle(graph)


def package_cycle(found: tuple[Import, ...]) -> list[str]:
    """Hops of a cycle between areas, each with the import that makes it; [] if none."""
    graph: dict[str, set[str]] = {area(module): set() for module in modules()}
    for one in found:
        if area(one.importer) != area(one.imported):
            graph[area(one.importer)].add(area(one.imported))
    cycle = find_cycle(graph) or []
    return [
        next(
            f"{f.where()}: {f.importer} imports {f.imported}"
            for f in found
            if (area(f.importer), area(f.imported)) == (a, b)
        )
        for a, b in itertools.pairwise(cycle)
    ]


def uphill(found: Iterable[Import]) -> set[str]:
    return {
        f"{one.where()}: {one.importer} ({LAYERS[layer_of(one.importer)][0]}) imports "
        f"{one.imported} ({LAYERS[layer_of(one.imported)][0]})"
        for one in found
        if layer_of(one.imported) < layer_of(one.importer)
    }


def private_across_areas(found: Iterable[Import]) -> set[str]:
    return {
        f"{one.where()}: {one.importer} takes {name} from {one.imported}"
        for one in found
        if area(one.importer) != area(one.imported)
        for name in [*one.imported.split("."), *one.names]
        if _is_private(name)
    }


def peers_both_ways(found: Iterable[Import]) -> list[str]:
    edges: dict[tuple[str, str], Import] = {}
    for one in found:
        a, b = area(one.importer), area(one.imported)
        if a != b and layer_of(one.importer) == layer_of(one.imported):
            edges.setdefault((a, b), one)
    return [
        f"{a} <-> {b}: {there.where()} and {edges[(b, a)].where()}"
        for (a, b), there in sorted(edges.items())
        if a < b and (b, a) in edges
    ]


def test_no_import_cycle() -> None:
    cycle = import_cycle(imports())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_no_cycle_between_packages() -> None:
    """Packages (areas), faces included, import each other without a cycle, type-only
    imports counted: a face inside a package that reaches up to what reaches that
    package back (files/cli.py -> cli/ -> ... -> files/) would make one. Such a face
    belongs in a slice: admin/ holds the faces of files/, workspaces/ and auth/, and
    the faces' layers (cli/, http/, mcp_server/) and app/ never reach drafting/ or a
    domain package that has faces."""
    hops = package_cycle(imports())
    assert not hops, "package cycle:\n" + "\n".join(hops)


def test_imports_run_downhill() -> None:
    wrong = uphill(imports())
    assert not wrong, "imports from a higher layer:\n" + "\n".join(sorted(wrong))


def test_other_areas_are_reached_through_public_names() -> None:
    """Between two areas (slices, packages, top-level modules) an import names a
    public module and public names only: `_private` stays inside its own area."""
    wrong = private_across_areas(imports())
    assert not wrong, "private names used across areas:\n" + "\n".join(sorted(wrong))


def test_peers_import_each_other_one_way() -> None:
    """Two areas of one layer may depend on each other in one direction only (e.g.
    the image gateway fetches through sources, so sources never imports ai)."""
    both_ways = peers_both_ways(imports())
    assert not both_ways, "peers that import each other:\n" + "\n".join(both_ways)


def test_each_check_fails_on_a_planted_violation() -> None:
    """The checks above pass on src/; each must fail once one bad import is added to
    what was read (no allow-list: a breach is fixed, never listed)."""
    where = modules()["socialgen.kit.clock"]

    def planted(*edges: tuple[str, str, str]) -> tuple[Import, ...]:
        bad = [
            Import(f"socialgen.{a}", f"socialgen.{b}", (n,) if n else (), where, 1)
            for a, b, n in edges
        ]
        return (*imports(), *bad)

    assert uphill(planted(("store", "cli.main", "")))
    assert import_cycle(planted(("kit.clock", "kit.ids", ""), ("kit.ids", "kit.clock", "")))
    assert package_cycle(planted(("kit.clock", "config", ""), ("config", "kit.clock", "")))
    assert private_across_areas(planted(("cli.main", "kit.clock", "_private")))
    assert peers_both_ways(planted(("ai", "render", ""), ("render", "ai", "")))


def test_the_import_reader_sees_every_import_of_socialgen() -> None:
    """Every import of socialgen is read, lazy ones and type-only ones too: a reader that
    missed some would let the checks above pass on what it never saw."""
    read = {(one.path, one.line) for one in imports()}
    missed = []
    for path in modules().values():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Import | ast.ImportFrom):
                continue
            relative = isinstance(node, ast.ImportFrom) and node.level > 0
            named = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
            ours = relative or any((name or "").split(".")[0] == ROOT for name in named)
            if ours and (path, node.lineno) not in read:
                missed.append(f"{path.relative_to(SRC.parent)}:{node.lineno}")
    assert len(read) > 500, len(read)
    assert not missed, "imports the checks never saw:\n" + "\n".join(missed)


def test_the_faces_layers_name_no_feature() -> None:
    """cli/, http/ and mcp_server/ build the faces from what the features declare
    (app/features.py): none of their modules but their own faces imports a slice or a
    domain package that declares a feature (holds a feature.py), so a new feature edits
    none of them. (A gateway such as files/ may declare faces and still serve them all.)"""
    named = {"slices", "domain services"}
    declaring = {
        area(name)
        for name, path in modules().items()
        if path.name == "feature.py" and LAYERS[layer_of(name.rpartition(".")[0])][0] in named
    }
    assert {"generation", "posts", "styles", "insights", "publishing"} <= declaring, declaring
    shared = {"cli", "http", "mcp_server"}
    wrong = sorted(
        f"{one.where()}: {one.importer} imports {one.imported}"
        for one in imports()
        if area(one.importer) in shared
        and not is_face(one.importer)
        and area(one.imported) in declaring - shared
    )
    assert not wrong, "a faces' layer naming a feature:\n" + "\n".join(wrong)


def test_the_top_holds_only_the_package_and_its_entry() -> None:
    """Every module lives in the folder of its layer: at the top of src/socialgen only
    __init__.py and __main__.py."""
    top = sorted(path.name for path in (SRC / ROOT).glob("*.py"))
    assert top == ["__init__.py", "__main__.py"], top


def test_every_layer_folder_exists() -> None:
    """LAYERS names folders: one that no longer exists is a stale rule."""
    for _, areas in LAYERS:
        for name in areas - {"", "__main__"}:
            assert (SRC / ROOT / name / "__init__.py").is_file(), name


@pytest.mark.parametrize("path", sorted((SRC / ROOT).rglob("*.py")), ids=str)
def test_files_stay_small(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(SRC.parent)} has {lines} lines: split it"


# --- a cycle, found -------------------------------------------------------------------


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle in `graph` as [a, b, ..., a], or None (iterative depth-first search)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in sorted(graph):
        if start in state:
            continue
        path = [start]
        state[start] = 1
        pending = [iter(sorted(graph[start]))]
        while pending:
            step = next(pending[-1], None)
            if step is None:
                state[path.pop()] = 2
                pending.pop()
            elif state.get(step) == 1:
                return [*path[path.index(step) :], step]
            elif step not in state:
                state[step] = 1
                path.append(step)
                pending.append(iter(sorted(graph[step])))
    return None


def test_the_cycle_finder_finds_cycles() -> None:
    """The checks above are only as good as this: it must see a cycle when there is one."""
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": set(), "b": {"b"}}) == ["b", "b"]


def test_test_doubles_live_under_tests() -> None:
    """Scripted models, fakes and stubs are tests' business: the package ships none
    and never imports from tests/."""
    doubles = [
        path.relative_to(SRC)
        for path in SRC.rglob("*.py")
        if path.stem.startswith(("scripted", "fake", "stub", "mock"))
    ]
    assert doubles == []
    importing_tests = [
        path.relative_to(SRC)
        for path in SRC.rglob("*.py")
        if re.search(r"^\s*(from|import) tests\b", path.read_text(), re.MULTILINE)
    ]
    assert importing_tests == []
