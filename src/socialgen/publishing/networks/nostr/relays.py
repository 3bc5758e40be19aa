"""Talking to Nostr relays (NIP-01 over websockets), each behind the SSRF guard.

A relay URL is `ws://` or `wss://`. Before connecting, its host goes through the same
guard as every http(s) request (guarded_http.check_destination, reading ws as http and
wss as https): a relay on a private or loopback address is refused unless
allow_private_urls. The socket then goes to an address the guard has just checked,
and the websocket handshake and TLS name stay the relay's host, so DNS cannot answer
differently in between. No proxy is used (it would resolve the host itself): the
websocket is opened on the socket connected here.

Two exchanges: `send_event` (["EVENT", e] answered by ["OK", id, accepted, words]) and
`query` (["REQ", sub, filters...] answered by events, then EOSE; CLOSED is a refusal).
Each answer is one websocket message, capped at MESSAGE_BYTES, and a query stops
reading after MAX_EVENTS; while a history pull is active, its deadline is checked
between messages (pull.py).
"""

from __future__ import annotations

import contextlib
import json
import socket
import ssl
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from websockets.exceptions import InvalidHandshake, WebSocketException
from websockets.sync.client import ClientConnection, connect

from socialgen.kit.errors import BadRequest
from socialgen.publishing.networks.base import PublishError, brief
from socialgen.publishing.networks.guarded_http import GuardRefused, check_destination
from socialgen.publishing.networks.pull import AnswerTooLarge, PullStopped, check_answer_size

NETWORK = "Nostr"
MESSAGE_BYTES = 1024 * 1024  # one relay message: an event is under 64 KB on most relays
MAX_EVENTS = 5000  # what one query reads from one relay, whatever its `limit` says
MAX_RELAYS = 12
DUPLICATE = "duplicate:"  # NIP-01's prefix for an event the relay already has


@dataclass(frozen=True)
class RelayAnswer:
    """What one relay said to an event. `sent`: the event went out (False: the relay
    was never reached); `answered`: an OK came back (False with `sent`: unknown)."""

    relay: str
    sent: bool
    answered: bool = False
    accepted: bool = False
    words: str = ""
    guard_refused: bool = False

    @property
    def rate_limited(self) -> bool:
        return self.words.startswith("rate-limited:")

    def describe(self) -> str:
        if self.accepted:
            return f"{self.relay}: accepted"
        if self.answered:
            return f"{self.relay} refused it: {self.words}"
        if self.sent:
            return f"{self.relay} gave no answer ({self.words})"
        return f"{self.relay} could not be reached ({self.words})"


@dataclass
class QueryResult:
    events: dict[str, dict[str, Any]] = field(default_factory=dict)  # by id
    answered: list[str] = field(default_factory=list)  # relays that sent EOSE
    failures: list[str] = field(default_factory=list)  # what the others said


def relay_urls(service_url: str) -> list[str]:
    """The account's relays from its service URL (comma-separated), normalised: lower
    case scheme and host, no trailing slash, each once. A BadRequest for anything
    that is not a ws(s) URL."""
    urls: list[str] = []
    for raw in service_url.replace("\n", ",").split(","):
        text = raw.strip()
        if not text:
            continue
        parts = urlsplit(text)
        if parts.scheme.lower() not in ("ws", "wss") or not parts.hostname:
            raise BadRequest(
                f"Not a relay address: {brief(text, 80)!r}: give relays as wss://host "
                "(or ws://host), separated by commas"
            )
        if parts.username or parts.password or parts.query or parts.fragment:
            raise BadRequest(
                f"A relay address takes no user, query or fragment: {brief(text, 80)!r}"
            )
        netloc = parts.netloc.lower()
        url = f"{parts.scheme.lower()}://{netloc}{parts.path.rstrip('/')}"
        if url not in urls:
            urls.append(url)
    if not urls:
        raise BadRequest("Name at least one relay (wss://...)")
    if len(urls) > MAX_RELAYS:
        raise BadRequest(f"At most {MAX_RELAYS} relays per account ({len(urls)} given)")
    return urls


def checked(url: str, allow_private: bool) -> tuple[str, int, tuple[str, ...], bool]:
    """The guard on a relay: (host, port, checked addresses, tls). GuardRefused when
    the policy says no; a retryable PublishError when the host does not resolve."""
    parts = urlsplit(url)
    tls = parts.scheme == "wss"
    target = check_destination(
        NETWORK, f"{'https' if tls else 'http'}://{parts.netloc}/", allow_private=allow_private
    )
    return target.host, parts.port or (443 if tls else 80), target.addresses, tls


