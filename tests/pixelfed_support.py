"""Pixelfed for the publishing tests: mastodon-mock (a real Mastodon API server, run by
tests/mastodon_support.py) behind a thin proxy on 127.0.0.1 that applies Pixelfed's
own rules, as its ApiV1Controller does (pixelfed/pixelfed, app/Http/Controllers/Api):

- /api/v1/instance and /api/v2/instance say Pixelfed's limits (`max_characters`,
  `max_media_attachments`, `supported_mime_types`), set per test;
- POST /api/v1/statuses: an Idempotency-Key seen before is refused, 400 "Duplicate
  idempotency key." (it is remembered before the post is made, and never replayed);
  a status without media is refused, 403 "Empty statuses are not allowed"; a caption
  or album over the limits is Laravel's validation failure, which Pixelfed answers
  500 with `message` and `errors` when asked for JSON;
- faults of its own for the create call: `throttle` (429s with these headers, as
  Laravel's throttle middleware answers before the controller), `lose_answers` (the
  post is made, the connection closed unanswered), `swallow` (the key taken, nothing
  made, closed), `late` (closed unanswered at once, the post made `late_seconds`
  later: a queue on the instance), `hold_seconds` (made, answered too late).

Everything else goes to the mock as it came. `requests` lists what reached the proxy.

    proxy, server                        the fixtures: one proxy a module, reset a test
    server.base_url                      http://127.0.0.1:PORT, in front of the mock
    server.max_characters = 150          what /api/v*/instance says from now on
    server.lose_answers = 1              the next post is made and its answer lost
    server.sent("POST", STATUSES)        how many create calls reached Pixelfed
    adapter(server, user), photo("key")  an adapter for a mock user, a one-image post
"""

from __future__ import annotations

import io
import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest
from PIL import Image

from socialgen.publishing.networks.base import (
    AccountCredentials,
    MediaItem,
    NetworkSettings,
    OutgoingPost,
    PublishError,
)
from socialgen.publishing.networks.pixelfed import adapter as pixelfed
from tests.mastodon_support import MastodonMock, MockUser

HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "host"}
STATUSES = "/api/v1/statuses"
PIXELFED_VERSION = "3.5.3 (compatible; Pixelfed 0.12.4)"


class PixelfedProxy:
    def __init__(self, upstream: str) -> None:
        self.upstream = upstream.rstrip("/")
        self.max_characters = 500
        self.max_media = 4
        self.mime_types = ["image/jpeg", "image/png", "image/gif"]
        self.has_v2 = True  # False: an older Pixelfed, /api/v1/instance only
        self.throttle: list[dict[str, str]] = []
        self.lose_answers = 0
        self.swallow = 0
        self.late = 0
        self.late_seconds = 1.0
        self.hold_seconds = 0.0
        self.requests: list[tuple[str, str]] = []
        self.keys: set[tuple[str, str]] = set()
        self._lock = threading.Lock()
        self._http = httpx.Client(timeout=30)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> PixelfedProxy:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._http.close()

    def reset(self) -> None:
        """Pixelfed's defaults again, no faults, nothing seen (keys are kept, as the
        instance's cache keeps them)."""
        self.max_characters, self.max_media, self.has_v2 = 500, 4, True
        self.mime_types = ["image/jpeg", "image/png", "image/gif"]
        self.throttle = []
        self.lose_answers = self.swallow = self.late = 0
        self.hold_seconds = 0.0
        self.requests.clear()

    def sent(self, method: str, path: str) -> int:
        return sum(1 for seen in self.requests if seen == (method, path))

    def instance(self, version: int) -> dict[str, Any]:
        statuses = {
            "max_characters": self.max_characters,
            "max_media_attachments": self.max_media,
            "characters_reserved_per_url": 23,
        }
        media = {"supported_mime_types": list(self.mime_types), "image_size_limit": 15_360_000}
        where = {"uri" if version == 1 else "domain": "pixelfed.test"}
        return {
            **where,
            "title": "Pixelfed",
            "version": PIXELFED_VERSION,
            "configuration": {"statuses": statuses, "media_attachments": media},
        }

    def create_rule(
        self, token: str, key: str, form: dict[str, list[str]]
    ) -> tuple[int, Any] | None:
        """Pixelfed's statusCreate in the order it checks: validation, the key, media."""
        caption = (form.get("status") or [""])[0]
        media_ids = form.get("media_ids[]") or []
        invalid: dict[str, list[str]] = {}
        if len(caption) > self.max_characters:
            limit = f"must not be greater than {self.max_characters} characters."
            invalid["status"] = [f"The status {limit}"]
        if len(media_ids) > self.max_media:
            invalid["media_ids"] = [
                f"The media ids must not have more than {self.max_media} items."
            ]
        if invalid:
            first = next(iter(invalid.values()))[0]
            return 500, {"message": first, "errors": invalid}
        if key:
            with self._lock:
                if (token, key) in self.keys:
                    return 400, {"error": "Duplicate idempotency key."}
                self.keys.add((token, key))
        if not media_ids and not form.get("in_reply_to_id"):
            return 403, {"error": "Empty statuses are not allowed"}
        return None

    def take(self, name: str) -> bool:
        with self._lock:
            left = int(getattr(self, name))
            if left > 0:
                setattr(self, name, left - 1)
            return left > 0


