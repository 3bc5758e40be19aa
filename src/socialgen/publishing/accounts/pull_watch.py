"""A history pull over HTTP: one per account at a time, and none after its client left.

A pull can take minutes (networks/pull.py bounds it by the history_deadline setting). Neither
uvicorn nor Starlette cancels a plain endpoint when its client disconnects, and a
worker thread cannot be cancelled at all: so the endpoint watches the ASGI `receive`
channel and, on `http.disconnect`, sets the pull's `left` event. The pull stops at
the next page or the next chunk of an answer, and what it read is stored as usual.

Two pulls of one account at once would read the network twice for nothing (the store
would still keep each post once: accounts/history.py holds the account row): the
second one is refused with a 409 while the first runs in this process.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from typing import Any, TypeVar

from socialgen.kit.errors import SocialgenError

T = TypeVar("T")
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]

PULL_RUNNING = "A history pull of this account is already running; try again when it ends"


class PullsRunning:
    """The accounts whose history is being pulled in this process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._accounts: set[str] = set()

    @contextlib.contextmanager
    def only_one(self, account_id: str) -> Iterator[None]:
        with self._lock:
            if account_id in self._accounts:
                raise SocialgenError(PULL_RUNNING, status_code=409)
            self._accounts.add(account_id)
        try:
            yield
        finally:
            with self._lock:
                self._accounts.discard(account_id)


async def until_client_leaves(work: Awaitable[T], receive: Receive, left: threading.Event) -> T:
    """`await work` (a pull in a worker thread); when the client disconnects first,
    set `left` so the pull stops early, and still wait for it to store what it read.
    Call it once the request body has been read."""
    task = asyncio.ensure_future(work)
    watcher = asyncio.ensure_future(_disconnect(receive))
    try:
        await asyncio.wait((task, watcher), return_when=asyncio.FIRST_COMPLETED)
        if not task.done():
            left.set()
        return await task
    finally:
        watcher.cancel()
        if not task.done():  # this handler itself was cancelled (the server stopping)
            left.set()


async def _disconnect(receive: Receive) -> None:
    while True:
        message = await receive()
        if message.get("type") == "http.disconnect":
            return
        await asyncio.sleep(0.05)  # not expected once the body is read; never spin
