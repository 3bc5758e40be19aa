"""The store: migrations, first run, SQLite settings, and concurrent processes."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, func, text
from sqlmodel import SQLModel, select

import socialgen.store.tables  # noqa: F401
from socialgen.app.runtime import Runtime
from socialgen.store.engine import read_session, transaction
from socialgen.store.migrate import HEAD_REVISION, MIGRATIONS_DIR
from socialgen.store.search import is_search_object
from socialgen.store.tables import Post, PostVersion, User, Workspace
from tests.conftest import BACKEND, Store

sqlite_only = pytest.mark.skipif(BACKEND != "sqlite", reason="SQLite file behaviour")


def test_head_revision_constant_matches_the_migration_scripts() -> None:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    assert ScriptDirectory.from_config(config).get_current_head() == HEAD_REVISION


def test_migrations_produce_exactly_the_models(store: Store) -> None:
    with store.engine.connect() as connection:
        # The full-text search (migration 0009) is not a model: store/search.py.
        opts = {"compare_type": True, "include_name": lambda name, *_: not is_search_object(name)}
        context = MigrationContext.configure(connection, opts=opts)
        differences = compare_metadata(context, SQLModel.metadata)
    assert differences == []


@sqlite_only
def test_first_run_creates_the_store_under_socialgen_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "fresh-home"
    monkeypatch.setenv("SOCIALGEN_HOME", str(home))
    monkeypatch.delenv("SOCIALGEN_DATABASE_URL", raising=False)
    runtime = Runtime()
    engine = runtime.open_store()
    assert (home / "socialgen.db").exists()
    again = Runtime()  # a fresh Runtime checks the store again
    again.open_store()  # a second start changes nothing
    again.close()
    with read_session(engine) as session:
        workspaces = session.exec(select(Workspace)).all()
        assert [(w.name, w.is_default) for w in workspaces] == [("Personal", True)]
        assert session.exec(select(func.count()).select_from(User)).one() == 1
    with engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() >= 5000
    runtime.close()


def test_deleting_a_post_cascades_to_its_versions_in_the_database(store: Store) -> None:
    post = store.post("cascade me")
    with transaction(store.engine) as session:
        session.execute(text("DELETE FROM post WHERE id = :id"), {"id": post.id})
    assert store.scalar(select(func.count()).select_from(PostVersion)) == 0


def test_timestamps_come_back_as_utc(store: Store) -> None:
    post = store.post("timestamps")
    with read_session(store.engine) as session:
        loaded = session.get(Post, post.id)
        assert loaded is not None
        assert loaded.created_at.utcoffset() is not None
        assert loaded.created_at.utcoffset().total_seconds() == 0  # type: ignore[union-attr]


_FIRST_RUN = textwrap.dedent(
    """
    from socialgen.app.runtime import Runtime
    Runtime().open_store()
    """
)


@sqlite_only
def test_concurrent_first_runs_create_one_default_workspace(tmp_path: Path) -> None:
    env = {**os.environ, "SOCIALGEN_HOME": str(tmp_path / "race")}
    env.pop("SOCIALGEN_DATABASE_URL", None)
    processes = [
        subprocess.Popen([sys.executable, "-c", _FIRST_RUN], env=env, stderr=subprocess.PIPE)
        for _ in range(4)
    ]
    errors = [p.communicate(timeout=60)[1].decode() for p in processes]
    assert [p.returncode for p in processes] == [0, 0, 0, 0], errors
    engine = create_engine(f"sqlite:///{tmp_path / 'race' / 'socialgen.db'}")
    with engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT count(*) FROM workspace").scalar() == 1
        assert connection.exec_driver_sql("SELECT count(*) FROM user_account").scalar() == 1
    engine.dispose()


_WRITER = textwrap.dedent(
    """
    import sys
    from socialgen.posts.service import update_content
    from socialgen.app.runtime import Runtime
    from socialgen.store.engine import transaction

    workspace_id, post_id, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    engine = Runtime().open_store()
    for n in range(rounds):
        with transaction(engine) as session:
            update_content(session, workspace_id, post_id, f"edit {n} by {post_id}")
    """
)


@sqlite_only
def test_two_processes_writing_one_sqlite_file_never_see_database_is_locked(
    store: Store,
) -> None:
    posts = [store.post("writer one"), store.post("writer two")]
    rounds = 150
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", _WRITER, store.workspace_id, post.id, str(rounds)],
            env=dict(os.environ),
            stderr=subprocess.PIPE,
        )
        for post in posts
    ]
    errors = [p.communicate(timeout=120)[1].decode() for p in processes]
    assert [p.returncode for p in processes] == [0, 0], errors
    assert not any("locked" in e for e in errors)
    versions = store.scalar(select(func.count()).select_from(PostVersion))
    assert versions == 2 * (rounds + 1)


@sqlite_only
def test_a_store_from_an_older_version_is_upgraded_on_start_and_keeps_its_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from alembic import command

    home = tmp_path / "old-home"
    home.mkdir()
    old = create_engine(f"sqlite:///{home / 'socialgen.db'}")
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    with old.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0001")
        connection.execute(
            text(
                "INSERT INTO workspace (id, name, is_default, created_at) "
                "VALUES ('w1', 'Old', 1, '2026-01-01 00:00:00.000000')"
            )
        )
    old.dispose()

    monkeypatch.setenv("SOCIALGEN_HOME", str(home))
    monkeypatch.delenv("SOCIALGEN_DATABASE_URL", raising=False)
    runtime = Runtime()
    engine = runtime.open_store()
    with engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalar() == (
            HEAD_REVISION
        )
        assert connection.exec_driver_sql("SELECT name FROM workspace").scalars().all() == ["Old"]
        assert connection.exec_driver_sql("SELECT count(*) FROM content_style").scalar() == 0
    runtime.close()
