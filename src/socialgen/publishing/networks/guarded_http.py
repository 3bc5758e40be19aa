"""Every request a network client sends passes the SSRF guard, when it is sent.

sources/guard.py decides which hosts socialgen may reach, and sources/fetch.py applies
it to articles. This module applies it to the publishing clients, and is the one way
they are built: `guarded_httpx` (LinkedIn, the OAuth flows, and atproto's client for
Bluesky through `GuardedTransport`) and `guarded_session` (Mastodon.py's requests).

- Each request is checked as it goes out, not once when the account was added: a host
  that resolves to a private address since (DNS rebinding, a changed setting) is
  refused on the next publish, check, metrics read or dry run.
- The connection goes to an address the guard has just checked, with the original
  Host header and TLS name, so DNS cannot answer differently in between.
- An answer that redirects is refused, never followed: the clients would re-send the
  credentials (an app password, a bearer token) to a host nobody checked and hand
  its answer back as the network's.
- Environment proxies are ignored: a proxy would resolve the host itself.
- Every answer is capped as it streams in (pull.py's ANSWER_BYTES), and while a
  history pull is active in the thread, its deadline and its caller are checked
  between chunks: a server cannot send 300 MB, nor trickle an answer forever.

A refusal is a `GuardRefused` (or pull.py's `AnswerTooLarge`, `PullStopped`): a
`PublishError` the outbox never retries.

Each takes `allow_private`: the allow_private_urls setting, which reaches the network
modules in their `NetworkSettings` (handed by the Runtime's `Networks`).
"""

from __future__ import annotations

import ssl
from collections.abc import Callable, Iterator, Mapping
from typing import Any
from urllib.parse import urlsplit

import httpx
import requests
from requests.adapters import HTTPAdapter
from urllib3.exceptions import (
    ConnectTimeoutError,
    DecodeError,
    NewConnectionError,
    ProtocolError,
    ReadTimeoutError,
)

from socialgen.kit.errors import BadRequest
from socialgen.publishing.networks.base import PublishError, brief
from socialgen.publishing.networks.pull import AnswerTooLarge, PullStopped, check_answer_size
from socialgen.sources.guard import Destination, UrlNotAllowed, destination

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
CHUNK_BYTES = 64 * 1024


class GuardRefused(PublishError):
    """The guard refused a request's host, or the server answered with a redirect."""


def guard_refusal(error: BaseException | None) -> PublishError | None:
    """Our own refusal behind `error` (the guard's, an answer too large, a pull's
    bound), if a client wrapped one (Mastodon.py raises its own network error with
    ours as the context)."""
    seen: set[int] = set()
    while error is not None and id(error) not in seen:
        if isinstance(error, GuardRefused | AnswerTooLarge | PullStopped):
            return error
        seen.add(id(error))
        error = error.__cause__ or error.__context__
    return None


def check_destination(network: str, url: str, *, allow_private: bool) -> Destination:
    """The guard for `url` as a publishing error: `GuardRefused` when the policy says
    no, a retryable `PublishError` when the host does not resolve (yet)."""

    def unreachable(message: str) -> Exception:
        return PublishError(message, retryable=True)

    return _checked(network, url, unreachable, allow_private)


def guarded_httpx(
    network: str, *, allow_private: bool, verify: ssl.SSLContext | bool = True, **options: Any
) -> httpx.Client:
    """An httpx client whose every request goes through the guard. `verify` goes to the
    transport (httpx ignores a client's own when it is given a transport)."""
    return httpx.Client(
        transport=GuardedTransport(network, allow_private=allow_private, verify=verify),
        follow_redirects=False,
        trust_env=False,
        **options,
    )


def guarded_session(network: str, *, allow_private: bool) -> requests.Session:
    """A requests session (for Mastodon.py) whose every request goes through the guard."""
    session = requests.Session()
    session.trust_env = False  # no environment proxies, no .netrc credentials
    session.max_redirects = 0
    adapter = GuardedAdapter(network, allow_private=allow_private)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


