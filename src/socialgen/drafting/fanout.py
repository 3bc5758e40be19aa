"""Run several generation jobs at once and stream the events they emit.

Shared by the batch and the calendar: each job gets an `emit` to send its events;
at most `limit` jobs run at a time; events reach the consumer as they happen. A
consumer that stops early (error, Ctrl-C, a client gone) cancels the jobs still
running, so a cancelled stream stops asking the model for more.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence

from socialgen.events import Event

Emit = Callable[[Event], Awaitable[None]]
Job = Callable[[Emit], Awaitable[None]]


async def fan_out(jobs: Sequence[Job], limit: int) -> AsyncIterator[Event]:
    queue: asyncio.Queue[Event | None] = asyncio.Queue()
    slots = asyncio.Semaphore(limit)

    async def run(job: Job) -> None:
        async with slots:
            await job(queue.put)

    async def run_all() -> None:
        try:
            await asyncio.gather(*(run(job) for job in jobs))
        finally:
            queue.put_nowait(None)  # the queue is unbounded: never waits, even when cancelled

    runner = asyncio.create_task(run_all())
    try:
        while (item := await queue.get()) is not None:
            yield item
        await runner  # a job's unexpected error surfaces here
    finally:
        runner.cancel()  # cancels the jobs still running with it
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await runner
