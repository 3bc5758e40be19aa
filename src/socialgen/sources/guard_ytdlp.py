"""The SSRF guard (`guard.py`) inside yt-dlp, which opens its own connections.

yt-dlp reads pages, player code and APIs, and follows redirects, by itself. It is
given one request handler: a copy of its urllib handler whose connections go only
to addresses `guard.destination()` approved (checked again on every redirect hop),
whose answers are capped in size (decoded size included: no decompression bombs),
with no proxy and no data:, file: or ftp: handlers.

Built on yt-dlp internals (`yt_dlp.networking._urllib`, `YoutubeDL._request_director`):
a yt-dlp upgrade that moves them must fail tests/test_calendar_sources.py (a redirect
to a cloud metadata address inside yt-dlp is refused there), so pin and test upgrades.

How a refusal gets out: yt-dlp takes any OSError from its networking for a network
failure and words it its own way, or swallows it when the request was optional and
then fails on something else. So the exception cannot carry the refusal. Each
extraction has its own `YtdlpGuard`, handed to the YoutubeDL object and from there
to its handler and connections; it keeps the first refusal, and the caller raises
that once yt-dlp gives up. (A per-call object rather than a thread-local: it follows
the extraction wherever yt-dlp runs it, and nothing is left behind between calls.)
"""

from __future__ import annotations

import functools
import http.client
import io
import socket
import urllib.response
import zlib
from dataclasses import dataclass
from typing import Any

from socialgen.kit.errors import SocialgenError
from socialgen.sources.fetch import SourceError
from socialgen.sources.guard import destination

READ_PIECE = 65_536  # bytes per read when a whole answer is asked for


class _Refused(OSError):
    """Raised inside yt-dlp's networking, which handles OSErrors as network failures."""


@dataclass
class YtdlpGuard:
    """The guard of one extraction: its size cap, whether private addresses pass (the
    caller's allow_private_urls setting), and the first refusal it made."""

    max_response_bytes: int
    allow_private: bool = False
    refusal: SocialgenError | None = None

    def refuse(self, error: SocialgenError) -> OSError:
        """Keep `error` (the first one wins: later failures are its consequences) and
        return the OSError to raise inside yt-dlp."""
        if self.refusal is None:
            self.refusal = error
        return _Refused(error.message)

    def too_large(self) -> OSError:
        limit = f"{self.max_response_bytes / 1_000_000:g} MB"
        message = f"Could not read the video page: an answer is larger than {limit}"
        return self.refuse(SourceError(message))

    def connect(
        self, address: tuple[str, int], timeout: float | None, source_address: Any = None
    ) -> socket.socket:
        """`socket.create_connection`, but only to addresses the guard approved."""
        host, port = address
        shown = f"[{host}]" if ":" in host else host
        try:
            target = destination(f"http://{shown}:{port}/", allow_private=self.allow_private)
        except SocialgenError as exc:
            raise self.refuse(exc) from None
        failure: OSError | None = None
        for ip in target.addresses:
            try:
                return socket.create_connection((ip, port), timeout, source_address)
            except OSError as exc:
                failure = exc
        raise failure or OSError(f"no address to connect to for {host}")

    def connection(
        self, connection_class: type[http.client.HTTPConnection], *args: Any, **kwargs: Any
    ) -> http.client.HTTPConnection:
        """An HTTP(S) connection that connects through `connect` and caps its answers."""
        connection = connection_class(*args, **kwargs)
        connection._create_connection = self.connect  # type: ignore[attr-defined]
        # http.client only calls response_class(sock, method=...): a partial will do.
        capped = functools.partial(_CappedResponse, guard=self)
        connection.response_class = capped  # type: ignore[assignment]
        return connection

    def decoded(self, response: Any) -> Any:
        """Undo gzip/deflate (asked for identity, but servers may compress anyway),
        with the same cap on the decoded size."""
        encoding = str(response.headers.get("Content-Encoding", "")).strip().lower()
        if encoding in ("", "identity"):
            return response
        wbits = {
            "gzip": zlib.MAX_WBITS | 16,
            "x-gzip": zlib.MAX_WBITS | 16,
            "deflate": zlib.MAX_WBITS,
        }
        if encoding not in wbits:
            message = f"Could not read the video page: unsupported {encoding} answer"
            raise self.refuse(SourceError(message))
        try:
            body = zlib.decompressobj(wbits[encoding]).decompress(
                response.read(), self.max_response_bytes + 1
            )
        except zlib.error as exc:
            raise OSError(f"broken {encoding} answer: {exc}") from None
        if len(body) > self.max_response_bytes:
            raise self.too_large()
        decoded = urllib.response.addinfourl(
            io.BytesIO(body), response.headers, response.url, response.code
        )
        decoded.msg = response.msg  # type: ignore[attr-defined]  # urllib reads it
        return decoded


