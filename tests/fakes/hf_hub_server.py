"""A stand-in for the Hugging Face hub on 127.0.0.1 (HF_ENDPOINT points at it), as
huggingface_hub talks to it for one file:

    HEAD {hub}/{owner}/{repo}/resolve/{revision}/{path}
      -> 302 to the CDN, with X-Repo-Commit, X-Linked-Etag (the file's sha256) and
         X-Linked-Size, as the hub answers for a file stored in LFS; 404 with
         X-Error-Code RepoNotFound / EntryNotFound / RevisionNotFound otherwise.
    GET {cdn}/blobs/{sha256}   (another port: another origin, as the real CDN is)
      -> 200 with the bytes, or 206 from a `Range: bytes=N-` header.

Faults, switched on by the test: `cut_next` sends half the bytes of the next GET
and drops the connection, and the CDN then answers 503 until `down` is cleared;
`corrupt` serves other bytes (of the same length) than the advertised sha256.
Every request is recorded (method, path, Range header).
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

COMMIT = "0123456789abcdef0123456789abcdef01234567"
_RESOLVE = re.compile(r"^/([^/]+/[^/]+)/resolve/([^/]+)/(.+)$")
_RANGE = re.compile(r"^bytes=(\d+)-$")


@dataclass
class Request:
    method: str
    path: str
    range: str | None


@dataclass
class FakeHub:
    files: dict[tuple[str, str], bytes]  # (repo, path) -> content
    hub_url: str = ""
    cdn_url: str = ""
    requests: list[Request] = field(default_factory=list)
    cut_next: bool = False
    down: bool = False
    corrupt: bool = False
    advertised_size: int | None = None  # a lie about X-Linked-Size (disk-space tests)

    def sha256(self, repo: str, path: str) -> str:
        return hashlib.sha256(self.files[(repo, path)]).hexdigest()

    def blob(self, sha: str) -> bytes | None:
        for content in self.files.values():
            if hashlib.sha256(content).hexdigest() == sha:
                return bytes(reversed(content)) if self.corrupt else content
        return None

    def ranges(self) -> list[str | None]:
        return [r.range for r in self.requests if r.method == "GET"]


class _HubHandler(BaseHTTPRequestHandler):
    hub: FakeHub
    protocol_version = "HTTP/1.1"

    def do_HEAD(self) -> None:
        self.hub.requests.append(Request("HEAD", self.path, self.headers.get("Range")))
        found = _RESOLVE.match(self.path)
        if not found:
            return self._error(404, "RepoNotFound")
        repo, revision, path = found.groups()
        if not any(known_repo == repo for known_repo, _ in self.hub.files):
            return self._error(404, "RepoNotFound")
        if revision not in ("main", COMMIT):
            return self._error(404, "RevisionNotFound")
        if (repo, path) not in self.hub.files:
            return self._error(404, "EntryNotFound")
        sha = self.hub.sha256(repo, path)
        size = self.hub.advertised_size or len(self.hub.files[(repo, path)])
        self.send_response(302)
        self.send_header("Location", f"{self.hub.cdn_url}/blobs/{sha}")
        self.send_header("X-Repo-Commit", COMMIT)
        self.send_header("X-Linked-Etag", f'"{sha}"')
        self.send_header("X-Linked-Size", str(size))
        self.send_header("ETag", '"0123456789abcdef0123456789abcdef01234567"')
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _error(self, status: int, code: str) -> None:
        self.send_response(status)
        self.send_header("X-Error-Code", code)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _CdnHandler(BaseHTTPRequestHandler):
    hub: FakeHub
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        hub = self.hub
        hub.requests.append(Request("GET", self.path, self.headers.get("Range")))
        content = hub.blob(self.path.rpartition("/")[2])
        if content is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if hub.down:
            self.send_response(503)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        start = 0
        asked = _RANGE.match(self.headers.get("Range") or "")
        if asked:
            start = int(asked.group(1))
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(content) - 1}/{len(content)}")
        else:
            self.send_response(200)
        body = content[start:]
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        if hub.cut_next:
            hub.cut_next = False
            hub.down = True  # the network stays down: the in-process retries fail too
            self.wfile.write(body[: len(body) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@contextmanager
def running_hub(files: dict[tuple[str, str], bytes]) -> Iterator[FakeHub]:
    hub = FakeHub(files)
    servers = []
    for handler in (_HubHandler, _CdnHandler):
        bound = type(handler.__name__, (handler,), {"hub": hub})
        server = ThreadingHTTPServer(("127.0.0.1", 0), bound)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        servers.append(server)
    hub.hub_url = f"http://127.0.0.1:{servers[0].server_address[1]}"
    hub.cdn_url = f"http://127.0.0.1:{servers[1].server_address[1]}"
    try:
        yield hub
    finally:
        for server in servers:
            server.shutdown()
            server.server_close()
