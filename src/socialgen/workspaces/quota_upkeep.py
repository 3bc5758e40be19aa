"""While `serve` runs: give back abandoned quota now and every half lease (the same
store may be shared with processes that die while this one runs). A lifespan the
admin feature declares (admin/feature.py), entered before the other features'.
Reconciling itself is quota_reconcile.py's."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import Any

from sqlalchemy import Engine

from socialgen.workspaces.quota_reconcile import reconcile_abandoned

logger = logging.getLogger("socialgen.workspaces.quota_upkeep")


@asynccontextmanager
async def quota_upkeep(app: Any) -> AsyncIterator[None]:
    """The server's lifespan: give back abandoned quota now and every half lease (the
    same store may be shared with processes that die while this one runs)."""
    seconds = app.state.runtime.stores.lease.seconds
    task = asyncio.create_task(_reconcile_every(app.state.engine, seconds))
    try:
        yield
    finally:
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task


async def _reconcile_every(engine: Engine, lease_seconds: float) -> None:
    while True:
        await asyncio.to_thread(reconcile_quietly, engine, lease_seconds)
        await asyncio.sleep(lease_seconds / 2)


def reconcile_quietly(engine: Engine, lease_seconds: float) -> None:
    try:
        if refunded := reconcile_abandoned(engine, lease_seconds):
            logger.info("gave back %d post(s) reserved by processes that are gone", refunded)
    except Exception:  # a store hiccup: the next round (or start) tries again
        logger.warning("could not reconcile abandoned quota reservations", exc_info=True)
