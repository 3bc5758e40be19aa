"""SQL lives in repositories (docs/architecture.md, "Layers"): in every package of
src/socialgen, only a `repository.py` or `repository_*.py` module builds and runs
statements, taking the caller's session and never committing. Services, plans,
faces, listings, the outbox's claim and worker ... hold a `Session` or an `Engine`,
open the transaction and call them. `store/` is the exception: it is the store
itself (engines, migrations, leases, bulk inserts, id references).

Read with `ast`, with the faces' reader (tests/test_architecture_sql.py, `sql_in`): a
query builder taken from SQLModel or SQLAlchemy, the whole library imported, or a
statement run (`.exec`, `.execute`, `.scalars`, `.scalar`) anywhere else is a
breach. No allow-list: a breach is fixed by moving the query.
"""

from __future__ import annotations

import pytest

from tests.test_architecture import modules
from tests.test_architecture_sql import sql_in

STORE = "socialgen.store"


def may_hold_sql(module: str) -> bool:
    return (
        module == STORE
        or module.startswith(f"{STORE}.")
        or module.rsplit(".", 1)[-1].startswith("repository")
    )


def breaches(sources: dict[str, str]) -> list[str]:
    """The SQL among `sources` (module -> source) outside repositories and the store."""
    return [
        breach
        for module, source in sources.items()
        if not may_hold_sql(module)
        for breach in sql_in(source, module)
    ]


def package_sources() -> dict[str, str]:
    return {module: path.read_text(encoding="utf-8") for module, path in modules().items()}


def test_sql_runs_only_in_repositories_and_the_store() -> None:
    wrong = breaches(package_sources())
    assert not wrong, (
        "SQL outside a repository: move the statement to the domain's repository.py "
        "(or a repository_*.py beside it) and call it:\n" + "\n".join(wrong)
    )


def test_the_check_reads_the_domains_and_skips_only_repositories_and_the_store() -> None:
    """A reader that read nothing would pass on anything."""
    sources = package_sources()
    read = [module for module in sources if not may_hold_sql(module)]
    for module in (
        "socialgen.posts.service",
        "socialgen.workspaces.usage",
        "socialgen.styles.service",
        "socialgen.auth.service",
        "socialgen.insights.history",
        "socialgen.carousels.sweep",
        "socialgen.publishing.outbox.claim",
        "socialgen.publishing.outbox.worker",
        "socialgen.publishing.accounts.history",
    ):
        assert module in read, module
    skipped = {module for module in sources if may_hold_sql(module)}
    assert "socialgen.posts.repository" in skipped
    assert "socialgen.publishing.outbox.repository_claim" in skipped
    assert "socialgen.store.engine" in skipped
    # Each repository does hold queries: the rule moved them, it did not lose them.
    for module in (
        "socialgen.posts.repository",
        "socialgen.workspaces.repository_quota",
        "socialgen.styles.repository",
        "socialgen.publishing.outbox.repository_claim",
    ):
        assert sql_in(sources[module], module), module


@pytest.mark.parametrize(
    ("module", "planted"),
    [
        ("socialgen.posts.service", "from sqlmodel import select\n"),
        ("socialgen.workspaces.usage", "import sqlalchemy as sa\n"),
        ("socialgen.insights.history", "def f(session):\n    return session.exec(q).all()\n"),
        ("socialgen.publishing.outbox.worker", "def f(c):\n    c.execute(q)\n"),
        ("socialgen.carousels.sweep", "from sqlalchemy import update\n"),
        ("socialgen.posts.quick_listing", "def f(db):\n    db.execute('SELECT 1')\n"),
        ("socialgen.newfeature.service", "from sqlalchemy import text\n"),
    ],
)
def test_a_query_planted_outside_a_repository_is_found(module: str, planted: str) -> None:
    sources = package_sources()
    before = len(breaches(sources))
    sources[module] = sources.get(module, "") + "\n" + planted

    assert len(breaches(sources)) > before


def test_the_same_query_in_a_repository_or_the_store_is_no_breach() -> None:
    planted = "from sqlmodel import select\ndef f(session):\n    return session.exec(q)\n"
    for module in (
        "socialgen.posts.repository",
        "socialgen.publishing.outbox.repository_claim",
        "socialgen.store.leases",
    ):
        assert breaches({module: planted}) == [], module
