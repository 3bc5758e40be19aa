"""A network without idempotency keys that posts threads part by part, for the
outbox's exactly-once tests (tests/test_outbox_thread_progress.py): a stand-in for a
networks/<name>/adapter.py module, as X, Threads, Telegram and Discord are.

    net = ThreadNetwork("x", finds_its_posts=True)
    net.fail_at(1, after_sending=True)   # part 2 goes live, its answer is lost
    net.live                              # [(id, text, reply_to)], what went out

The text's paragraphs are its parts. It honours the contract of networks/base.py:
parts in `posted_parts` are never sent again, each live part is reported with
`note_posted`, and (with `finds_its_posts`) an `earlier_attempt_at` makes it look on
the "account" for a part with the same text and parent before sending it.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass

from socialgen.publishing.networks.base import (
    AccountCredentials,
    Metrics,
    NetworkSettings,
    OutgoingPost,
    PreparedPart,
    PreparedPost,
    Published,
    PublishError,
    SecretSaver,
)


@dataclass(frozen=True)
class LivePart:
    remote_id: str
    text: str
    reply_to: str | None


@dataclass
class Fault:
    index: int
    after_sending: bool


class ThreadNetwork:
    """Module-shaped: `build`, `IDEMPOTENT`, `FINDS_ITS_POSTS`, `DEFAULT_SERVICE_URL`."""

    IDEMPOTENT = False
    DEFAULT_SERVICE_URL = "http://127.0.0.1:9"

    def __init__(self, network: str, *, finds_its_posts: bool = False) -> None:
        self.network = network
        self.FINDS_ITS_POSTS = finds_its_posts
        self.live: list[LivePart] = []
        self.sent: list[str] = []  # every part text sent, a resend included
        self.looked = 0  # how often an adapter looked on the account
        self._faults: list[Fault] = []
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def fail_at(self, index: int, *, after_sending: bool) -> None:
        self._faults.append(Fault(index, after_sending))

    def build(
        self,
        credentials: AccountCredentials,
        save_secret: SecretSaver,
        *,
        settings: NetworkSettings,
    ) -> ThreadAdapter:
        return ThreadAdapter(self)

    def _fault(self, index: int) -> Fault | None:
        with self._lock:
            for fault in self._faults:
                if fault.index == index:
                    self._faults.remove(fault)
                    return fault
        return None

    def _post(self, text: str, reply_to: str | None) -> str:
        with self._lock:
            remote_id = f"{self.network}-{next(self._ids)}"
            self.live.append(LivePart(remote_id, text, reply_to))
            self.sent.append(text)
            return remote_id

    def _find(self, text: str, reply_to: str | None) -> str | None:
        with self._lock:
            self.looked += 1
            for part in self.live:
                if part.text == text and part.reply_to == reply_to:
                    return part.remote_id
        return None


class ThreadAdapter:
    def __init__(self, network: ThreadNetwork) -> None:
        self._net = network
        self.network = network.network

    def prepare(self, post: OutgoingPost) -> PreparedPost:
        parts = tuple(PreparedPart(text=text) for text in post.text.split("\n\n"))
        return PreparedPost(network=self.network, parts=parts)

    def publish(self, post: OutgoingPost) -> Published:
        texts = [part.text for part in self.prepare(post).parts]
        ids = list(post.posted_parts)
        look = post.earlier_attempt_at is not None and self._net.FINDS_ITS_POSTS
        for index in range(len(ids), len(texts)):
            parent = ids[-1] if ids else None
            found = self._net._find(texts[index], parent) if look else None
            if found is None:
                fault = self._net._fault(index)
                if fault is not None and not fault.after_sending:
                    raise PublishError("connection refused", retryable=True, retry_after=0)
                found = self._net._post(texts[index], parent)
                if fault is not None:
                    raise PublishError("timed out after sending", outcome_unknown=True)
            ids.append(found)
            post.note_posted(index, found)
        return Published(
            remote_id=ids[0], url=f"https://example.test/{ids[0]}", part_ids=tuple(ids)
        )

    def metrics(self, published: Published) -> Metrics:
        return Metrics()
