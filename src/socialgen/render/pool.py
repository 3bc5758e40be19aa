"""Who renders generate-pdf's untrusted HTML, and when: a bounded, fair queue in
front of the worker processes (`render.isolated`).

- At most WORKERS renders run at once; at most QUEUE more wait. Past that the
  caller gets 503 with Retry-After at once: waiting longer than a render's time
  limit helps nobody, and an unbounded queue is how abandoned heavy renders used
  to delay a one-line render by a minute.
- One caller (a user, or a workspace-bound key acting alone) runs on at most
  WORKERS-1 workers, so someone else's render always finds a worker, and holds at
  most PER_CALLER renders running or waiting, so it cannot fill the queue either.
  A worker that frees goes to the first waiting render whose caller is under its
  share.
- A render whose request is cancelled (the client left) leaves the queue, or has
  its worker killed (`WorkerSlot.render`): the slot frees at once.

The state is guarded by a thread lock, not asyncio primitives: one pool (its
Runtime's, `Runtime.render_pool`) serves every event loop of the apps built on that
Runtime, each waiter is woken on its own loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import threading
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from socialgen.kit.errors import SocialgenError
from socialgen.render.isolated import WorkerSlot

if TYPE_CHECKING:
    from socialgen.config.loading import AppSettings

logger = logging.getLogger("socialgen.render")

DEFAULT_WORKERS = 2
DEFAULT_QUEUE = 8
FIRST_GUESS_SECONDS = 2.0  # a render's duration before any has been measured
MAX_RETRY_AFTER = 120


class RendererBusy(SocialgenError):
    """503: no room now. `retry_after` (whole seconds) goes into the Retry-After header."""

    status_code = 503

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(frozen=True)
class PoolSettings:
    workers: int
    queue: int
    per_caller: int

    @property
    def running_per_caller(self) -> int:
        """Workers one caller may use at once: all but one (one when there is one)."""
        return max(1, min(self.per_caller, self.workers - 1))

    @classmethod
    def of(cls, settings: AppSettings) -> PoolSettings:
        """From a Runtime's settings (pdf_workers, pdf_queue, pdf_per_caller)."""
        workers = settings.pdf_workers
        per_caller = settings.pdf_per_caller or workers
        return cls(workers=workers, queue=settings.pdf_queue, per_caller=per_caller)


@dataclass(eq=False)
class _Ticket:
    """A render waiting for a slot, woken on its own event loop."""

    caller: str
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[WorkerSlot]
    slot: WorkerSlot | None = None  # set (under the lock) when a slot is handed over


@dataclass(frozen=True)
class PoolState:
    running: int
    waiting: int
    busy_pids: tuple[int, ...]  # worker processes rendering now
    held: dict[str, int] = field(default_factory=dict)  # per caller: running + waiting


