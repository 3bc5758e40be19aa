"""Schema migrations with Alembic, applied on start.

Start-up stays fast: the current revision is read with one query and Alembic
(a heavy import) only runs when the schema is behind. Concurrent first runs are
serialised by a file lock (SQLite) or an advisory lock (PostgreSQL).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Engine, text
from sqlalchemy.exc import DBAPIError

from socialgen.kit.local_files import open_private
from socialgen.store.revision import HEAD_REVISION as HEAD_REVISION

_PG_LOCK_KEY = 0x50C1A1  # arbitrary, constant: "socialgen migrations"
MIGRATIONS_DIR = Path(__file__).with_name("migrations")


def current_revision(engine: Engine) -> str | None:
    try:
        with engine.connect() as connection:
            return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()
    except DBAPIError:
        return None


def upgrade(engine: Engine) -> None:
    """Bring the schema to head (no-op when already there). Call under store_lock()."""
    if current_revision(engine) == HEAD_REVISION:
        return
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


@contextmanager
def store_lock(engine: Engine) -> Iterator[None]:
    """Serialise schema changes and first-run set-up across processes."""
    if engine.dialect.name == "sqlite":
        database = engine.url.database or ""
        if not database or database == ":memory:":
            yield
            return
        try:
            import fcntl  # POSIX; elsewhere concurrent first runs are not serialised
        except ImportError:
            yield
            return
        lock_path = Path(database).expanduser().with_suffix(".lock")
        # 0600 like the store beside it, whatever the umask.
        descriptor = open_private(lock_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        with os.fdopen(descriptor, "a") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
        return
    with engine.connect() as connection:
        connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": _PG_LOCK_KEY})
        connection.commit()
        try:
            yield
        finally:
            connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": _PG_LOCK_KEY})
            connection.commit()
