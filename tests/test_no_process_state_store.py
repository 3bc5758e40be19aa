"""The store keeps nothing per process (issue 29, item 2): engines, the stores made
ready and the quota lease belong to a Runtime (store/stores.py), which a test builds
fresh instead of resetting anything.

Read with `ast` from the store's modules, app/startup.py and app/runtime.py: no `global`
statement, no reset function (`forget_*`, `reset_*`), and no module-level mutable
container (a dict, list or set, literal or built, a WeakSet ...) except a constant
table, named in capitals.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "socialgen"
MODULES = (
    *sorted((SRC / "store").glob("*.py")),
    *sorted((SRC / "store" / "tables").glob("*.py")),
    SRC / "app" / "startup.py",
    SRC / "app" / "runtime.py",
)
MUTABLE_CALLS = frozenset(
    {"dict", "list", "set", "defaultdict", "OrderedDict", "WeakSet", "WeakValueDictionary"}
    | {"WeakKeyDictionary", "deque", "Counter"}
)
RESET_PREFIXES = ("forget_", "reset_")


def process_state(source: str, path: str) -> list[str]:
    """What in one module's source keeps state per process."""
    tree = ast.parse(source)
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            found.append(f"{path}:{node.lineno}: global {', '.join(node.names)}")
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
            RESET_PREFIXES
        ):
            found.append(f"{path}:{node.lineno}: reset function {node.name}()")
    for node in tree.body:
        targets: list[ast.expr] = []
        value: ast.expr | None = None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        names = [target.id for target in targets if isinstance(target, ast.Name)]
        if value is None or not names or all(_constant(name) for name in names):
            continue
        if _is_mutable(value):
            found.append(f"{path}:{node.lineno}: module-level {', '.join(names)}")
    return found


def _constant(name: str) -> bool:
    """A constant table (capitals) or a module's dunder (`__all__`)."""
    return name.isupper() or (name.startswith("__") and name.endswith("__"))


def _is_mutable(value: ast.expr) -> bool:
    if isinstance(value, ast.Dict | ast.List | ast.Set | ast.DictComp | ast.ListComp):
        return True
    if isinstance(value, ast.SetComp):
        return True
    if isinstance(value, ast.Call):
        func = value.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        return name in MUTABLE_CALLS
    return False


def test_the_store_startup_and_runtime_keep_nothing_per_process() -> None:
    found: list[str] = []
    for path in MODULES:
        found += process_state(path.read_text(encoding="utf-8"), path.relative_to(SRC).as_posix())
    assert not found, (
        "state kept per process: put it in the Runtime (store/stores.py) and let tests "
        "build a fresh one:\n" + "\n".join(found)
    )


def test_the_modules_checked_are_there() -> None:
    names = {path.relative_to(SRC).as_posix() for path in MODULES}
    assert {"store/engine.py", "store/leases.py", "store/stores.py", "app/startup.py"} <= names


@pytest.mark.parametrize(
    "source",
    [
        "_ready: set[str] = set()\n",
        "_engines = {}\n",
        "import weakref\n_held = weakref.WeakSet()\n",
        "_x = None\ndef keep() -> None:\n    global _x\n    _x = 1\n",
        "def forget_opened_stores() -> None:\n    pass\n",
        "def reset_engines() -> None:\n    pass\n",
    ],
)
def test_a_planted_registry_is_found(source: str) -> None:
    assert len(process_state(source, "store/planted.py")) == 1


def test_constant_tables_and_immutable_values_pass() -> None:
    source = (
        "OWN_FILES = ('a', 'b')\nBY_NAME = {'a': 1}\n_SUFFIXES = ('', '-wal')\n"
        "logger = getLogger('x')\nLEASE = 120.0\n"
    )
    assert process_state(source, "store/planted.py") == []
