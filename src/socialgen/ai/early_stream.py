"""A model's answer started early, handed out later: a TextModel that stands for
another, whose first call asking exactly what was started gets the answer already
under way (generation/head_start.py starts `socialgen post`'s request before the
store opens).

A thread runs the early stream on an event loop of its own and keeps each chunk (or
the failure) until the reader, on any loop, asks for it. Every other call goes to the
model itself. Nobody reading: `close()` cancels the early stream, which hangs up.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import AsyncIterator
from contextlib import suppress
from typing import Any

from socialgen.ai.model import Chunk, Message, Output, TextModel

_END = object()  # the early stream ended (its last item)
_JOIN_SECONDS = 1.0  # a cancelled early request is gone by then (a closed socket)


class EarlyStream:
    """A TextModel standing for `model`: the first call that asks exactly what was
    started gets the early answer; every other call goes to `model` itself."""

    def __init__(
        self, model: TextModel, messages: list[Message], *, max_tokens: int, purpose: str
    ) -> None:
        self.model = model  # every call but the early one (adopt() may replace it)
        self._early_model = model
        self.name = model.name
        self.small = model.small
        # structured.model_key: the wrapper shares the model's profile (its ladder rung)
        self.api_base = getattr(model, "api_base", None)
        self._asked: tuple[Any, ...] = (messages, None, max_tokens, None, purpose)
        self._taken = False
        self._lock = threading.Lock()
        self._items: deque[Any] = deque()
        self._waiter: tuple[asyncio.AbstractEventLoop, asyncio.Future[None]] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None
        self._started = threading.Event()
        # A daemon: a command that ends early (process_exit.end_now) does not wait on it.
        self._thread = threading.Thread(target=self._run, name="socialgen-head-start", daemon=True)
        self._thread.start()

    def stream(
        self,
        messages: list[Message],
        *,
        output: Output | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        purpose: str | None = None,
    ) -> AsyncIterator[Chunk]:
        asked = (messages, output, max_tokens, temperature, purpose)
        if not self._taken and asked == self._asked:
            self._taken = True
            return self._early()
        if not self._taken:  # a different first request: the early answer is of no use
            self.close()
        return self.model.stream(
            messages,
            output=output,
            max_tokens=max_tokens,
            temperature=temperature,
            purpose=purpose,
        )

    def adopt(self, model: TextModel, max_tokens: int) -> bool:
        """Whether the early request is the one `model` (built from the settings
        object) would send with `max_tokens`: then every later call goes to `model`.
        Otherwise the early request is cancelled, and the caller uses `model`."""
        early = self._early_model
        if max_tokens == self._asked[2] and _identity(model) == _identity(early):
            self.model = model
            return True
        self.close()
        return False

    def close(self) -> None:
        """Cancel the early request if it still runs, and wait for its thread (briefly:
        cancelling closes the connection at once)."""
        self._taken = True
        self._started.wait()
        loop, task = self._loop, self._task
        if loop is not None and task is not None and not task.done():
            with suppress(RuntimeError):  # the loop closed in between: the task is over
                loop.call_soon_threadsafe(task.cancel)
        self._thread.join(_JOIN_SECONDS)

    # ------------------------------------------------------------ the early thread

    def _run(self) -> None:
        try:
            # Cancelled (CancelledError), or a failure _pump handed to the reader.
            with suppress(BaseException):
                asyncio.run(self._pump())
        finally:
            self._started.set()  # close() never waits on a thread that never started
            self._put(_END)

    async def _pump(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        self._started.set()
        messages, output, max_tokens, temperature, purpose = self._asked
        try:
            async for chunk in self._early_model.stream(
                messages,
                output=output,
                max_tokens=max_tokens,
                temperature=temperature,
                purpose=purpose,
            ):
                self._put(chunk)
        except Exception as error:  # ModelError and the rest: raised where it is read
            self._put(error)

    def _put(self, item: Any) -> None:
        with self._lock:
            self._items.append(item)
            waiter, self._waiter = self._waiter, None
        if waiter is not None:
            loop, future = waiter
            with suppress(RuntimeError):  # the reader's loop is closed: nobody waits
                loop.call_soon_threadsafe(_wake, future)

    # ------------------------------------------------------------ the reader

    async def _early(self) -> AsyncIterator[Chunk]:
        try:
            while True:
                item = await self._next()
                if item is _END:
                    return
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            self.close()  # a reader that stops (cancelled, failed) hangs up at once

    async def _next(self) -> Any:
        while True:
            with self._lock:
                if self._items:
                    return self._items.popleft()
                loop = asyncio.get_running_loop()
                future: asyncio.Future[None] = loop.create_future()
                self._waiter = (loop, future)
            await future


def _identity(model: TextModel) -> tuple[Any, ...]:
    """What decides the request a model sends (its class, endpoint, limits, size)."""
    return (
        type(model),
        model.name,
        getattr(model, "api_base", None),
        getattr(model, "timeout", None),
        model.small,
    )


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
