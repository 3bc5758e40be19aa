"""The CLI's quick read path (posts.quick_listing: sqlite3 alone) answers exactly as
posts.listing does, and steps aside (None) whenever it cannot: PostgreSQL, a store
not yet created or migrated, no default workspace."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from socialgen.app.runtime import Runtime
from socialgen.kit.clock import iso, utcnow
from socialgen.kit.errors import BadRequest
from socialgen.posts import listing
from socialgen.posts.post_filter import make_filter
from socialgen.posts.quick_listing import quick_listing
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import PostStatus, Workspace
from tests.conftest import Store, days_ago, days_ahead


def _store_url() -> str:
    """The store the environment names now (each test sets its own)."""
    return Runtime().store_settings.database_url


@pytest.fixture
def sqlite_only(store: Store) -> Store:
    if not store.url.startswith("sqlite"):
        pytest.skip("the quick path reads SQLite only (PostgreSQL: see the None test)")
    return store


def full_listing(store: Store, kind: str, workspace_id: str, **paging: Any) -> Any:
    reads = {"recent": listing.recent_posts, "timeline": listing.posts_timeline}
    read = reads.get(kind, listing.list_posts)
    with read_session(store.engine) as session:
        return read(session, workspace_id, **paging)


def test_the_quick_path_answers_as_the_full_one(sqlite_only: Store) -> None:
    store = sqlite_only
    tie = days_ago(2)
    for number in range(3):
        store.post(f"tie {number}", status=PostStatus.PUBLISHED, when=tie, likes=number)
    store.post("far ahead", status=PostStatus.SCHEDULED, when=days_ahead(30))
    store.post("a draft", when=days_ago(1), post_url="https://example.com/x")
    store.post("too old", when=days_ago(120))
    store.post("another workspace", workspace_id=store.workspace("Agency"))
    now = utcnow()

    for kind in ("recent", "timeline"):
        for limit in (None, 1, 2, 10):
            quick = quick_listing(
                kind, None, database_url=_store_url(), limit=limit, cursor=None, now=now
            )
            full = full_listing(store, kind, store.workspace_id, now=now, limit=limit)
            assert quick == full, (kind, limit)
            cursor = full.get("nextCursor")
            while cursor:  # every later page too
                quick = quick_listing(
                    kind, None, database_url=_store_url(), limit=limit, cursor=cursor, now=now
                )
                full = full_listing(
                    store, kind, store.workspace_id, now=now, limit=limit, cursor=cursor
                )
                assert quick == full, (kind, limit, cursor)
                cursor = full["nextCursor"]
    by_name = quick_listing("recent", "Agency", database_url=_store_url(), limit=None, cursor=None)
    assert by_name is not None
    assert [post["postContent"] for post in by_name["posts"]] == ["another workspace"]


def test_the_quick_path_filters_as_the_full_one(sqlite_only: Store) -> None:
    store = sqlite_only
    store.post("Shipping weekly, years ago", status=PostStatus.PUBLISHED, when=days_ago(700))
    for number in range(4):
        store.post(f"ship note {number}", status=PostStatus.PUBLISHED, when=days_ago(number))
    store.post("a shipping draft", when=days_ago(1))
    store.post("ship it ahead", status=PostStatus.SCHEDULED, when=days_ahead(3))
    store.post("unrelated", status=PostStatus.PUBLISHED, when=days_ago(5))
    now = utcnow()
    filters = [
        make_filter(search="ship"),
        make_filter(["published"], since="2020-01-01", search="ship note"),
        make_filter(["draft", "scheduled"]),
        make_filter(until=iso(days_ago(2)), search="ship"),
        make_filter(["draft"], search="nothing"),
    ]
    for where in filters:
        for kind in ("recent", "timeline", "all"):
            for limit in (None, 2):
                options: dict[str, Any] = {"limit": limit, "now": now, "where": where}
                quick = quick_listing(kind, None, database_url=_store_url(), cursor=None, **options)
                full = full_listing(store, kind, store.workspace_id, **options)
                assert quick == full, (where, kind, limit)
                while full.get("nextCursor"):
                    options["cursor"] = full["nextCursor"]
                    quick = quick_listing(kind, None, database_url=_store_url(), **options)
                    full = full_listing(store, kind, store.workspace_id, **options)
                    assert quick == full, (where, kind, limit, options["cursor"])
    assert full_listing(store, "all", store.workspace_id, where=filters[0])["total"] == 7


def test_the_quick_path_leaves_workspace_refs_it_cannot_settle_to_the_full_one(
    sqlite_only: Store,
) -> None:
    # Two workspaces of one name, written directly: `workspace create` refuses twins.
    with transaction(sqlite_only.engine) as session:
        session.add_all([Workspace(name="Twin"), Workspace(name="Twin")])
    # A name twice, no such workspace, a name in another case, an id prefix: the full
    # path (store/refs.py) resolves them or words the error, once for both paths.
    prefix = sqlite_only.workspace_id[:8]
    for ref in ("Twin", "Nowhere", "personal", prefix):
        assert (
            quick_listing("recent", ref, database_url=_store_url(), limit=None, cursor=None) is None
        ), ref
    with pytest.raises(BadRequest, match="cursor is not valid"):
        quick_listing("timeline", None, database_url=_store_url(), limit=5, cursor="bogus")


def test_the_quick_path_steps_aside_when_it_cannot_answer(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not store.url.startswith("sqlite"):  # PostgreSQL: always the full path
        assert (
            quick_listing("recent", None, database_url=_store_url(), limit=None, cursor=None)
            is None
        )
        return
    database = store.home / "socialgen.db"
    with sqlite3.connect(database) as connection:
        connection.execute("UPDATE workspace SET is_default = 0")
    assert (
        quick_listing("recent", None, database_url=_store_url(), limit=None, cursor=None) is None
    )  # defaults to make
    with sqlite3.connect(database) as connection:
        connection.execute("UPDATE alembic_version SET version_num = '0001'")
    assert (
        quick_listing("recent", None, database_url=_store_url(), limit=None, cursor=None) is None
    )  # to migrate
    monkeypatch.setenv("SOCIALGEN_HOME", str(tmp_path / "new"))
    assert (
        quick_listing("recent", None, database_url=_store_url(), limit=None, cursor=None) is None
    )  # no store yet
    assert not (tmp_path / "new" / "socialgen.db").exists()  # and none made


def test_posts_recent_never_imports_heavy_modules_on_a_ready_store(sqlite_only: Store) -> None:
    sqlite_only.post("Shipping weekly")
    code = (
        "import sys\n"
        "from socialgen.cli.main import app\n"
        "for args in (['posts', 'recent', '--json'],\n"
        "             ['posts', 'search', 'weekly', '--since', '2020-01-01', '--json']):\n"
        "    try:\n"
        "        app(args)\n"
        "    except SystemExit:\n"
        "        pass\n"
        # pydantic too: Typer 0.29 builds a pydantic TypeAdapter per option (+45 ms).
        "heavy = ('sqlalchemy', 'sqlmodel', 'fastapi', 'pydantic')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)

    assert done.stdout.count('"postContent": "Shipping weekly"') == 2  # recent, and a search
    assert done.stdout.strip().splitlines()[-1] == "[]"
