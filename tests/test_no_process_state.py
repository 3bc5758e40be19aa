"""No state lives in a module of src/: the Runtime (or the app's state) owns every
engine, cache, pool and registry, and a test builds a fresh Runtime instead of
resetting one (issue 29).

The check reads every module of src/socialgen and fails on:
- a `global` statement;
- a function named forget_*, reset_* or unregister_* (a reset for tests);
- a module-level assignment of a mutable container: a dict, list or set display or
  comprehension, or a call of dict/list/set/defaultdict/OrderedDict/deque/Counter;
- a module-level lock, event or pool: a call of threading's Lock, RLock, Condition,
  Semaphore, BoundedSemaphore, Event or Barrier, or of a ThreadPoolExecutor or
  ProcessPoolExecutor (shared by every Runtime of the process; `Final` does not
  excuse it).

What passes as a constant table: a tuple, frozenset or MappingProxyType; a name
annotated `Final`; or a non-empty display (literal or comprehension) under an
UPPER_CASE name (a leading underscore allowed) that its module never changes (no item
assignment, `del`, augmented assignment or mutating method call on it). An empty
container, or one the module fills, is a registry: it belongs to the Runtime.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "socialgen"

MUTABLE_CALLS = frozenset(
    {
        "dict",
        "list",
        "set",
        "defaultdict",
        "OrderedDict",
        "deque",
        "Counter",
        "WeakSet",
        "WeakKeyDictionary",
        "WeakValueDictionary",
    }
)
# Made at import, shared by every Runtime: a lock or pool belongs to what uses it.
SHARED_CALLS = frozenset(
    {
        "Lock",
        "RLock",
        "Condition",
        "Semaphore",
        "BoundedSemaphore",
        "Event",
        "Barrier",
        "ThreadPoolExecutor",
        "ProcessPoolExecutor",
    }
)
RESET_PREFIXES = ("forget_", "reset_", "unregister_")


def problems_in(source: str, where: str = "<snippet>") -> list[str]:
    """Every place in `source` that keeps state in the module (see the docstring)."""
    tree = ast.parse(source)
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):
            found.append(f"{where}:{node.lineno}: global {', '.join(node.names)}")
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
            RESET_PREFIXES
        ):
            found.append(f"{where}:{node.lineno}: def {node.name} (a reset for tests)")
    changed = _changed_names(tree)
    for statement in tree.body:
        value, annotation = _assigned(statement)
        if value is not None and _called(value) in SHARED_CALLS:
            name = _target_name(statement)
            found.append(f"{where}:{statement.lineno}: module-level lock or pool {name}")
            continue
        if value is None or _final(annotation) or not _mutable(value):
            continue
        name = _target_name(statement)
        if name == "__all__" or (_constant_table(name, value) and name not in changed):
            continue
        found.append(f"{where}:{statement.lineno}: module-level mutable container {name}")
    return found


MUTATORS = frozenset(
    {
        "append",
        "add",
        "update",
        "setdefault",
        "pop",
        "popitem",
        "clear",
        "extend",
        "insert",
        "remove",
        "discard",
        "move_to_end",
        "__setitem__",
    }
)


def _changed_names(tree: ast.AST) -> set[str]:
    """Names the module changes in place anywhere (item writes, del, mutating calls)."""
    changed: set[str] = set()
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign | ast.Delete):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in MUTATORS
            and isinstance(node.func.value, ast.Name)
        ):
            changed.add(node.func.value.id)
        for target in targets:
            while isinstance(target, ast.Subscript | ast.Attribute):
                target = target.value
                if isinstance(target, ast.Name):
                    changed.add(target.id)
            if isinstance(node, ast.AugAssign) and isinstance(target, ast.Name):
                changed.add(target.id)
    return changed


def _target_name(statement: ast.stmt) -> str:
    target = statement.targets[0] if isinstance(statement, ast.Assign) else statement.target  # type: ignore[attr-defined]
    return target.id if isinstance(target, ast.Name) else ""


def _constant_table(name: str, value: ast.expr) -> bool:
    stripped = name.lstrip("_")
    if not stripped or stripped != stripped.upper() or isinstance(value, ast.Call):
        return False
    if isinstance(value, ast.Dict):
        return bool(value.keys)
    if isinstance(value, ast.List | ast.Set):
        return bool(value.elts)
    return True  # a comprehension


def _assigned(statement: ast.stmt) -> tuple[ast.expr | None, ast.expr | None]:
    if isinstance(statement, ast.Assign):
        return statement.value, None
    if isinstance(statement, ast.AnnAssign):
        return statement.value, statement.annotation
    return None, None


def _final(annotation: ast.expr | None) -> bool:
    if annotation is None:
        return False
    head = annotation.value if isinstance(annotation, ast.Subscript) else annotation
    name = head.attr if isinstance(head, ast.Attribute) else getattr(head, "id", "")
    return name == "Final"


def _mutable(value: ast.expr) -> bool:
    if isinstance(value, ast.Dict | ast.List | ast.Set | ast.DictComp | ast.ListComp | ast.SetComp):
        return True
    return _called(value) in MUTABLE_CALLS


def _called(value: ast.expr) -> str:
    """`name` for `name(...)` or `module.name(...)`; "" for anything else."""
    if not isinstance(value, ast.Call):
        return ""
    func = value.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def test_no_module_keeps_state() -> None:
    found: list[str] = []
    for path in sorted(SRC.rglob("*.py")):
        relative = path.relative_to(SRC).as_posix()
        if "/migrations/" in f"/{relative}":
            continue
        found += problems_in(path.read_text(encoding="utf-8"), relative)
    assert found == [], "state kept in a module (own it in the Runtime):\n" + "\n".join(found)


def test_the_check_finds_each_kind() -> None:
    bad = """
_cache: dict[str, int] = {}
_seen = set()
_order = [1, 2]
_made = {k: 1 for k in "ab"}
MODELS: dict[str, int] = {}
TABLE = {"a": 1}
TABLE["b"] = 2

def remember(key: str) -> None:
    global _count

def forget_cache() -> None: ...
def reset_pool() -> None: ...
async def unregister_network(name: str) -> None: ...
"""
    found = problems_in(bad)
    assert len(found) == 10, found
    assert any("container MODELS" in line for line in found)  # empty: a registry
    assert any("container TABLE" in line for line in found)  # filled by the module
    assert any("global _count" in line for line in found)
    assert any("forget_cache" in line for line in found)
    assert any("unregister_network" in line for line in found)


def test_the_check_finds_module_level_locks_and_pools() -> None:
    bad = """
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Final

_lock = threading.Lock()
_executor = ThreadPoolExecutor(max_workers=1)
STOP: Final = threading.Event()
"""
    found = problems_in(bad)
    assert len(found) == 3, found
    assert all("lock or pool" in line for line in found)


def test_constant_tables_pass() -> None:
    good = """
from types import MappingProxyType
from typing import Final

NAMES = ("bluesky", "mastodon")
KINDS = frozenset({"a", "b"})
TABLE = MappingProxyType({"a": 1})
LIMITS: Final = {"a": 1}
LABELS: Final[dict[str, str]] = {"a": "A"}
_WIDTHS = {0: 1, 1: 1}
__all__ = ["NAMES"]

def f() -> None:
    local = {}
    local["x"] = 1
"""
    assert problems_in(good) == []
