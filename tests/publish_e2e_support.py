"""Shared by the end-to-end publishing tests (test_publish_end_to_end*.py): the CLI
run in-process (typer's CliRunner) and HTTP answers, every word of which a `Witness`
keeps, so each test ends by checking that no secret it handed to socialgen (tokens,
app passwords, the session tokens socialgen stored) appears in any of them or in any
log record.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from sqlmodel import select
from typer.testing import CliRunner, Result

from socialgen.app.runtime import Runtime
from socialgen.cli.main import app
from socialgen.publishing.secrets import decrypt_secret
from socialgen.store.engine import read_session
from socialgen.store.tables import SocialAccount
from tests.conftest import Store
from tests.keys_support import keys_now

runner = CliRunner()
_SPACE = re.compile(r"\s+")
# Stored fields that are secrets (a DID or a client id sits beside them, and is not).
SECRET_NAMES = re.compile(r"password|token|jwt|secret", re.IGNORECASE)
SHORTEST_SECRET = 8  # shorter stored values (a client id, "Bearer") are not secrets


@dataclass
class Witness:
    """What socialgen said during a test, and the secrets it must never have said."""

    secrets: set[str] = field(default_factory=set)
    said: list[tuple[str, str]] = field(default_factory=list)  # (where, text)
    runtime: Runtime | None = None  # what `cli` runs with (the configured models if None)

    def secret(self, *values: str) -> None:
        self.secrets.update(v for v in values if len(v) >= SHORTEST_SECRET)

    def saw(self, where: str, text: str) -> None:
        self.said.append((where, text))

    def cli(self, *args: str, stdin: str | None = None, code: int | None = 0) -> Result:
        """Run `socialgen ARGS` in-process; check its exit code unless `code` is None."""
        result = runner.invoke(app, list(args), input=stdin, obj=self.runtime)
        where = "socialgen " + " ".join(args)
        self.saw(f"{where} (stdout)", result.stdout)
        self.saw(f"{where} (stderr)", result.stderr)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            self.saw(f"{where} (exception)", repr(result.exception))
        if code is not None:
            assert result.exit_code == code, f"{where}: {result.output}\n{result.exception!r}"
        return result

    def cli_json(self, *args: str, stdin: str | None = None, code: int | None = 0) -> Any:
        return json.loads(self.cli(*args, "--json", stdin=stdin, code=code).stdout)

    def http(self, response: httpx.Response) -> httpx.Response:
        self.saw(f"HTTP {response.request.method} {response.request.url.path}", response.text)
        return response

    def stored_secrets(self, store: Store) -> None:
        """Every secret socialgen keeps for the workspace's accounts (session tokens
        included) is one it must never show."""
        with read_session(store.engine) as session:
            for account in session.exec(select(SocialAccount)).all():
                stored = decrypt_secret(account.secret_ciphertext, keys_now())
                self.secret(*(v for k, v in stored.items() if SECRET_NAMES.search(k)))

    def leaks(self, records: list[logging.LogRecord]) -> list[str]:
        texts = list(self.said)
        for record in records:
            text = record.getMessage()
            if record.exc_info:
                text += logging.Formatter().formatException(record.exc_info)
            texts.append((f"log {record.name}", text))
        found = []
        for where, text in texts:
            squeezed = _SPACE.sub("", text)  # a secret wrapped across lines is still there
            found += [f"{where}: {s[:4]}…" for s in self.secrets if s in text or s in squeezed]
        return found


@pytest.fixture
def witness(caplog: pytest.LogCaptureFixture) -> Iterator[Witness]:
    """The test's witness; at the end no secret may be in what it saw or in the logs."""
    caplog.set_level(logging.DEBUG)
    seen = Witness()
    yield seen
    assert seen.secrets, "the test handed socialgen no secret to look for"
    assert seen.said, "the test saw nothing socialgen said"
    records = [r for phase in ("setup", "call") for r in caplog.get_records(phase)]
    leaks = seen.leaks(records)
    assert not leaks, f"secrets shown: {leaks}"


def account_id(accounts: list[dict[str, Any]], network: str) -> str:
    (found,) = [a["id"] for a in accounts if a["network"] == network]
    return str(found)


def find_post(posts: Any, post_id: str) -> dict[str, Any]:
    """A post in `posts recent --json` (a list, or an object holding one)."""
    items = (
        posts if isinstance(posts, list) else next(v for v in posts.values() if isinstance(v, list))
    )
    (found,) = [p for p in items if p.get("id") == post_id or p.get("postId") == post_id]
    return dict(found)
