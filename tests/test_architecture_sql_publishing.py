"""In publishing/, the SQL lives in the slices' repositories only (docs/architecture.md,
"Layers"): `accounts/repository*.py` and `outbox/repository*.py` build and run the
statements, taking the caller's session and never committing; every other module
of publishing/ (services, the claim, the worker, the passes, metrics, the networks,
secrets ...) holds a `Session` or an `Engine`, opens the transaction and calls them.

Read with `ast`, with the same reader as the faces' check (tests/test_architecture_sql.py,
`sql_in`): a query builder taken from SQLModel or SQLAlchemy, the whole library
imported, or a statement run (`.exec`, `.execute`, `.scalars`, `.scalar`) outside a
repository module is a breach. No allow-list: a breach is fixed by moving the query.
"""

from __future__ import annotations

from pathlib import Path

from tests.test_architecture import modules
from tests.test_architecture_sql import sql_in

PUBLISHING = "socialgen.publishing"


def is_repository(module: str) -> bool:
    return module.rsplit(".", 1)[-1].startswith("repository")


def publishing_modules() -> dict[str, Path]:
    """Every module of publishing/, its subpackages included."""
    return {
        module: path
        for module, path in modules().items()
        if module == PUBLISHING or module.startswith(f"{PUBLISHING}.")
    }


def breaches(sources: dict[str, str]) -> list[str]:
    """The SQL in the non-repository modules among `sources` (module -> source)."""
    return [
        breach
        for module, source in sources.items()
        if not is_repository(module)
        for breach in sql_in(source, module)
    ]


def publishing_sources() -> dict[str, str]:
    return {
        module: path.read_text(encoding="utf-8") for module, path in publishing_modules().items()
    }


def test_publishing_runs_sql_only_in_its_repositories() -> None:
    wrong = breaches(publishing_sources())
    assert not wrong, (
        "SQL in publishing/ outside a repository: move the statement to the slice's "
        "repository.py (or a repository_*.py beside it) and call it:\n" + "\n".join(wrong)
    )


def test_the_check_reads_every_module_of_publishing() -> None:
    """Names what it reads as the check does: a reader that read none, or skipped the
    subpackages, would pass on anything."""
    read = publishing_modules()
    for module in (
        "socialgen.publishing.secrets",
        "socialgen.publishing.outbox.claim",
        "socialgen.publishing.outbox.worker",
        "socialgen.publishing.outbox.metrics",
        "socialgen.publishing.accounts.history",
        "socialgen.publishing.networks.bluesky.session",
    ):
        assert module in read
        assert not is_repository(module)
    for module in (
        "socialgen.publishing.outbox.repository",
        "socialgen.publishing.outbox.repository_claim",
        "socialgen.publishing.accounts.repository",
    ):
        assert module in read
        assert is_repository(module)
    assert "socialgen.posts.repository" not in read


PLANTED = (
    "from sqlmodel import Session, col, select\n"
    "def due(session: Session) -> list[str]:\n"
    "    return list(session.exec(select(Publication.id)).all())\n"
)


def test_a_planted_query_outside_a_repository_is_found() -> None:
    assert breaches({"socialgen.publishing.outbox.claim": PLANTED}) == [
        "socialgen.publishing.outbox.claim:1: from sqlmodel import col",
        "socialgen.publishing.outbox.claim:1: from sqlmodel import select",
        "socialgen.publishing.outbox.claim:3: .exec(...)",
    ]
    # The same source in a repository is where it belongs.
    assert breaches({"socialgen.publishing.outbox.repository_claim": PLANTED}) == []


def test_a_query_planted_in_the_real_sources_is_found() -> None:
    """Through the whole check: publishing/'s modules as they are, with the query
    appended to one of them, fail it."""
    sources = publishing_sources()
    sources["socialgen.publishing.outbox.worker"] += "\n" + PLANTED
    found = breaches(sources)
    assert len(found) == 3
    assert all(breach.startswith("socialgen.publishing.outbox.worker:") for breach in found)


def test_a_planted_connection_run_in_a_network_module_is_found() -> None:
    planted = "def save(session):\n    session.connection().execute(statement)\n"
    assert breaches({"socialgen.publishing.networks.bluesky.session": planted}) == [
        "socialgen.publishing.networks.bluesky.session:2: .execute(...)"
    ]
