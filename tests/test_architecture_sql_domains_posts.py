"""SQL lives in a domain's repositories: in posts/ and workspaces/, the query builders
and the statements they run are in `repository.py` or `repository_*.py`, and every
other module (services, listings, imports, faces) calls those functions
(docs/architecture.md, "Layers"; issue 29).

Read with `ast` from every module of those packages, with tests/test_architecture_sql.py's
`sql_in`: a query builder imported from SQLModel or SQLAlchemy, the whole library
imported, or a statement run (`.exec(...)`, `.execute(...)`, `.scalars(...)`, on a
session or a sqlite3 connection alike) outside a repository module is a breach.

No allow-list: a breach is fixed by moving the query into the repository, never listed.
"""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from tests.test_architecture import modules
from tests.test_architecture_sql import sql_in

DOMAINS = ("socialgen.posts", "socialgen.workspaces")


def is_repository(module: str) -> bool:
    name = module.rsplit(".", 1)[-1]
    return name == "repository" or name.startswith("repository_")


def in_domain(module: str) -> bool:
    return any(module.startswith(f"{domain}.") for domain in DOMAINS)


def checked(names: list[str]) -> list[str]:
    """The modules the rule applies to: a domain's, outside its repositories."""
    return [module for module in names if in_domain(module) and not is_repository(module)]


def breaches(sources: Mapping[str, str]) -> list[str]:
    """Every query builder import and statement run in the checked modules of
    `sources` (module name -> source text)."""
    return [
        breach for module in checked(list(sources)) for breach in sql_in(sources[module], module)
    ]


def _sources() -> dict[str, str]:
    return {module: path.read_text(encoding="utf-8") for module, path in modules().items()}


def test_domain_sql_lives_in_repositories() -> None:
    wrong = breaches(_sources())
    assert not wrong, (
        "SQL outside a repository in posts/ or workspaces/: move the query to the "
        "package's repository.py (or a repository_*.py of one purpose) and call it:\n"
        + "\n".join(wrong)
    )


def test_the_check_reads_every_module_of_the_domains() -> None:
    """Names what the check reads as it reads it: a reader that read nothing, or only
    the repositories, would pass on anything."""
    names = checked(list(modules()))
    for module in (
        "socialgen.posts.service",
        "socialgen.posts.listing",
        "socialgen.posts.quick_listing",
        "socialgen.posts.conversations",
        "socialgen.posts.import_ids",
        "socialgen.posts.import_dedup",
        "socialgen.posts.cli",
        "socialgen.workspaces.service",
        "socialgen.workspaces.usage",
        "socialgen.workspaces.quota_reconcile",
    ):
        assert module in names, module
    for repository in (
        "socialgen.posts.repository",
        "socialgen.posts.repository_listing",
        "socialgen.workspaces.repository",
        "socialgen.workspaces.repository_quota",
    ):
        assert repository in modules(), repository
        assert repository not in names, repository
    assert not any(module.startswith("socialgen.styles.") for module in names)


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("socialgen.posts.service", "from sqlmodel import Session, select\n"),
        ("socialgen.posts.listing", "import sqlalchemy as sa\n"),
        ("socialgen.posts.import_dedup", "from sqlalchemy import or_\n"),
        ("socialgen.posts.quick_listing", "def f(c):\n    return c.execute('SELECT 1')\n"),
        ("socialgen.workspaces.usage", "def f(s, q):\n    s.connection().execute(q)\n"),
        ("socialgen.workspaces.service", "def f(s, q):\n    return s.exec(q).first()\n"),
        # A new module of the package is read too, not just the ones there today.
        ("socialgen.posts.brand_new", "from sqlalchemy import func\n"),
    ],
)
def test_a_planted_query_outside_a_repository_is_found(module: str, source: str) -> None:
    planted = {**_sources(), module: source}
    found = breaches(planted)
    assert found
    assert all(breach.startswith(f"{module}:") for breach in found)


@pytest.mark.parametrize(
    "module",
    [
        "socialgen.posts.repository",
        "socialgen.posts.repository_listing",
        "socialgen.workspaces.repository_quota",
        "socialgen.styles.service",  # another domain: not this check's (yet)
    ],
)
def test_the_same_query_in_a_repository_is_not_a_breach(module: str) -> None:
    planted = {**_sources(), module: "from sqlmodel import select\nx = s.exec(select(1))\n"}
    assert breaches(planted) == []