class GuardedTransport(httpx.BaseTransport):
    """httpx's transport behind the guard: check, connect to a checked address, refuse
    redirects. `network` names the network in messages ("Bluesky")."""

    def __init__(
        self, network: str, *, allow_private: bool, verify: ssl.SSLContext | bool = True
    ) -> None:
        self.network = network
        self.allow_private = allow_private
        self._inner = httpx.HTTPTransport(verify=verify, trust_env=False)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        def unreachable(message: str) -> Exception:
            return httpx.ConnectError(message, request=request)

        target = _checked(self.network, str(request.url), unreachable, self.allow_private)
        response = self._send(request, target)
        if response.status_code in REDIRECT_STATUSES:
            response.close()
            location = response.headers.get("location", "")
            raise _redirect_refused(self.network, target.host, response.status_code, location)
        try:
            check_answer_size(self.network, 0, _declared_length(response.headers))
        except PublishError:
            response.close()
            raise
        response.stream = _CappedStream(self.network, response.stream)
        return response

    def close(self) -> None:
        self._inner.close()

    def _send(self, request: httpx.Request, target: Destination) -> httpx.Response:
        if target.is_ip_literal:
            return self._inner.handle_request(request)
        refused: httpx.ConnectError | None = None
        for address in target.addresses:
            try:
                return self._inner.handle_request(_pinned_httpx(request, target, address))
            except httpx.ConnectError as exc:  # nothing sent: try the host's next address
                refused = exc
        raise refused or httpx.ConnectError(f"no address for {target.host}", request=request)


