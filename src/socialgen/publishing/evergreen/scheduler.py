"""The preparer inside each `socialgen serve`: an asyncio task of the app's lifespan
that looks every LOOK_SECONDS for evergreen runs due within a day, with one indexed
read, and writes them (prepare.py). Off with the outbox's scheduler (the `scheduler`
setting, `serve --no-scheduler`): then `publish-due` prepares them.

A minute between looks is plenty: runs are written up to a day ahead, and an idle
look costs one read a minute beside the outbox's one a second. The text model is
built only when something is due (an idle server never loads it).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine

from socialgen.publishing.evergreen.prepare import anything_to_prepare, prepare_due
from socialgen.publishing.outbox.claim import worker_name

if TYPE_CHECKING:
    from socialgen.app.runtime import Runtime

logger = logging.getLogger("socialgen.publishing")

LOOK_SECONDS = 60.0


@asynccontextmanager
async def evergreen_preparer(app: Any) -> AsyncIterator[None]:
    runtime = app.state.runtime
    if not runtime.settings.scheduler:
        yield
        return
    task = asyncio.create_task(_loop(app.state.engine, runtime))
    try:
        yield
    finally:
        # A model answer cut here is not recorded: its claim ends and the run is
        # written at the next look (of this server or another).
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task


async def _loop(engine: Engine, runtime: Runtime) -> None:
    worker = worker_name("serve-evergreen")
    while True:
        try:
            if await asyncio.to_thread(anything_to_prepare, engine):
                done = await prepare_due(
                    engine,
                    runtime.text_model,
                    worker=worker,
                    max_tokens=runtime.settings.max_tokens,
                )
                if done.runs:
                    logger.info(
                        "evergreen: %d written, %d refused, %d missed",
                        done.written,
                        done.refused,
                        done.missed,
                    )
        except Exception:  # a store or model hiccup: the next look tries again
            logger.warning("evergreen preparation failed", exc_info=True)
        await asyncio.sleep(LOOK_SECONDS)
