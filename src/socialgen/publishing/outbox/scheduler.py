"""The scheduler inside each `socialgen serve` process.

Two asyncio tasks in the app's lifespan: the outbox loop looks for due publications
every SOCIALGEN_SCHEDULER_POLL (1 s) with one indexed read and, when something is
due, runs a publish pass in a thread (network calls in a pool of worker threads);
the metrics loop reads metrics back every SOCIALGEN_METRICS_INTERVAL. Several serve
processes (and cron's `publish-due`) share the outbox safely: claims are exclusive.

On shutdown no new rows are claimed; passes under way finish their network calls
and record the answers (a claim left behind would only become `unknown` later).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager, suppress
from typing import TYPE_CHECKING, Any

from sqlalchemy import Engine

from socialgen.files.backends import files_of
from socialgen.publishing.outbox.claim import anything_due, worker_name
from socialgen.publishing.outbox.metrics import refresh_metrics
from socialgen.publishing.outbox.runner import THREADS, publish_pass
from socialgen.publishing.registry import Networks
from socialgen.publishing.settings import PublishTerms, poll_interval

if TYPE_CHECKING:
    from socialgen.app.runtime import Runtime

logger = logging.getLogger("socialgen.publishing")

METRICS_LOOK_SECONDS = 60.0  # how often to look for publications whose reading is due


@asynccontextmanager
async def publishing_scheduler(app: Any) -> AsyncIterator[None]:
    """Run the scheduler for the app's store while the app runs (unless the app's
    settings turn it off: the `scheduler` setting, `serve --no-scheduler`)."""
    runtime = app.state.runtime
    settings = runtime.settings
    if not settings.scheduler:
        yield
        return
    engine: Engine = app.state.engine
    stop = threading.Event()
    executor = ThreadPoolExecutor(THREADS, thread_name_prefix="socialgen-publish")
    tasks = [
        asyncio.create_task(_outbox_loop(engine, executor, stop, runtime)),
        asyncio.create_task(_metrics_loop(engine, stop, runtime)),
    ]
    try:
        yield
    finally:
        stop.set()
        for task in tasks:
            task.cancel()
        for task in tasks:
            with suppress(asyncio.CancelledError):
                await task
        # Wait for network calls under way so their answers are recorded.
        await asyncio.to_thread(executor.shutdown, wait=True)


async def _outbox_loop(
    engine: Engine, executor: ThreadPoolExecutor, stop: threading.Event, runtime: Runtime
) -> None:
    worker = worker_name("serve")
    terms = PublishTerms.of(runtime.settings, Networks.of(runtime), files_of(runtime))
    pause = poll_interval(runtime.settings)
    while not stop.is_set():
        try:
            await asyncio.to_thread(_tick, engine, worker, executor, stop, terms)
        except Exception:  # a store hiccup: the next tick tries again
            logger.warning("publishing scheduler tick failed", exc_info=True)
        await asyncio.sleep(pause)


def _tick(
    engine: Engine,
    worker: str,
    executor: ThreadPoolExecutor,
    stop: threading.Event,
    terms: PublishTerms,
) -> None:
    if not anything_due(engine):
        return
    report = publish_pass(engine, worker, executor, stop=stop, terms=terms)
    counts = report.counts()
    if any(counts.values()):
        logger.info("publishing pass: %s", counts)


async def _metrics_loop(engine: Engine, stop: threading.Event, runtime: Runtime) -> None:
    interval = runtime.settings.metrics_interval
    while not stop.is_set():
        try:
            read = await asyncio.to_thread(
                refresh_metrics, engine, interval=interval, networks=Networks.of(runtime)
            )
            if read:
                logger.info("read metrics of %d publication(s)", read)
        except Exception:
            logger.warning("metrics refresh failed", exc_info=True)
        await asyncio.sleep(min(METRICS_LOOK_SECONDS, interval.total_seconds()))
