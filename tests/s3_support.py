"""A real S3-protocol server for the bucket tests: moto's server mode in its own
process on 127.0.0.1 (from PyPI, pure Python, up in about a second; MinIO ships no
PyPI package), a fresh bucket per test, and a proxy in front of it that can refuse
writes or go down, as a real bucket does on a bad day.

The tests read and write the bucket with boto3 (moto's own dependency), never
through socialgen's obstore client, so they check what really is in the bucket.
"""

from __future__ import annotations

import http.server
import itertools
import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

REGION = "us-east-1"
CREDENTIALS = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[bytes], seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"nothing listens on {port}") from None
            time.sleep(0.05)


@pytest.fixture(scope="session")
def s3_server() -> Iterator[str]:
    """The endpoint URL of a moto S3 server process, for the whole session."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(port, process)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=10)


@dataclass
class Bucket:
    name: str
    prefix: str
    endpoint: str  # moto itself, for boto3

    @property
    def url(self) -> str:
        return f"s3://{self.name}/{self.prefix}"

    def client(self) -> Any:
        import boto3

        return boto3.client(
            "s3",
            endpoint_url=self.endpoint,
            region_name=REGION,
            aws_access_key_id=CREDENTIALS["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
        )

    def objects(self, under: str = "") -> list[str]:
        """Every key under the socialgen prefix (without it), sorted."""
        paginator = self.client().get_paginator("list_objects_v2")
        start = f"{self.prefix}/{under}"
        found = []
        for page in paginator.paginate(Bucket=self.name, Prefix=start):
            found += [
                item["Key"].removeprefix(f"{self.prefix}/") for item in page.get("Contents", [])
            ]
        return sorted(found)

    def read(self, key: str) -> bytes:
        body = self.client().get_object(Bucket=self.name, Key=f"{self.prefix}/{key}")["Body"]
        return bytes(body.read())

    def write(self, key: str, data: bytes) -> None:
        self.client().put_object(Bucket=self.name, Key=f"{self.prefix}/{key}", Body=data)

    def env(self, endpoint: str | None = None) -> dict[str, str]:
        """What a socialgen process needs to keep its files here (through `endpoint`,
        e.g. a proxy, when given)."""
        return {
            "SOCIALGEN_FILES_URL": self.url,
            "AWS_ENDPOINT_URL": endpoint or self.endpoint,
            "AWS_REGION": REGION,
            **CREDENTIALS,
        }


def new_bucket(endpoint: str) -> Bucket:
    bucket = Bucket(name=f"sg-{uuid.uuid4().hex[:12]}", prefix="team", endpoint=endpoint)
    bucket.client().create_bucket(Bucket=bucket.name)
    return bucket


@pytest.fixture
def bucket(s3_server: str, monkeypatch: pytest.MonkeyPatch) -> Bucket:
    """A fresh bucket that socialgen in this process keeps its files in."""
    made = new_bucket(s3_server)
    for name, value in made.env().items():
        monkeypatch.setenv(name, value)
    return made


class FaultyS3:
    """An HTTP proxy in front of the S3 server that can refuse object writes after a
    number of them (403 AccessDenied, as a bucket policy or a full quota answers) or
    drop every connection (a bucket that is down)."""

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.writes_allowed: int | None = None  # None: all
        self.down = False
        self.refused = 0
        self.dropped = 0  # requests cut off while down: the client's attempts
        self.accepted = 0  # object writes let through
        self._writes = itertools.count()
        self._lock = threading.Lock()
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_args: Any) -> None:
                pass

            def _relay(self) -> None:
                if proxy.down:
                    with proxy._lock:
                        proxy.dropped += 1
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                if self.command == "PUT" and proxy.refuse_write():
                    self._answer(403, ACCESS_DENIED, {"content-type": "application/xml"})
                    return
                headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
                reply = httpx.request(
                    self.command, proxy.upstream + self.path, headers=headers, content=body
                )
                kept = {k: v for k, v in reply.headers.items() if k.lower() not in HOP}
                self._answer(reply.status_code, reply.content, kept)

            def _answer(self, status: int, body: bytes, headers: dict[str, str]) -> None:
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(body)

            do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = _relay

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def refuse_write(self) -> bool:
        with self._lock:
            if self.writes_allowed is not None and next(self._writes) >= self.writes_allowed:
                self.refused += 1
                return True
            self.accepted += 1
            return False

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


HOP = {"connection", "keep-alive", "transfer-encoding", "content-length", "host"}
ACCESS_DENIED = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code>'
    b"<Message>Access Denied</Message></Error>"
)


@pytest.fixture
def faulty_bucket(
    s3_server: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Bucket, FaultyS3]]:
    """A fresh bucket that socialgen reaches through the FaultyS3 proxy."""
    made = new_bucket(s3_server)
    proxy = FaultyS3(s3_server)
    for name, value in made.env(proxy.endpoint).items():
        monkeypatch.setenv(name, value)
    try:
        yield made, proxy
    finally:
        proxy.close()


def child_env(**extra: str) -> dict[str, str]:
    """This process's environment (the bucket and model variables set by fixtures)."""
    return {**os.environ, **extra}