class RenderPool:
    def __init__(self, settings: PoolSettings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._slots = [WorkerSlot() for _ in range(settings.workers)]
        self._free = list(self._slots)  # LIFO: the warmest worker first
        self._busy: set[WorkerSlot] = set()
        self._waiting: deque[_Ticket] = deque()
        self._running: Counter[str] = Counter()
        self._held: Counter[str] = Counter()
        self._seconds = FIRST_GUESS_SECONDS  # moving average of a render's duration
        self._closed = False

    async def render(
        self, caller: str, pages: list[str], width: int, height: int, *, timeout: float
    ) -> bytes:
        """The PDF, rendered in a worker once `caller` gets its turn, within `timeout`
        seconds (the pdf_timeout setting). Raises RendererBusy (503) at once when there
        is no room for it."""
        slot = await self._acquire(caller)
        started = time.monotonic()
        try:
            return await slot.render(pages, width, height, timeout)
        finally:
            self._release(caller, slot, time.monotonic() - started)

    def state(self) -> PoolState:
        with self._lock:
            pids = tuple(pid for slot in self._busy if (pid := slot.pid) is not None)
            return PoolState(
                running=len(self._busy),
                waiting=len(self._waiting),
                busy_pids=pids,
                held=dict(self._held),
            )

    def close(self) -> None:
        """Kill every worker (renders in progress fail with 422); used by tests."""
        with self._lock:
            self._closed = True
            for slot in self._slots:
                slot.close()
            for ticket in self._waiting:  # each leaves the queue in its own except block
                with contextlib.suppress(RuntimeError):  # its loop has closed
                    ticket.loop.call_soon_threadsafe(_turn_away, ticket.future)

    async def _acquire(self, caller: str) -> WorkerSlot:
        loop = asyncio.get_running_loop()
        with self._lock:
            if self._closed:
                raise RendererBusy("The PDF renderer is shutting down; try again", 5)
            can_run = bool(self._free) and self._running[caller] < self.settings.running_per_caller
            self._check_room(caller, can_run)
            self._held[caller] += 1
            if can_run:
                return self._take(caller)
            ticket = _Ticket(caller, loop, loop.create_future())
            self._waiting.append(ticket)
        try:
            return await ticket.future
        except BaseException:  # cancelled while waiting, or just as its turn came
            with self._lock:
                granted = ticket.slot
                if granted is None:
                    self._waiting.remove(ticket)
                    self._forget(caller, running=False)
            if granted is not None:
                self._release(caller, granted, None)
            raise

    def _check_room(self, caller: str, can_run: bool) -> None:
        held = self._held[caller]
        if held >= self.settings.per_caller:
            wait = self._retry_after(held / self.settings.running_per_caller)
            raise RendererBusy(
                f"You already have {_renders(held)} running or waiting, the most one caller "
                f"may have at once; try again in {wait} s",
                wait,
            )
        if not can_run and len(self._waiting) >= self.settings.queue:
            wait = self._retry_after(len(self._waiting) / self.settings.workers + 1)
            raise RendererBusy(
                f"The PDF renderer is busy: {_renders(len(self._busy))} running and "
                f"{len(self._waiting)} waiting; try again in {wait} s",
                wait,
            )

    def _retry_after(self, renders_ahead: float) -> int:
        return max(1, min(MAX_RETRY_AFTER, math.ceil(self._seconds * renders_ahead)))

    def _take(self, caller: str) -> WorkerSlot:
        slot = self._free.pop()
        self._busy.add(slot)
        self._running[caller] += 1
        return slot

    def _forget(self, caller: str, *, running: bool) -> None:
        if running:
            self._running[caller] -= 1
            if self._running[caller] <= 0:
                del self._running[caller]
        self._held[caller] -= 1
        if self._held[caller] <= 0:
            del self._held[caller]

    def _release(self, caller: str, slot: WorkerSlot, seconds: float | None) -> None:
        with self._lock:
            self._busy.discard(slot)
            self._free.append(slot)
            self._forget(caller, running=True)
            if seconds is not None:
                self._seconds = 0.8 * self._seconds + 0.2 * seconds
            self._dispatch()

    def _dispatch(self) -> None:
        """Hand free slots to the first waiting renders whose callers are under their share."""
        cap = self.settings.running_per_caller
        while not self._closed and self._free and self._waiting:
            # A cancelled waiter (its client left) leaves the queue in its own except
            # block; handing it a slot would only bounce it back.
            ticket = next(
                (t for t in self._waiting if not t.future.done() and self._running[t.caller] < cap),
                None,
            )
            if ticket is None:
                return
            self._waiting.remove(ticket)
            ticket.slot = self._take(ticket.caller)
            try:
                ticket.loop.call_soon_threadsafe(_hand_over, ticket.future, ticket.slot)
            except RuntimeError:  # its event loop has closed: nobody is waiting
                self._busy.discard(ticket.slot)
                self._free.append(ticket.slot)
                self._forget(ticket.caller, running=True)


def _renders(count: int) -> str:
    return f"{count} PDF render{'' if count == 1 else 's'}"


def _hand_over(future: asyncio.Future[WorkerSlot], slot: WorkerSlot) -> None:
    if not future.done():
        future.set_result(slot)
    # else: the waiter was cancelled; its handler sees ticket.slot and gives it back


def _turn_away(future: asyncio.Future[WorkerSlot]) -> None:
    if not future.done():
        future.set_exception(RendererBusy("The PDF renderer is shutting down; try again", 5))
