"""Engines and sessions.

SQLite is tuned for a local tool that several processes may share: WAL (readers
never block the writer), a generous busy timeout, foreign keys on. Write
transactions start with BEGIN IMMEDIATE so two processes queue on the write
lock instead of failing with "database is locked" when a read upgrades to a write.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlmodel import Session

from socialgen.kit.local_files import make_private_folders, open_private

SQLITE_BUSY_TIMEOUT_MS = 30_000
_WRITE_OPTION = "socialgen_write"


def new_engine(database_url: str, **options: Any) -> Engine:
    """An engine (and its pool) for `database_url`; `options`: execution options every
    connection carries (the Runtime's lease: store/leases.py). Engines are made and
    kept by a Runtime's `Stores` (store/stores.py), one per database URL."""
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite":
        return create_engine(
            url, pool_pre_ping=True, pool_size=10, max_overflow=20, execution_options=options
        )

    if url.database and url.database != ":memory:":
        _create_private(Path(url.database).expanduser())
    engine = create_engine(
        url,
        connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_MS / 1000},
        execution_options=options,
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy's "begin" hook issue BEGIN itself (pysqlite's own is lazy).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        writes = connection.get_execution_options().get(_WRITE_OPTION, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if writes else "BEGIN")

    return engine


def _create_private(database: Path) -> None:
    """The store file made 0600 before SQLite opens it: SQLite would make it 0644 (less
    the umask), and gives its -wal and -shm files the store file's mode. An empty file
    is an empty database to SQLite."""
    if database.exists():
        return
    make_private_folders(database.parent)
    os.close(open_private(database, os.O_WRONLY | os.O_CREAT))


def read_session(engine: Engine) -> Session:
    return Session(engine, expire_on_commit=False)


def write_session(engine: Engine) -> Session:
    return Session(engine.execution_options(**{_WRITE_OPTION: True}), expire_on_commit=False)


@contextmanager
def transaction(engine: Engine) -> Iterator[Session]:
    """A unit of work: commits when the block succeeds, rolls back otherwise.

    Services never commit; callers (CLI commands, API endpoints) wrap them in this.
    """
    with write_session(engine) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise
