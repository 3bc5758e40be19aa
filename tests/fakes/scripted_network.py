"""A scripted social network for tests: a stand-in for a networks/<name>/adapter.py module.

    network = ScriptedNetwork("bluesky")
    Runtime(networks={"bluesky": network})     # or conftest's `networks` fixture
    ...
    network.fail_next(retryable=True, retry_after=0.1)   # the next publish raises
    assert [p.text for p in network.published] == [...]   # what went out, in order

Everything happens in this process (no socket): the network is a shared object, so
every adapter built from it (one per publication, in any thread) records into the same
`published` list and obeys the same script. It behaves like the real networks where
the outbox depends on it:

- `publish` with an `idempotency_key` the network already accepted returns the first
  answer and posts nothing new (Mastodon's Idempotency-Key, a Bluesky rkey), unless
  `idempotent=False` (LinkedIn: a retry posts again, so the outbox must not retry).
- a failure with `outcome_unknown=True` and `after_sending=True` (the default for it)
  records the post before raising: it is live although the caller heard nothing.
- credentials are the secret `{"password": ...}` or `{"access_token": ...}`; only
  `accepted_secrets` pass `connect` and `check` (a revoked one raises `reconnect`).
- `refresh_on_publish=True` makes each publish hand a new secret to `save_secret`,
  as a Bluesky session refresh does.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime

from socialgen.publishing.networks.base import (
    DEFAULT_NETWORK_SETTINGS,
    AccountCredentials,
    AccountIdentity,
    Connected,
    Metrics,
    NetworkSettings,
    OutgoingPost,
    PageBudget,
    PastPost,
    PreparedPart,
    PreparedPost,
    Published,
    PublishError,
    SecretSaver,
)

SECRET_FIELDS = ("password", "access_token")


@dataclass(frozen=True)
class PublishedRecord:
    """One post the network accepted, as it received it."""

    handle: str  # the account it went out through
    publication_id: str
    idempotency_key: str
    text: str
    media: int  # how many media items came with it
    remote_id: str
    number_parts: bool = False  # whether the outbox asked for "1/3" markers
    at: float = field(default_factory=time.monotonic)


@dataclass
class Failure:
    error: PublishError
    after_sending: bool  # the network took the post, then the answer was lost


class ScriptedNetwork:
    """Module-shaped: `build`, `connect`, `authorize`, `DEFAULT_SERVICE_URL`."""

    def __init__(
        self,
        network: str = "bluesky",
        *,
        service_url: str = "http://127.0.0.1:9",
        accepted_secrets: set[str] | None = None,
        idempotent: bool = True,
        delay: float = 0.0,
    ) -> None:
        self.network = network
        self.DEFAULT_SERVICE_URL = service_url
        # None: any non-empty secret is accepted.
        self.accepted_secrets = accepted_secrets
        self.idempotent = idempotent
        self.delay = delay  # seconds each publish takes (before it is recorded)
        self.refresh_on_publish = False
        self.published: list[PublishedRecord] = []
        self.attempts: list[str] = []  # idempotency keys of every publish call, in order
        self.connects: list[tuple[str, str]] = []  # (service_url, handle) per connect call
        self.checks: list[str] = []  # handles checked
        self.saved_secrets: list[dict[str, str]] = []  # what adapters handed to save_secret
        self.metrics_for: dict[str, Metrics] = {}  # remote_id -> counts (default: zeros)
        self.past_posts: list[PastPost] = []  # what `history` reads, newest first
        self.authorize_secret = "scripted-oauth-token"
        self._failures: deque[Failure] = deque()
        self._lock = threading.Lock()

    # --- the script -----------------------------------------------------------------

    def fail_next(
        self,
        message: str = "scripted failure",
        *,
        times: int = 1,
        retryable: bool = False,
        retry_after: float | None = None,
        outcome_unknown: bool = False,
        reconnect: bool = False,
        after_sending: bool | None = None,
    ) -> None:
        """The next `times` publish calls raise this PublishError, in order."""
        error = PublishError(
            message,
            retryable=retryable,
            retry_after=retry_after,
            outcome_unknown=outcome_unknown,
            reconnect=reconnect,
        )
        sent = outcome_unknown if after_sending is None else after_sending
        with self._lock:
            self._failures.extend(Failure(error, sent) for _ in range(times))

    def count(self, idempotency_key: str) -> int:
        """How many times the post with this key exists on the network."""
        with self._lock:
            return sum(1 for p in self.published if p.idempotency_key == idempotency_key)

    # --- the module's functions -------------------------------------------------------

    def build(
        self,
        credentials: AccountCredentials,
        save_secret: SecretSaver,
        *,
        settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
    ) -> ScriptedAdapter:
        return ScriptedAdapter(self, credentials, save_secret)

    def connect(
        self,
        service_url: str,
        handle: str,
        secret: str,
        *,
        settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
    ) -> Connected:
        with self._lock:
            self.connects.append((service_url, handle))
        self._verify(secret)
        name = handle.lstrip("@") or "scripted-user"
        return Connected(
            service_url=service_url.rstrip("/"),
            identity=self.identity(name),
            secret={"password": secret} if handle else {"access_token": secret},
        )

    def authorize(
        self,
        service_url: str,
        options: dict[str, str],
        *,
        open_browser: bool,
        announce: Callable[[str], None],
        settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
    ) -> Connected:
        announce(f"{service_url}/oauth/authorize?client_id={options.get('client_id', 'app')}")
        return Connected(
            service_url=service_url.rstrip("/"),
            identity=self.identity("oauth-user"),
            secret={"access_token": self.authorize_secret},
        )

    def identity(self, name: str) -> AccountIdentity:
        return AccountIdentity(
            handle=f"@{name}",
            display_name=f"Scripted {name}",
            profile_url=f"https://scripted.example/@{name}",
            email=f"{name}@scripted.example",
        )

    def _verify(self, secret: str) -> None:
        if not secret or (
            self.accepted_secrets is not None and secret not in self.accepted_secrets
        ):
            raise PublishError("Invalid identifier or password", reconnect=True)

    def _take_failure(self) -> Failure | None:
        with self._lock:
            return self._failures.popleft() if self._failures else None

    def _record(self, record: PublishedRecord) -> Published:
        with self._lock:
            self.published.append(record)
        return _answer(record)

    def _existing(self, key: str) -> Published | None:
        if not self.idempotent:
            return None
        with self._lock:
            for record in self.published:
                if record.idempotency_key == key:
                    return _answer(record)
        return None


class ScriptedAdapter:
    """A NetworkAdapter over one account of a ScriptedNetwork."""

    def __init__(
        self, network: ScriptedNetwork, credentials: AccountCredentials, save_secret: SecretSaver
    ) -> None:
        self.network = network.network
        self._net = network
        self._credentials = credentials
        self._save_secret = save_secret
        self._refreshes = 0

    def check(self) -> AccountIdentity:
        with self._net._lock:
            self._net.checks.append(self._credentials.handle)
        self._net._verify(_secret_of(self._credentials.secret))
        return self._net.identity(self._credentials.handle.lstrip("@"))

    def prepare(self, post: OutgoingPost) -> PreparedPost:
        details = {"media": [item.kind for item in post.media]} if post.media else {}
        return PreparedPost(network=self.network, parts=(PreparedPart(post.text, details),))

    def publish(self, post: OutgoingPost) -> Published:
        net = self._net
        with net._lock:
            net.attempts.append(post.idempotency_key)
        if net.delay:
            time.sleep(net.delay)
        net._verify(_secret_of(self._credentials.secret))
        if net.refresh_on_publish:
            self._refreshes += 1
            fresh = {**self._credentials.secret, "session": f"refreshed-{self._refreshes}"}
            with net._lock:
                net.saved_secrets.append(fresh)
            self._save_secret(fresh)
        failure = net._take_failure()
        if failure is not None and not failure.after_sending:
            raise failure.error
        answer = net._existing(post.idempotency_key)
        if answer is None:
            answer = net._record(
                PublishedRecord(
                    handle=self._credentials.handle,
                    publication_id=post.publication_id,
                    idempotency_key=post.idempotency_key,
                    text=post.text,
                    media=len(post.media),
                    remote_id=f"scripted:{post.idempotency_key}",
                    number_parts=post.number_parts,
                )
            )
        if failure is not None:  # sent, and the answer lost on the way back
            raise failure.error
        return answer

    def metrics(self, published: Published) -> Metrics:
        return self._net.metrics_for.get(published.remote_id, Metrics())

    def history(self, since: datetime | None, pull: PageBudget) -> Iterator[PastPost]:
        """The scripted posts, one page of them: a scripted network pages nothing."""
        self._net._verify(_secret_of(self._credentials.secret))
        if not pull.next_page(None):
            return
        for past in list(self._net.past_posts):
            if since is not None and past.published_at < since:
                return
            yield past


def _secret_of(secret: dict[str, str]) -> str:
    for name in SECRET_FIELDS:
        if secret.get(name):
            return secret[name]
    return ""


def _answer(record: PublishedRecord) -> Published:
    return Published(
        remote_id=record.remote_id,
        url=f"https://scripted.example/post/{record.idempotency_key}",
        part_ids=(record.remote_id,),
    )
