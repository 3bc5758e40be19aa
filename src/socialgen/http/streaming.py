"""Events to Server-Sent Events, with keep-alive and clean cancellation.

The generator runs in its own task and feeds a queue; the response waits on
the queue and sends `keepalive {ping: true}` whenever nothing else was sent for
a while, so proxies keep the connection. When the client goes away Starlette
cancels the response, which cancels the generator (refunding its quota).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable

from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from socialgen.events import Event, EventContractError
from socialgen.events.common import Keepalive, StreamError
from socialgen.kit.errors import SocialgenError

logger = logging.getLogger("socialgen.stream")

DEFAULT_KEEPALIVE_SECONDS = 15.0
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no", "Connection": "keep-alive"}


async def guarded(events: AsyncIterator[Event]) -> AsyncIterator[Event]:
    """The events, with any failure turned into the stream's error event (no traceback)."""
    try:
        async for item in events:
            yield item
    except SocialgenError as error:
        yield Event.of(StreamError(message=error.message))
    except EventContractError:
        raise  # a service broke the event contract: a bug the tests must see, not a message
    except Exception:
        logger.exception("stream failed")
        yield Event.of(StreamError(message="Generation failed unexpectedly; see the server log"))


async def with_keepalive(events: AsyncIterator[Event], interval: float) -> AsyncIterator[Event]:
    queue: asyncio.Queue[Event | None] = asyncio.Queue(maxsize=256)

    async def pump() -> None:
        try:
            async for item in events:
                await queue.put(item)
        finally:
            await queue.put(None)

    producer = asyncio.create_task(pump())
    try:
        while True:
            try:
                item = await asyncio.wait_for(queue.get(), interval)
            except TimeoutError:
                yield Event.of(Keepalive(ping=True))
                continue
            if item is None:
                break
            yield item
        await producer
    finally:
        producer.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await producer


async def _encode(
    events: AsyncIterator[Event], typed: bool, keepalive: float
) -> AsyncIterator[str]:
    async for item in with_keepalive(guarded(events), keepalive):
        yield item.typed_sse() if typed else item.sse()


class SseResponse(StreamingResponse):
    """A stream with a last step that runs however the response ended: finished,
    failed, or its client gone before the stream's own code ever ran (then nothing
    inside the stream can clean up after it)."""

    def __init__(
        self, content: AsyncIterator[str], *, on_close: Callable[[], Awaitable[None]] | None
    ) -> None:
        super().__init__(content, media_type="text/event-stream", headers=SSE_HEADERS)
        self.on_close = on_close

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            if self.on_close is not None:
                # Shielded: a cancelled request still finishes its last step.
                await asyncio.shield(asyncio.ensure_future(self.on_close()))


def sse_response(
    events: AsyncIterator[Event],
    *,
    keepalive: float,
    typed: bool = False,
    on_close: Callable[[], Awaitable[None]] | None = None,
) -> StreamingResponse:
    """The events as SSE, a keep-alive every `keepalive` seconds of silence (the
    keepalive_seconds setting); `typed` sends each data as {type, data} (carousel
    stream); `on_close` runs once the response is over, however it ended."""
    return SseResponse(_encode(events, typed, keepalive), on_close=on_close)
