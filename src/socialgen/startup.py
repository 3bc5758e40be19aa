"""Open the store: migrate to head and create the first-run defaults, once per process;
give back the quota of processes that died holding it (at open, and in `serve` on a
timer: quota_upkeep)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any

from sqlalchemy import Engine

from socialgen.config import Settings, get_settings
from socialgen.store.engine import get_engine, read_session, transaction
from socialgen.store.leases import lease_seconds
from socialgen.store.migrate import HEAD_REVISION, current_revision, store_lock, upgrade
from socialgen.workspaces.bootstrap import ensure_defaults
from socialgen.workspaces.quota_reconcile import reconcile_abandoned
from socialgen.workspaces.service import default_workspace

logger = logging.getLogger("socialgen.startup")

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
    # A CLI command or server killed earlier may have left reserved posts behind.
    _reconcile_quietly(engine)
    _ready.add(settings.database_url)
    return engine


@asynccontextmanager
async def quota_upkeep(app: Any) -> AsyncIterator[None]:
    """The server's lifespan: give back abandoned quota now and every half lease (the
    same store may be shared with processes that die while this one runs)."""
    task = asyncio.create_task(_reconcile_every(app.state.engine))
    try:
        yield
    finally:
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task


async def _reconcile_every(engine: Engine) -> None:
    while True:
        await asyncio.to_thread(_reconcile_quietly, engine)
        await asyncio.sleep(lease_seconds() / 2)


def _reconcile_quietly(engine: Engine) -> None:
    try:
        if refunded := reconcile_abandoned(engine):
            logger.info("gave back %d post(s) reserved by processes that are gone", refunded)
    except Exception:  # a store hiccup: the next round (or start) tries again
        logger.warning("could not reconcile abandoned quota reservations", exc_info=True)


def forget_opened_stores() -> None:
    """For tests that drop and recreate a database within one process."""
    _ready.clear()


def _is_ready(engine: Engine) -> bool:
    if current_revision(engine) != HEAD_REVISION:
        return False
    with read_session(engine) as session:
        return default_workspace(session) is not None
