"""The local servers bench/publish_networks.py publishes to, one rig a network.

Each rig starts its network's server(s) as the tests run them, connects the accounts
through `connect_account` + `add_account` (a real connect, as the HTTP API does), and
can arm a fault on every Nth create call from then on: the server carries the call
out (the post is live), then the answer is lost (the connection dropped, or a stall
past the client's timeout). The fault is the server's own (its Fault API or its
proxy's counter); a thin subclass only picks which calls get it and notes the text
of each, so the bench knows which publications had their answer lost.

    X         tests/fakes/x_server.py (FakeX): Fault drop/hang, after_processing
    Threads   tests/fakes/threads_server.py: the same on POST .../threads_publish
    Discord   tests/fakes/discord_server.py: the same on the webhook's POST

and, in bench/publish_networks_procs.py (their servers are processes of their own),
Telegram, Pixelfed and Nostr.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from socialgen.publishing.registry import Networks


@dataclass
class Ctx:
    """What every rig needs from the bench."""

    engine: Engine
    workspace_id: str
    networks: Networks
    timeout: float  # SOCIALGEN_NETWORK_TIMEOUT, as the serve processes have it
    home: Path


@dataclass
class Faults:
    """Every `every`-th create call (0: none) gets the rig's fault; `lost` keeps the
    text of each call whose answer was lost (the thread that took the fault notes the
    text when it reads the request, so the pairing is exact under concurrency)."""

    every: int = 0
    calls: int = 0
    lost: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _local: threading.local = field(default_factory=threading.local)

    def take(self) -> int:
        """0, or the fault's number (1, 2, ...) when this create call gets one."""
        with self._lock:
            if not self.every:
                return 0
            self.calls += 1
            if self.calls % self.every:
                return 0
            self._local.pending = True
            return self.calls // self.every

    def note(self, text: str) -> None:
        """The request this thread took a fault for says `text`."""
        if getattr(self._local, "pending", False):
            self._local.pending = False
            with self._lock:
                self.lost.append(text)


@dataclass
class Rig:
    network: str
    latency_account: str
    burst_account: str
    held: Callable[[], list[str]]  # the texts the server(s) hold now, every account's
    sent: Callable[[], list[str]] | None  # the texts of every create call received
    faults: Faults
    how: str  # the servers and the fault, for the report
    media: bool = False  # the network wants an image on each post (Pixelfed)
    sent_again: str = "create calls sent again"  # what `sent` counts, beyond one a post
    # The texts whose answer was lost, when the fault notes an id (a Threads container).
    resolve_lost: Callable[[list[str]], list[str]] | None = None

    def lost(self) -> list[str]:
        noted = list(self.faults.lost)
        return self.resolve_lost(noted) if self.resolve_lost is not None else noted


def add_connected(ctx: Ctx, network: str, service_url: str, handle: str, secret: str) -> str:
    from socialgen.publishing.accounts.service import add_account, connect_account
    from socialgen.store.engine import transaction

    found = connect_account(ctx.networks, network, service_url, handle, secret)
    with transaction(ctx.engine) as session:
        account = add_account(session, ctx.workspace_id, network, found, networks=ctx.networks)
        return account.id


def _kind(number: int) -> str:
    """Faults alternate: the connection dropped at once, then a stall past the timeout."""
    return "drop" if number % 2 else "hang"


# --- X -------------------------------------------------------------------------------


def x_rig(ctx: Ctx, stack: ExitStack) -> Rig:
    from tests.fakes.x_server import FakeX, Fault, Recorded

    faults = Faults()
    stall = ctx.timeout + 1.5

    class BenchX(FakeX):
        def _take_fault(self, method: str, path: str) -> Fault | None:
            if (method, path) == ("POST", "/2/tweets"):
                number = faults.take()
                if number:
                    return Fault(_kind(number), after_processing=True, seconds=stall)
            return super()._take_fault(method, path)

        def _record(self, request: Recorded) -> None:
            if (request.method, request.path) == ("POST", "/2/tweets"):
                faults.note(str(json.loads(request.body).get("text", "")))
            super()._record(request)

    fake = stack.enter_context(BenchX(username="bench_x"))
    account = add_connected(ctx, "x", fake.base_url, "", fake.add_token())

    def sent() -> list[str]:
        return [
            str(json.loads(r.body).get("text", "")) for r in fake.requests_to("/2/tweets", "POST")
        ]

    return Rig(
        "x",
        account,
        account,
        held=lambda: [tweet.text for tweet in fake.posts],
        sent=sent,
        faults=faults,
        how=f"FakeX; POST /2/tweets carried out, then dropped / stalled {stall:.1f} s",
    )


# --- Threads -------------------------------------------------------------------------


def threads_rig(ctx: Ctx, stack: ExitStack) -> Rig:
    from tests.fakes.threads_server import FakeThreads, Fault, Recorded

    faults = Faults()
    stall = ctx.timeout + 1.5

    class BenchThreads(FakeThreads):
        def _take_fault(self, method: str, path: str, fields: str | None) -> Fault | None:
            if method == "POST" and path.endswith("/threads_publish"):
                number = faults.take()
                if number:
                    return Fault(_kind(number), after_processing=True, seconds=stall)
            return super()._take_fault(method, path, fields)

        def _record(self, request: Recorded) -> None:
            if request.method == "POST" and request.path.endswith("/threads_publish"):
                faults.note(request.params.get("creation_id", ""))  # its text: the container's
            super()._record(request)

    fake = stack.enter_context(BenchThreads())
    account = add_connected(ctx, "threads", fake.api_url, "", fake.add_token())
    containers = fake.state.containers

    def text_of(container_id: str) -> str:
        found = containers.get(container_id)
        return found.text if found is not None else f"container {container_id}"

    return Rig(
        "threads",
        account,
        account,
        held=fake.live_texts,
        sent=lambda: [
            text_of(r.params.get("creation_id", ""))
            for r in fake.requests_to("/threads_publish", "POST")
        ],
        faults=faults,
        how=f"FakeThreads; POST /threads_publish carried out, then dropped / stalled {stall:.1f} s",
        resolve_lost=lambda ids: [text_of(i) for i in ids],
    )


# --- Discord -------------------------------------------------------------------------


def discord_rig(ctx: Ctx, stack: ExitStack) -> Rig:
    from tests.fakes.discord_server import Answer, FakeDiscord, Fault, Recorded

    faults = Faults()
    stall = ctx.timeout + 1.5

    def content(request: Recorded) -> str:
        try:
            body = json.loads(request.body or b"{}")
        except ValueError:
            return ""
        return str(body.get("content", "")) if isinstance(body, dict) else ""

    class BenchDiscord(FakeDiscord):
        def _take_fault(self, method: str) -> Fault | None:
            if method == "POST":  # executing the webhook: a message
                number = faults.take()
                if number:
                    return Fault(_kind(number), after_processing=True, seconds=stall)
            return super()._take_fault(method)

        def _route(self, request: Recorded) -> Answer:
            if request.method == "POST":
                faults.note(content(request))
            return super()._route(request)

    fake = stack.enter_context(BenchDiscord())
    hook = fake.add_webhook("Bench")
    account = add_connected(ctx, "discord", fake.base_url, "", fake.url_of(hook))
    return Rig(
        "discord",
        account,
        account,
        held=fake.texts,
        sent=lambda: [content(r) for r in fake.requests_to("POST")],
        faults=faults,
        how=f"FakeDiscord; the webhook's POST carried out, then dropped / stalled {stall:.1f} s",
    )