class GuardedAdapter(HTTPAdapter):
    """requests' adapter behind the guard, as GuardedTransport is httpx's."""

    def __init__(self, network: str, *, allow_private: bool) -> None:
        super().__init__(max_retries=0)
        self.network = network
        self.allow_private = allow_private

    def send(
        self,
        request: requests.PreparedRequest,
        stream: bool = False,
        timeout: Any = None,
        verify: bool | str = True,
        cert: Any = None,
        proxies: Mapping[str, str] | None = None,
    ) -> requests.Response:
        url = request.url or ""
        target = _checked(self.network, url, requests.ConnectionError, self.allow_private)

        def send(prepared: requests.PreparedRequest) -> requests.Response:
            # Proxies left out on purpose: the connection goes to the checked address.
            # Streamed always: the body is read below, chunk by chunk, with the cap.
            return super(GuardedAdapter, self).send(prepared, True, timeout, verify, cert, {})

        response = send(request) if target.is_ip_literal else self._pinned(request, target, send)
        if response.status_code in REDIRECT_STATUSES:
            location = response.headers.get("location", "")
            response.close()
            raise _redirect_refused(self.network, target.host, response.status_code, location)
        if not stream:  # what requests would read whole, read here with the cap
            _read_capped(self.network, response)
        return response

    def build_connection_pool_key_attributes(
        self, request: requests.PreparedRequest, verify: bool | str, cert: Any = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        host_params, pool_kwargs = super().build_connection_pool_key_attributes(
            request, verify, cert
        )
        raw = request.headers.get("Host", "")
        name = raw.decode("ascii") if isinstance(raw, bytes) else raw
        if name and host_params.get("scheme") == "https":
            # Connected by address: the TLS name and certificate check stay the host's.
            hostname = name.rsplit(":", 1)[0] if not name.endswith("]") else name
            pool_kwargs["server_hostname"] = hostname
            pool_kwargs["assert_hostname"] = hostname
        return host_params, pool_kwargs

    def _pinned(
        self,
        request: requests.PreparedRequest,
        target: Destination,
        send: Callable[[requests.PreparedRequest], requests.Response],
    ) -> requests.Response:
        url = request.url or ""
        parts = urlsplit(url)
        failure: requests.ConnectionError | None = None
        for address in target.addresses:
            pinned = request.copy()
            ip = address.split("%", 1)[0]
            netloc = f"[{ip}]" if ":" in ip else ip
            if parts.port is not None:
                netloc += f":{parts.port}"
            pinned.url = parts._replace(netloc=netloc).geturl()
            pinned.headers["Host"] = parts.netloc.rsplit("@", 1)[-1]
            try:
                response = send(pinned)
            except requests.ConnectionError as exc:
                if not _never_connected(exc):
                    raise
                failure = exc  # nothing sent: try the host's next address
                continue
            response.url = url
            response.request = request
            return response
        raise failure or requests.ConnectionError(f"no address for {target.host}")


# --- inside ---------------------------------------------------------------------------


class _CappedStream(httpx.SyncByteStream):
    """An httpx answer's body, refused past ANSWER_BYTES (decoded or not, it is what
    comes off the wire) and checked against the active pull between chunks."""

    def __init__(self, network: str, inner: Any) -> None:
        self._network = network
        self._inner = inner

    def __iter__(self) -> Iterator[bytes]:
        received = 0
        for chunk in self._inner:
            received += len(chunk)
            check_answer_size(self._network, received)
            yield chunk

    def close(self) -> None:
        close = getattr(self._inner, "close", None)
        if close is not None:
            close()


def _read_capped(network: str, response: requests.Response) -> None:
    """Read a requests answer whole, as requests would, but a chunk at a time as it
    arrives (read1: a trickling server cannot hold one read for minutes): refused past
    ANSWER_BYTES (decompressed: a small gzip cannot unfold into gigabytes) and checked
    against the active pull between chunks."""
    chunks: list[bytes] = []
    received = 0
    try:
        check_answer_size(network, 0, _declared_length(response.headers))
        while chunk := _read1(response):
            received += len(chunk)
            check_answer_size(network, received)
            chunks.append(chunk)
    except BaseException:
        response.close()
        raise
    response._content = b"".join(chunks)  # what `response.content` gives from now on
    response._content_consumed = True
    response.close()  # all read: the connection goes back to its pool


def _read1(response: requests.Response) -> bytes:
    """What has arrived of the body (at most CHUNK_BYTES), with urllib3's errors
    as requests' own, as `iter_content` words them."""
    try:
        return bytes(response.raw.read1(CHUNK_BYTES, decode_content=True))
    except ProtocolError as error:
        raise requests.exceptions.ChunkedEncodingError(error) from error
    except DecodeError as error:
        raise requests.exceptions.ContentDecodingError(error) from error
    except ReadTimeoutError as error:
        raise requests.ConnectionError(error) from error


def _declared_length(headers: Mapping[str, str]) -> int | None:
    value = headers.get("content-length", "")
    return int(value) if value.isdigit() else None


def _checked(
    network: str, url: str, unreachable: Callable[[str], Exception], allow_private: bool
) -> Destination:
    """The guard on the request's origin (its path and query are not the guard's
    business, and may be longer than a link it would take)."""
    parts = urlsplit(url)
    origin = f"{parts.scheme}://{parts.netloc}/"
    try:
        return destination(origin, allow_private=allow_private)
    except UrlNotAllowed as exc:
        raise GuardRefused(f"{network}: {exc.message}") from None
    except BadRequest as exc:  # the host does not resolve: like a refused connection
        raise unreachable(f"{network}: {exc.message}") from None


def _redirect_refused(network: str, host: str, status: int, location: str) -> GuardRefused:
    # Where it points helps the user give the right address; nothing from there is read.
    where = f" to {brief(location, 120)}" if location.strip() else ""
    return GuardRefused(
        f"{network}: {host} redirects{where} ({status}): redirect refused; credentials "
        "go only to the server that was checked, so give the server's own address"
    )


def _pinned_httpx(request: httpx.Request, target: Destination, address: str) -> httpx.Request:
    """The request sent to the checked `address`, naming the original host."""
    headers = request.headers.copy()
    headers.setdefault("Host", request.url.netloc.decode("ascii"))
    return httpx.Request(
        request.method,
        request.url.copy_with(host=address.split("%", 1)[0]),
        headers=headers,
        stream=request.stream,
        # TLS: SNI and the certificate check use the real host name, not the address.
        extensions={**request.extensions, "sni_hostname": target.host},
    )


def _never_connected(error: requests.ConnectionError) -> bool:
    """Whether the connection failed before anything was sent (safe to try another
    address; a request that went out must not go out twice)."""
    if isinstance(error, requests.ConnectTimeout):
        return True
    reason = getattr(error.args[0] if error.args else None, "reason", None)
    return isinstance(reason, NewConnectionError | ConnectTimeoutError)