class _CappedResponse(http.client.HTTPResponse):
    """An HTTP response that refuses to deliver more than the guard's cap."""

    def __init__(self, sock: socket.socket, *args: Any, guard: YtdlpGuard, **kwargs: Any) -> None:
        super().__init__(sock, *args, **kwargs)
        self.guard = guard
        self.received = 0

    def begin(self) -> None:
        super().begin()
        if self.length is not None and self.length > self.guard.max_response_bytes:
            raise self.guard.too_large()

    def read(self, amt: int | None = None) -> bytes:
        if amt is None or amt < 0:
            return b"".join(iter(functools.partial(self.read, READ_PIECE), b""))
        data = super().read(amt)
        self.received += len(data)
        if self.received > self.guard.max_response_bytes:
            raise self.guard.too_large()
        return data


def guarded_youtube_dl(options: dict[str, Any], guard: YtdlpGuard) -> Any:
    """A YoutubeDL for `options` whose only network path passes `guard`."""
    return _guarded_class()(options, guard)


@functools.cache
def _guarded_class() -> Any:
    """The YoutubeDL subclass, built on first use: importing yt-dlp is slow and only
    needed once a video is read."""
    from urllib.request import (
        HTTPCookieProcessor,
        HTTPDefaultErrorHandler,
        HTTPErrorProcessor,
        OpenerDirector,
        UnknownHandler,
    )

    from yt_dlp import YoutubeDL  # type: ignore[import-untyped]
    from yt_dlp.networking._urllib import (  # type: ignore[import-untyped]
        HTTPHandler,
        RedirectHandler,
        UrllibRH,
    )

    class GuardedHTTPHandler(HTTPHandler):  # type: ignore[misc]
        guard: YtdlpGuard

        def http_open(self, req: Any) -> Any:
            req.headers.pop("Ytdl-socks-proxy", None)  # no proxies, see video.py's options
            connect = functools.partial(self.guard.connection, http.client.HTTPConnection)
            return self.do_open(connect, req)

        def https_open(self, req: Any) -> Any:
            req.headers.pop("Ytdl-socks-proxy", None)
            connect = functools.partial(self.guard.connection, http.client.HTTPSConnection)
            return self.do_open(connect, req, context=self._context)

        def http_response(self, req: Any, response: Any) -> Any:
            return self.guard.decoded(response)

        https_response = http_response

    class GuardedUrllibRH(UrllibRH):  # type: ignore[misc]
        _SUPPORTED_URL_SCHEMES = ("http", "https")
        RH_NAME = "socialgen-guarded-urllib"

        def __init__(self, *, guard: YtdlpGuard, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.guard = guard

        def _create_instance(
            self, proxies: Any, cookiejar: Any, legacy_ssl_support: Any = None
        ) -> OpenerDirector:
            opener = OpenerDirector()
            context = self._make_sslcontext(legacy_ssl_support=legacy_ssl_support)
            http_handler = GuardedHTTPHandler(context=context)
            http_handler.guard = self.guard
            for handler in (
                http_handler,
                HTTPCookieProcessor(cookiejar),
                UnknownHandler(),  # no data:, file: or ftp: handler: those are refused
                HTTPDefaultErrorHandler(),
                HTTPErrorProcessor(),
                RedirectHandler(),  # each hop opens a new, guarded connection
            ):
                opener.add_handler(handler)
            opener.addheaders = []
            return opener

        def _prepare_headers(self, request: Any, headers: Any) -> None:
            headers["Accept-Encoding"] = "identity"

    class GuardedYoutubeDL(YoutubeDL):  # type: ignore[misc]
        def __init__(self, params: dict[str, Any], guard: YtdlpGuard) -> None:
            self.socialgen_guard = guard  # before yt-dlp's own set-up, which may connect
            super().__init__(params)

        @functools.cached_property
        def _request_director(self) -> Any:
            handler = functools.partial(GuardedUrllibRH, guard=self.socialgen_guard)
            return self.build_request_director([handler])

    return GuardedYoutubeDL
