"""Blocking work in worker threads that cleanup can wait for.

A thread cannot be stopped. When the caller of `asyncio.to_thread` is cancelled
(a client gone, Ctrl-C) it stops waiting, but the thread goes on and writes its
file after the caller's cleanup ran, leaving it behind. So an operation runs its
blocking calls through a `ThreadWork`, and its cleanup first waits, with
`ended()`, for every thread it started (and lets no new one start).

The cleanup itself runs through `finish`: in a task of its own, so that a caller
cancelled again and again while it waits (Starlette cancels a gone client's
response at every turn of the loop until it ends) can leave at once, without
spinning the event loop, while the cleanup carries on to its end. The loop keeps only
weak references to tasks: the task is kept in a set its caller hands in, one that
outlives the request (the Runtime's `held.cleanups`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")


class ThreadWork:
    """The worker threads one operation started."""

    def __init__(self) -> None:
        self._running: set[asyncio.Future[Any]] = set()
        self._closed = False

    async def run(self, func: Callable[P, T], /, *args: P.args, **kwargs: P.kwargs) -> T:
        """`func(*args, **kwargs)` in a worker thread. Anything the caller must know
        even if it is cancelled meanwhile (a file written, a row committed), `func`
        records itself: a cancelled caller never sees the result."""
        if self._closed:  # the operation is over: a job still running is an orphan
            raise asyncio.CancelledError
        work = asyncio.ensure_future(asyncio.to_thread(func, *args, **kwargs))
        self._running.add(work)
        work.add_done_callback(self._running.discard)
        # Shielded: cancelling the caller must not mark `work` done while its thread
        # still runs, or `ended` would not wait for it.
        return await asyncio.shield(work)

    async def ended(self) -> None:
        """Let no new work start, then wait until every thread started has finished."""
        self._closed = True
        while self._running:
            await asyncio.wait(set(self._running))


async def finish(cleanup: Coroutine[Any, Any, None], keep: set[asyncio.Task[None]]) -> None:
    """Run `cleanup` to its end, even if the caller is cancelled while it waits; `keep`
    holds the task until then."""
    task = asyncio.ensure_future(cleanup)
    keep.add(task)
    task.add_done_callback(keep.discard)
    await asyncio.shield(task)
