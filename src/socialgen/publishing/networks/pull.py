"""The bounds of a pull from a network: a history read page by page must end, whatever
the server answers.

A server can page forever (a new cursor each time), hand back the same page again
(a cursor that never moves), answer 300 MB, or trickle one byte a second. A `Pull`
is one read's budget and the history readers ask it before each page
(`next_page(cursor)`): it says no past its deadline, past its page cap, when the
cursor comes back to one already read, or once its caller has gone (the HTTP client
left). While a pull is active in a thread (`with pull:`), the guarded clients
(guarded_http.py) also check its deadline and its caller between the chunks of each
answer, so a slow answer cannot outlast it; every answer, pulled or not, is capped at
`ANSWER_BYTES` as it streams in.

A pull that stops early keeps what it read: `stopped` says why, in words, and the
history service stores the posts read so far.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from socialgen.publishing.networks.base import NetworkSettings, PublishError

ANSWER_BYTES = 16 * 1024 * 1024  # one answer from a network (a page is under 1 MB)


class PullStopped(PublishError):
    """The pull's deadline passed or its caller left while an answer came in."""


class AnswerTooLarge(PublishError):
    """A network's answer went past ANSWER_BYTES: refused, never retried."""


@dataclass(frozen=True)
class PullLimits:
    """The history_deadline and history_pages settings (NetworkSettings). 500 pages:
    20,000 Mastodon statuses, 50,000 Bluesky or LinkedIn posts."""

    seconds: float = 300.0  # a whole history read, every page and every answer in it
    pages: int = 500

    @classmethod
    def of(cls, settings: NetworkSettings) -> PullLimits:
        return cls(seconds=settings.history_seconds, pages=settings.history_pages)


_ACTIVE: ContextVar[Pull | None] = ContextVar("socialgen_pull", default=None)


class Pull:
    """One pull's budget (see the module's note). `left`: set when the caller is gone."""

    def __init__(
        self, limits: PullLimits | None = None, *, left: threading.Event | None = None
    ) -> None:
        self.limits = limits or PullLimits()
        self.deadline = time.monotonic() + self.limits.seconds
        self.left = left or threading.Event()
        self.pages = 0
        self.stopped: str | None = None
        self._cursors: set[Hashable] = set()

    def next_page(self, cursor: Hashable) -> bool:
        """Whether to ask for the page at `cursor` (None: the first page); when not,
        `stopped` says why."""
        if self.stopped is not None:
            return False
        why = self._over()
        if why is None and self.pages >= self.limits.pages:
            why = f"stopped after {self.pages} pages, the most one pull reads"
        if why is None and cursor in self._cursors:
            why = f"the server sent page {self.pages} again (its cursor did not move)"
        if why is not None:
            self.stop(why)
            return False
        self._cursors.add(cursor)
        self.pages += 1
        return True

    def stop(self, why: str) -> None:
        if self.stopped is None:
            self.stopped = why

    def check(self) -> None:
        """Between the chunks of an answer: raise PullStopped past the deadline or once
        the caller has left."""
        why = self._over()
        if why is not None:
            raise PullStopped(why)

    def _over(self) -> str | None:
        if self.left.is_set():
            return "the request that started it ended (the client left)"
        if time.monotonic() > self.deadline:
            return f"stopped after {self.limits.seconds:g} s, the longest one pull runs"
        return None

    @contextmanager
    def active(self) -> Iterator[Pull]:
        """This pull, for the guarded clients of this thread (active_pull)."""
        token = _ACTIVE.set(self)
        try:
            yield self
        finally:
            _ACTIVE.reset(token)


def active_pull() -> Pull | None:
    """The pull running in this thread, if any."""
    return _ACTIVE.get()


def check_answer_size(network: str, received: int, declared: int | None = None) -> None:
    """Refuse an answer past ANSWER_BYTES: by its Content-Length before reading, or by
    what has come in so far; then the active pull's own check."""
    size = max(received, declared or 0)
    if size > ANSWER_BYTES:
        raise AnswerTooLarge(
            f"{network} sent an answer larger than {ANSWER_BYTES // (1024 * 1024)} MB: "
            "refused (no page of posts is that large)"
        )
    pull = active_pull()
    if pull is not None:
        pull.check()
