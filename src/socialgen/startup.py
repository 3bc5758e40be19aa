"""Open the store: migrate to head and create the first-run defaults, once per process."""

from __future__ import annotations

from sqlalchemy import Engine

from socialgen.config import Settings, get_settings
from socialgen.store.engine import get_engine, read_session, transaction
from socialgen.store.migrate import HEAD_REVISION, current_revision, store_lock, upgrade
from socialgen.workspaces.bootstrap import ensure_defaults
from socialgen.workspaces.service import default_workspace

_ready: set[str] = set()


def open_store(settings: Settings | None = None) -> Engine:
    settings = settings or get_settings()
    engine = get_engine(settings.database_url)
    if settings.database_url in _ready:
        return engine
    if not _is_ready(engine):
        # Double-checked under the lock: concurrent first runs migrate once.
        with store_lock(engine):
            upgrade(engine)
            with transaction(engine) as session:
                ensure_defaults(session)
    _ready.add(settings.database_url)
    return engine


def forget_opened_stores() -> None:
    """For tests that drop and recreate a database within one process."""
    _ready.clear()


def _is_ready(engine: Engine) -> bool:
    if current_revision(engine) != HEAD_REVISION:
        return False
    with read_session(engine) as session:
        return default_workspace(session) is not None
