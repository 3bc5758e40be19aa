"""`socialgen post`: the provider request sent before the store is open.

A command's start-up used to run in a line: settings, model, then the store (SQLModel
and SQLAlchemy imported, tables defined, migrations checked, quota reserved: ~0.6 s
on a small machine), and only then the request to the provider, which then took its
own time to the first token. When the post's prompt needs nothing from the store (no
--conversation, --post or --style, no URL in the topic), the request goes first: a
thread sends it and keeps what the provider streams, while the main thread opens the
store and runs the plan's checks. The provider's time to its first token and the
store's start-up overlap.

Nothing changes for what the user sees or what is stored: the chunks are handed out
only when the post's stream asks the model for exactly this answer, after the plan
reserved the quota. A refused plan (quota, an unknown workspace, a store that cannot
open) cancels the early request: nothing is printed, nothing reserved or saved, and
its answer is dropped. Only the OpenAI-compatible client (openai_compatible.py) is
started early; its imports are done on the main thread first, so the thread imports
nothing while the main thread imports the store's packages. `serve` never does this:
it opened its store once, at start.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from collections.abc import AsyncIterator
from contextlib import suppress
from typing import TYPE_CHECKING, Any

from socialgen.ai.model import Chunk, Message, Output, TextModel

if TYPE_CHECKING:
    from socialgen.runtime import Runtime

_END = object()  # the early stream ended (its last item)
_JOIN_SECONDS = 1.0  # a cancelled early request is gone by then (a closed socket)


def head_start(runtime: Runtime, topic: str) -> HeadStart | None:
    """The post request for `topic` sent now, or None when it cannot be: the model is
    not one the early client serves (decided from the setting, before any model is
    built, so a model that fails to build still fails where it did), the topic is one
    the plan refuses, or it has a URL to read first. The caller knows whether the
    prompt needs the store (a conversation, a post or a style named): then it never
    asks."""
    from socialgen.ai.openai_compatible import OpenAICompatibleModel, prepare_client, serves

    settings = runtime.settings
    if not serves((settings.model or "").strip()):
        return None
    model = runtime.text_model()
    if not isinstance(model, OpenAICompatibleModel):  # a model a test handed in
        return None
    from socialgen.drafting.planning import short_prompts
    from socialgen.drafting.writing import post_messages
    from socialgen.limits import MAX_INPUT_CHARS
    from socialgen.sources.urls import find_urls

    user_input = topic.strip()
    if not user_input or len(user_input) > MAX_INPUT_CHARS or find_urls(user_input, limit=1):
        return None  # the plan's refusal, or sources to read first: the usual way
    messages = post_messages(
        user_input, style=None, sources="", history=[], small=short_prompts(model)
    )
    prepare_client()  # its imports here, not in the thread beside the store's
    return HeadStart(model, messages, max_tokens=settings.max_tokens, purpose="post")


class HeadStart:
    """A TextModel standing for `model`: the first call that asks exactly what was
    started gets the early answer; every other call goes to `model` itself."""

    def __init__(
        self, model: TextModel, messages: list[Message], *, max_tokens: int, purpose: str
    ) -> None:
        self.model = model
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
            async for chunk in self.model.stream(
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


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
