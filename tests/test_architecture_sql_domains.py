"""In `styles/`, `auth/`, `insights/` and `carousels/` the SQL lives in the domain's
`repository*.py` only (issue 29, item 6; docs/architecture.md, "Layers"): services and
the other modules call its functions, faces and plans included, as
tests/test_architecture_sql.py already checks for every face and plan.

Read with `ast` from every module of those packages; a breach is what
`tests.test_architecture_sql.sql_in` finds (a query builder imported from SQLModel or
SQLAlchemy, the whole library imported, a statement run with `.exec(...)`,
`.execute(...)` ...) in a module whose name is not `repository*`. No allow-list: a
breach is fixed by moving the query into the repository.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.test_architecture import modules
from tests.test_architecture_sql import sql_in

DOMAINS = ("styles", "auth", "insights", "carousels")
REPOSITORY = "repository*"


def domain_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in DOMAINS else None


def is_repository(module: str) -> bool:
    return fnmatch.fnmatch(module.rsplit(".", 1)[-1], REPOSITORY)


def domain_modules() -> dict[str, Path]:
    return {module: path for module, path in modules().items() if domain_of(module)}


def breaches(sources: Mapping[str, str]) -> list[str]:
    """Every query outside a repository among `sources` (module name -> source)."""
    return [
        breach
        for module, source in sources.items()
        if domain_of(module) and not is_repository(module)
        for breach in sql_in(source, module)
    ]


def _sources() -> dict[str, str]:
    return {module: path.read_text(encoding="utf-8") for module, path in domain_modules().items()}


def test_these_domains_keep_their_sql_in_their_repositories() -> None:
    wrong = breaches(_sources())
    assert not wrong, (
        "SQL outside a repository: move the query to the domain's repository.py and "
        "call it:\n" + "\n".join(wrong)
    )


def test_the_check_reads_every_module_of_these_domains() -> None:
    """Names modules the check must read: a reader that read none would pass on
    anything."""
    checked = domain_modules()
    for module in (
        "socialgen.styles.service",
        "socialgen.styles.api",
        "socialgen.auth.service",
        "socialgen.insights.history",
        "socialgen.insights.ranking",
        "socialgen.insights.suggest",
        "socialgen.carousels.regenerate",
        "socialgen.carousels.sweep",
    ):
        assert module in checked
    assert "socialgen.posts.repository" not in checked
    assert "socialgen.styles" in checked  # the package's __init__.py too


@pytest.mark.parametrize("domain", DOMAINS)
def test_each_repository_is_read_and_holds_the_queries(domain: str) -> None:
    """The same reader finds the queries in each repository: it reads them, and the
    queries went there rather than away."""
    module = f"socialgen.{domain}.repository"
    source = domain_modules()[module].read_text(encoding="utf-8")
    assert is_repository(module)
    assert sql_in(source, module)
    assert breaches({module: source}) == []


PLANTED = [
    "from sqlmodel import select\n",
    "from sqlalchemy import func\n",
    "import sqlalchemy as sa\n",
    "def leak(session):\n    return session.exec(statement).all()\n",
    "def leak(session):\n    return session.execute(statement).all()\n",
]


@pytest.mark.parametrize("planted", PLANTED)
@pytest.mark.parametrize(
    "module",
    [
        "socialgen.styles.service",
        "socialgen.auth.service",
        "socialgen.insights.history",
        "socialgen.carousels.regenerate",
    ],
)
def test_a_planted_breach_is_found(module: str, planted: str) -> None:
    """A query added to a real module of these domains is reported, in that module at
    the planted line (whatever else is reported)."""
    sources = _sources()
    assert module in sources
    before = breaches(sources)
    lines = sources[module].count("\n")
    sources[module] += "\n" + planted
    found = [breach for breach in breaches(sources) if breach not in before]
    assert found
    assert all(breach.startswith(f"{module}:") for breach in found)
    assert all(int(breach.split(":")[1]) > lines for breach in found)


@pytest.mark.parametrize("planted", PLANTED)
def test_the_same_query_in_a_repository_is_no_breach(planted: str) -> None:
    assert breaches({"socialgen.insights.repository": planted}) == []
    assert breaches({"socialgen.insights.repository_rows": planted}) == []
    assert breaches({"socialgen.insights.history": planted})