def _handler(proxy: PixelfedProxy) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:  # quiet test output
            pass

        def do_GET(self) -> None:
            self._handle()

        def do_POST(self) -> None:
            self._handle()

        def do_PUT(self) -> None:
            self._handle()

        def do_DELETE(self) -> None:
            self._handle()

        def _handle(self) -> None:
            path = self.path.split("?")[0].rstrip("/") or "/"
            proxy.requests.append((self.command, path))
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            if self.command == "GET" and path in ("/api/v1/instance", "/api/v2/instance"):
                version = 1 if path.startswith("/api/v1") else 2
                if version == 2 and not proxy.has_v2:
                    return self._answer(404, {"error": "Not found"})
                return self._answer(200, proxy.instance(version))
            key = self.headers.get("Idempotency-Key", "")
            if self.command == "POST" and path == STATUSES and proxy.throttle:
                return self._answer(429, {"error": "Too Many Attempts."}, proxy.throttle.pop(0))
            if self.command == "POST" and path == STATUSES:
                token = self.headers.get("Authorization", "")
                form = parse_qs(body.decode("utf-8"), keep_blank_values=True)
                refused = proxy.create_rule(token, key, form)
                if refused is not None:
                    return self._answer(*refused)
                if proxy.take("swallow"):
                    self.close_connection = True  # the key is taken, nothing is made
                    return
                if proxy.take("late"):
                    self.connection.shutdown(socket.SHUT_RDWR)  # the client hears nothing
                    self.close_connection = True
                    time.sleep(proxy.late_seconds)
                    self._forward(body)  # and the instance makes the post afterwards
                    return
            answer = self._forward(body)
            if self.command == "POST" and path == STATUSES:
                if proxy.take("lose_answers"):
                    self.close_connection = True  # made, and the client hears nothing
                    return
                time.sleep(proxy.hold_seconds)
            self._relay(answer)

        def _forward(self, body: bytes) -> httpx.Response:
            skip = HOP_BY_HOP | {"idempotency-key"}  # Pixelfed never replays a key
            headers = {k: v for k, v in self.headers.items() if k.lower() not in skip}
            return proxy._http.request(
                self.command, proxy.upstream + self.path, headers=headers, content=body
            )

        def _relay(self, answer: httpx.Response) -> None:
            self.send_response(answer.status_code)
            for name, value in answer.headers.items():
                if name.lower() not in HOP_BY_HOP | {"content-encoding"}:
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(answer.content)))
            self.end_headers()
            self.wfile.write(answer.content)

        def _answer(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


# --- what the tests share --------------------------------------------------------------

ALLOWED = NetworkSettings(allow_private_urls=True)  # the servers live on 127.0.0.1
CAPTION = "Morning light over the harbour #photography"


@pytest.fixture(scope="module")
def proxy(mastodon_mock: MastodonMock) -> Iterator[PixelfedProxy]:
    """The proxy in front of the session's mastodon-mock, one per test module."""
    with PixelfedProxy(mastodon_mock.base_url) as running:
        yield running


@pytest.fixture
def server(proxy: PixelfedProxy, mastodon_mock: MastodonMock) -> Iterator[PixelfedProxy]:
    """The proxy as Pixelfed's defaults, for one test."""
    proxy.reset()
    yield proxy
    proxy.reset()
    mastodon_mock.clear_faults()  # one a test did not use up must not hit the next


def adapter(
    server: PixelfedProxy, user: MockUser, *, private: bool = True, **kwargs: Any
) -> pixelfed.PixelfedAdapter:
    credentials = AccountCredentials("pixelfed", server.base_url, "", {"access_token": user.token})
    return pixelfed.PixelfedAdapter(credentials, lambda _: None, allow_private=private, **kwargs)


def png(colour: str) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8), colour).save(out, "PNG")
    return out.getvalue()


def slides(*colours: str) -> tuple[MediaItem, ...]:
    return tuple(MediaItem("image", png(c), "image/png", alt_text=f"Slide {c}") for c in colours)


PDF = MediaItem("document", b"%PDF-1.4 deck", "application/pdf", title="deck")


def photo(
    key: str, text: str = CAPTION, media: tuple[MediaItem, ...] | None = None, **kw: Any
) -> OutgoingPost:
    return OutgoingPost(
        publication_id=key,
        idempotency_key=f"pub-{key}",
        text=text,
        media=slides("red") if media is None else media,
        **kw,
    )


def failure(call: Any, *secrets: str) -> PublishError:
    with pytest.raises(PublishError) as caught:
        call()
    for secret in secrets:
        assert secret not in caught.value.message
    return caught.value
