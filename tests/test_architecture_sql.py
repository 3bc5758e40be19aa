"""SQL lives in services and repositories, never in a face or a plan
(docs/architecture.md, "Layers"). A face (`api.py`, `cli.py`, `*_api.py`, `*_cli.py`,
`feature.py`) or a plan (`plan.py`) may hold a `Session` or an `Engine` and hand it on;
the queries it needs are functions of its domain's `repository.py` or `service.py`.

Read with `ast` from every such module under src/socialgen. A breach is:

- a query builder taken from SQLModel or SQLAlchemy (`select`, `update`, `delete`,
  `insert`, `text`, `func`, `col` ...; anything from `sqlalchemy.sql`);
- the whole library imported (`import sqlalchemy as sa` would reach `sa.select`);
- a statement run on a session or connection (`.exec(...)`, `.execute(...)`).

No allow-list: a breach is fixed by moving the query, never listed.
"""

from __future__ import annotations

import ast

import pytest

from tests.test_architecture import is_face, modules

LIBRARIES = ("sqlmodel", "sqlalchemy")
# What a face or plan may take from them: types to hold and hand on, and errors to catch.
ALLOWED_NAMES = frozenset({"Session", "Engine", "Connection", "SQLModel"})
ALLOWED_MODULES = ("sqlalchemy.exc", "sqlalchemy.orm", "sqlalchemy.engine")
RUNS = frozenset({"exec", "execute", "scalars", "scalar"})


def is_face_or_plan(module: str) -> bool:
    return is_face(module) or module.rsplit(".", 1)[-1] == "plan"


def _library(name: str) -> bool:
    return name.split(".")[0] in LIBRARIES


def sql_in(source: str, where: str) -> list[str]:
    """Every query builder import and statement run in one module's source."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [
                f"{where}:{node.lineno}: import {alias.name}"
                for alias in node.names
                if _library(alias.name)
            ]
        elif isinstance(node, ast.ImportFrom) and not node.level and _library(node.module or ""):
            module = node.module or ""
            if module.startswith(ALLOWED_MODULES):
                continue
            found += [
                f"{where}:{node.lineno}: from {module} import {alias.name}"
                for alias in node.names
                if module.startswith("sqlalchemy.sql") or alias.name not in ALLOWED_NAMES
            ]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in RUNS
        ):
            found.append(f"{where}:{node.lineno}: .{node.func.attr}(...)")
    return found


def test_faces_and_plans_hold_no_sql() -> None:
    wrong = [
        breach
        for module, path in modules().items()
        if is_face_or_plan(module)
        for breach in sql_in(path.read_text(encoding="utf-8"), module)
    ]
    assert not wrong, (
        "SQL in a face or plan: move the query to the domain's repository.py (or "
        "service.py) and call it:\n" + "\n".join(wrong)
    )


def test_the_check_reads_faces_and_plans() -> None:
    """Names the modules it checks as the check does: a reader that read none would
    pass on anything."""
    checked = [module for module in modules() if is_face_or_plan(module)]
    assert "socialgen.generation.plan" in checked
    assert "socialgen.posts.transfer_cli" in checked
    assert "socialgen.admin.cli" in checked
    assert "socialgen.posts.repository" not in checked


@pytest.mark.parametrize(
    "source",
    [
        "from sqlmodel import select\n",
        "from sqlmodel import Session, col\n",
        "from sqlalchemy import delete, update\n",
        "from sqlalchemy import text as sql_text\n",
        "from sqlalchemy.sql import expression\n",
        "import sqlalchemy as sa\n",
        "import sqlmodel\n",
        "def f(session):\n    return session.exec(statement).all()\n",
        "def f(connection):\n    connection.execute(statement)\n",
    ],
)
def test_a_planted_query_is_found(source: str) -> None:
    assert sql_in(source, "socialgen.posts.cli")


@pytest.mark.parametrize(
    "source",
    [
        "from sqlmodel import Session\n",
        "from sqlalchemy import Engine\n",
        "from sqlalchemy.exc import IntegrityError\n",
        "from socialgen.posts.repository import export_items\n",
    ],
)
def test_holding_a_session_is_not_a_query(source: str) -> None:
    assert sql_in(source, "socialgen.posts.cli") == []
