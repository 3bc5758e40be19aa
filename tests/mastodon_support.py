"""A real Mastodon API server for the publishing tests: PyPI's `mastodon-mock` (MIT;
stateful, SQLite in memory, OAuth, v2 media, Idempotency-Key, fault injection) run as
its own process on a free 127.0.0.1 port, once per test session.

Use the `mastodon_mock` fixture (import it into a test module or conftest):

    server.base_url                      http://127.0.0.1:PORT
    server.new_user()                    a fresh account and its token (tests stay apart)
    server.fault("/api/v1/statuses", status=429, headers={"Retry-After": "7"})
    server.status_count(user)            counted on the server's side
    server.statuses(user)                every status of the user, newest first
    server.revoke(token), server.favourite(token, status_id)

Faults are one-shot by default (`count=1`); `clear_faults()` drops what is left.
"""

from __future__ import annotations

import itertools
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

STARTUP_TIMEOUT = 30.0
CONFIG = """\
media_storage_path = "{media}"

[database]
path = ":memory:"

[seed]
accounts = []
"""


@dataclass(frozen=True)
class MockUser:
    username: str
    token: str
    account_id: str


class MastodonMock:
    """A running mastodon-mock process and the mock-only calls the tests need."""

    def __init__(self, base_url: str, process: subprocess.Popen[bytes]) -> None:
        self.base_url = base_url
        self.process = process
        self._names = itertools.count(1)
        self._http = httpx.Client(base_url=base_url, timeout=10)

    def new_user(self, prefix: str = "user") -> MockUser:
        username = f"{prefix}{next(self._names)}"
        answer = self._ok(self._http.post("/api/v1/_mock/dev_user", json={"username": username}))
        return MockUser(username=username, token=answer["access_token"], account_id=answer["id"])

    def token(self, username: str) -> str:
        """Another valid token for an existing user."""
        answer = self._ok(self._http.post("/api/v1/_mock/login", json={"username": username}))
        return str(answer["access_token"])

    def fault(
        self,
        path: str,
        *,
        methods: tuple[str, ...] = ("POST",),
        status: int = 500,
        effect: str = "status",
        headers: dict[str, str] | None = None,
        body: Any = None,
        count: int | None = 1,
    ) -> str:
        """The next `count` matching requests get this answer instead (None: forever).
        `path` may hold `*` wildcards. Returns the rule's id."""
        rule: dict[str, Any] = {
            "match": {"methods": list(methods), "path": path},
            "effect": {"type": effect, "status": status, "headers": headers or {}},
            "count": count,
        }
        if body is not None:
            rule["effect"]["body"] = body
        return str(self._ok(self._http.post("/api/v1/_mock/faults", json=rule))["id"])

    def faults_left(self) -> list[dict[str, Any]]:
        answer: list[dict[str, Any]] = self._ok(self._http.get("/api/v1/_mock/faults"))
        return answer

    def clear_faults(self) -> None:
        self._ok(self._http.delete("/api/v1/_mock/faults"))

    def statuses(self, user: MockUser) -> list[dict[str, Any]]:
        """Every status of `user` (replies included), newest first, read page by page."""
        found: list[dict[str, Any]] = []
        params: dict[str, str | int] = {"limit": 40}
        while True:
            page = self._ok(
                self._http.get(
                    f"/api/v1/accounts/{user.account_id}/statuses",
                    params=params,
                    headers={"Authorization": f"Bearer {user.token}"},
                )
            )
            found.extend(page)
            if len(page) < 40:
                return found
            params["max_id"] = page[-1]["id"]

    def status_count(self, user: MockUser) -> int:
        return len(self.statuses(user))

    def status(self, status_id: str) -> dict[str, Any]:
        answer: dict[str, Any] = self._ok(self._http.get(f"/api/v1/statuses/{status_id}"))
        return answer

    def revoke(self, token: str) -> None:
        self._ok(self._http.post("/oauth/revoke", data={"token": token}))

    def favourite(self, token: str, status_id: str) -> None:
        self._ok(
            self._http.post(
                f"/api/v1/statuses/{status_id}/favourite",
                headers={"Authorization": f"Bearer {token}"},
            )
        )

    def reply(self, token: str, status_id: str, text: str) -> None:
        self._ok(
            self._http.post(
                "/api/v1/statuses",
                data={"status": text, "in_reply_to_id": status_id},
                headers={"Authorization": f"Bearer {token}"},
            )
        )

    def close(self) -> None:
        self._http.close()

    @staticmethod
    def _ok(response: httpx.Response) -> Any:
        response.raise_for_status()
        return response.json()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def start(workdir: Path) -> MastodonMock:
    media = workdir / "media"
    media.mkdir(parents=True, exist_ok=True)
    config = workdir / "mastodon_mock.toml"
    config.write_text(CONFIG.format(media=media.as_posix()), encoding="utf-8")
    port = free_port()
    with (workdir / "server.log").open("wb") as log:  # the child keeps its own handle
        process = subprocess.Popen(
            [
                *(sys.executable, "-m", "mastodon_mock", "serve", "--config", str(config)),
                *("--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=workdir,
        )
    base_url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        try:
            if httpx.get(f"{base_url}/api/v1/instance", timeout=1).status_code == 200:
                return MastodonMock(base_url, process)
        except httpx.HTTPError:
            time.sleep(0.1)
    stop(process)
    output = (workdir / "server.log").read_text(encoding="utf-8", errors="replace")
    raise RuntimeError(f"mastodon-mock did not start on port {port}:\n{output[-2000:]}")


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


@pytest.fixture(scope="session")
def mastodon_mock(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MastodonMock]:
    # The free port is probed, then bound by the server: another process may take
    # it in between, so a failed start is tried again on a new port.
    for attempt in range(3):
        try:
            server = start(tmp_path_factory.mktemp("mastodon_mock"))
            break
        except RuntimeError:
            if attempt == 2:
                raise
    try:
        yield server
    finally:
        server.close()
        stop(server.process)