class Relay:
    """One relay's connection, opened on first use and kept for the adapter's call."""

    def __init__(self, url: str, *, allow_private: bool, timeout: float) -> None:
        self.url = url
        self._allow_private = allow_private
        self._timeout = timeout
        self._ws: ClientConnection | None = None
        self._stack = contextlib.ExitStack()  # websockets wants its connection entered
        self._counter = 0

    def close(self) -> None:
        if self._ws is not None:
            self._ws = None
            with contextlib.suppress(OSError, WebSocketException):  # the relay went first
                self._stack.close()

    def _open(self) -> ClientConnection:
        if self._ws is not None:
            return self._ws
        host, port, addresses, tls = checked(self.url, self._allow_private)
        sock: socket.socket | None = None
        failure: OSError | None = None
        for address in addresses:
            try:  # nothing is sent before the handshake: the next address is safe
                sock = socket.create_connection((address.split("%", 1)[0], port), self._timeout)
                break
            except OSError as error:
                failure = error
        if sock is None:
            raise ConnectionError(str(failure or f"no address for {host}"))
        context = ssl.create_default_context() if tls else None
        try:
            opened = connect(
                self.url,
                sock=sock,
                ssl=context,
                server_hostname=host if tls else None,
                open_timeout=self._timeout,
                close_timeout=min(self._timeout, 2.0),
                max_size=MESSAGE_BYTES,
                user_agent_header="socialgen",
            )
        except BaseException:
            sock.close()
            raise
        self._ws = self._stack.enter_context(opened)
        return self._ws

    def _receive(self, deadline: float) -> list[Any] | None:
        """The next message that is a JSON array; None when the deadline passes."""
        ws = self._open()
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            try:
                raw = ws.recv(timeout=left)
            except TimeoutError:
                return None
            check_answer_size(NETWORK, len(raw))  # and the active pull's deadline
            try:
                message = json.loads(raw)
            except (ValueError, UnicodeDecodeError):
                continue  # not NIP-01: a relay's noise is not an answer
            if isinstance(message, list) and message and isinstance(message[0], str):
                return message

    def send_event(self, event: dict[str, Any]) -> RelayAnswer:
        """Send `event` and wait for the relay's OK (its words when it refuses)."""
        try:
            ws = self._open()
        except GuardRefused as error:
            return RelayAnswer(self.url, sent=False, words=error.message, guard_refused=True)
        except (PublishError, OSError, InvalidHandshake, WebSocketException) as error:
            return RelayAnswer(self.url, sent=False, words=_reason(error))
        notice = ""
        try:
            ws.send(json.dumps(["EVENT", event], ensure_ascii=False))
            deadline = time.monotonic() + self._timeout
            while (message := self._receive(deadline)) is not None:
                if message[0] == "NOTICE" and len(message) > 1:
                    notice = brief(str(message[1]))
                elif message[0] == "OK" and len(message) >= 3 and message[1] in (event["id"], ""):
                    # nostr-relay answers a refused event with an empty id: it is ours,
                    # the one event this connection is waiting for.
                    words = brief(str(message[3])) if len(message) > 3 else ""
                    accepted = message[2] is True or words.startswith(DUPLICATE)
                    return RelayAnswer(self.url, True, True, accepted, words)
        except (OSError, WebSocketException) as error:
            self.close()
            return RelayAnswer(self.url, sent=True, words=_reason(error, notice))
        self.close()  # an answer arriving later would be read as the next event's
        return RelayAnswer(self.url, sent=True, words=notice or "no answer in time")

    def query(self, filters: list[dict[str, Any]], result: QueryResult) -> None:
        """Events matching `filters` until EOSE, added to `result` by id (the relay's
        failure, in words, to result.failures). Events are taken as given: the caller
        verifies them."""
        self._counter += 1
        sub = f"sg{self._counter}"
        try:
            ws = self._open()
            ws.send(json.dumps(["REQ", sub, *filters]))
            deadline = time.monotonic() + self._timeout
            read = 0
            while (message := self._receive(deadline)) is not None:
                kind, rest = message[0], message[1:]
                if kind == "EVENT" and len(rest) >= 2 and rest[0] == sub:
                    if isinstance(rest[1], dict) and isinstance(rest[1].get("id"), str):
                        result.events.setdefault(rest[1]["id"], rest[1])
                    read += 1
                    if read >= MAX_EVENTS:
                        break
                elif kind == "EOSE" and rest[:1] == [sub]:
                    break
                elif kind == "CLOSED" and rest[:1] == [sub]:
                    words = brief(str(rest[1])) if len(rest) > 1 else ""
                    result.failures.append(f"{self.url} refused the query: {words}")
                    return
            else:
                result.failures.append(f"{self.url} did not finish answering in time")
                self.close()
                return
            ws.send(json.dumps(["CLOSE", sub]))
            result.answered.append(self.url)
        except (GuardRefused, PullStopped, AnswerTooLarge):
            raise  # the guard's or the pull's word: not one relay's failure
        except (PublishError, OSError, InvalidHandshake, WebSocketException) as error:
            self.close()
            result.failures.append(f"{self.url} could not be read ({_reason(error)})")


class Relays:
    """The account's relays, for one adapter call (`with Relays(...) as relays:`)."""

    def __init__(self, urls: list[str], *, allow_private: bool, timeout: float) -> None:
        self.relays = [Relay(u, allow_private=allow_private, timeout=timeout) for u in urls]

    def __enter__(self) -> Relays:
        return self

    def __exit__(self, *exc: object) -> None:
        for relay in self.relays:
            relay.close()

    def send_event(self, event: dict[str, Any]) -> list[RelayAnswer]:
        return [relay.send_event(event) for relay in self.relays]

    def query(self, filters: list[dict[str, Any]]) -> QueryResult:
        """What every relay holds for `filters`, merged by event id; a retryable
        PublishError when no relay answered (GuardRefused when the guard refused all)."""
        result = QueryResult()
        refused: list[GuardRefused] = []
        for relay in self.relays:
            try:
                relay.query(filters, result)
            except GuardRefused as error:
                refused.append(error)
                result.failures.append(error.message)
        if not result.answered:
            if refused and len(refused) == len(self.relays):
                raise refused[0]  # the policy, not an outage: never retried
            said = "; ".join(result.failures) or "no relay configured"
            raise PublishError(f"No Nostr relay answered: {said}", retryable=True)
        return result


def _reason(error: BaseException, notice: str = "") -> str:
    """A failure in a few words, never the event or the key."""
    if isinstance(error, PublishError):
        return error.message
    if isinstance(error, InvalidHandshake):
        return brief(f"the websocket handshake failed: {error}", 160)
    text = brief(str(error), 120) or type(error).__name__
    return f"{text}; the relay said: {notice}" if notice else text
