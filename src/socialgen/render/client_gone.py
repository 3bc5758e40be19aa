"""Stop waiting for a render when the client that asked for it has gone.

Neither uvicorn nor Starlette cancels a plain (non-streaming) endpoint when its
client disconnects: the handler runs on, and a render nobody will read keeps a
worker and a core busy until its time limit. So the endpoint races its render
against the ASGI `receive` channel: once the request body has been read, the next
message `receive` gives is `http.disconnect`, sent when the connection closes (or,
harmlessly, after the response has been sent). Cancelling the render kills its
worker or takes it out of the queue (`render.pool`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Coroutine, MutableMapping
from typing import Any, TypeVar

from socialgen.kit.errors import SocialgenError

logger = logging.getLogger("socialgen.render")

T = TypeVar("T")
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]


class ClientLeft(SocialgenError):
    """The client closed the connection; the answer goes nowhere (499, as nginx logs it)."""

    status_code = 499

    def __init__(self) -> None:
        super().__init__("The client closed the connection before the PDF was ready")


async def unless_client_leaves(work: Coroutine[Any, Any, T], receive: Receive) -> T:
    """`await work`, cancelled as soon as the client disconnects (then ClientLeft).
    Call it after the whole request body has been read."""
    task = asyncio.ensure_future(work)
    watcher = asyncio.ensure_future(_disconnect(receive))
    try:
        await asyncio.wait((task, watcher), return_when=asyncio.FIRST_COMPLETED)
    finally:  # also when this handler itself is cancelled
        watcher.cancel()
        if not task.done():
            task.cancel()
            # Let the render see its cancellation (and kill its worker) before we go on.
            with contextlib.suppress(BaseException):
                await task
    if task.cancelled():
        logger.info("client left; its PDF render was cancelled")
        raise ClientLeft()
    return task.result()


async def _disconnect(receive: Receive) -> None:
    while True:
        message = await receive()
        if message.get("type") == "http.disconnect":
            return
        # Not expected once the body is read; never spin on it.
        await asyncio.sleep(0.05)
