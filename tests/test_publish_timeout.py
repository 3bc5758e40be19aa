"""A post sent, then no answer. Mastodon: mastodon-mock behind a loopback proxy that passes
the POST on (the status goes live) and never answers. The message says what is
known (sent, maybe live) and what happens next (a retry with the same
Idempotency-Key), not that the connection failed; and the retry makes no second
status. The request timeout is lowered for the test: never a real minute's wait."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from atproto_client import exceptions as xrpc  # type: ignore[import-untyped]
from typer.testing import CliRunner

from socialgen.cli.main import app
from socialgen.kit.clock import utcnow
from socialgen.publishing.networks.bluesky.session import as_publish_error
from socialgen.store.engine import transaction
from socialgen.store.tables import Publication
from tests.conftest import Store
from tests.hang_proxy import HangProxy, SilentServer
from tests.mastodon_support import MastodonMock, free_port
from tests.mastodon_support import mastodon_mock as mastodon_mock  # the fixture
from tests.outbox_support import due_publication

runner = CliRunner()


def cli(*args: str, stdin: str | None = None, code: int = 0) -> Any:
    result = runner.invoke(app, [*args, "--json"], input=stdin)
    assert result.exit_code == code, result.output
    return json.loads(result.stdout)


def test_a_timeout_after_sending_says_the_status_may_be_live_and_the_retry_is_safe(
    store: Store, mastodon_mock: MastodonMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")
    monkeypatch.setattr("socialgen.publishing.networks.mastodon.adapter.REQUEST_TIMEOUT", 2.0)
    user = mastodon_mock.new_user("silence")
    with HangProxy(mastodon_mock.base_url, hang_on=("POST", "/api/v1/statuses")) as proxy:
        account = cli(
            "accounts", "add", "mastodon", "--instance", proxy.base_url, "--token-stdin",
            stdin=user.token + "\n",
        )["id"]  # fmt: skip
        post_id, _ = due_publication(store, account, content="Sent, then silence.")

        first = cli("publish-due")
        assert (first["published"], first["retrying"]) == (0, 1), first
        (row,) = cli("posts", "publications", post_id)["publications"]
        assert proxy.hung == 1 and mastodon_mock.status_count(user) == 1  # it is live
        assert row["state"] == "queued", row
        message = row["message"]
        for words in (
            f"no answer from {proxy.base_url} within 2 s after the request was sent",
            "the status may be live",
            "retried with the same Idempotency-Key",
            "instead of posting it again",
        ):
            assert words in message, (words, message)
        assert "could not reach" not in message and "connection failed" not in message

        proxy.hang_on = None  # the network answers again; the retry is due now
        with transaction(store.engine) as session:
            session.execute(sa.update(Publication).values(next_attempt_at=utcnow()))
        done = cli("publish-due")
        assert done["published"] == 1, done
    assert mastodon_mock.status_count(user) == 1  # the retry made no second status


def test_a_bluesky_call_sent_then_unanswered_says_so_and_that_the_retry_is_safe() -> None:
    """atproto turns httpx's read timeout into InvokeTimeoutError (the cause kept)."""
    with SilentServer() as silent, httpx.Client(timeout=0.3) as http:
        try:
            try:
                http.post(f"{silent.base_url}/xrpc/com.atproto.repo.createRecord", json={})
            except httpx.TimeoutException as timeout:
                raise xrpc.InvokeTimeoutError from timeout
        except xrpc.InvokeTimeoutError as error:
            failure = as_publish_error(error, "posting")
    assert failure.retryable and not failure.outcome_unknown
    assert failure.message.startswith(
        "Bluesky posting: no answer within 0.3 s after the request was sent, so it may have "
        "been carried out (a post may be live). It will be retried safely"
    ), failure.message


def test_a_bluesky_server_that_is_not_there_is_a_connection_failure() -> None:
    with httpx.Client(timeout=0.3) as http:
        try:
            http.get(f"http://127.0.0.1:{free_port()}/xrpc/x")
        except httpx.TransportError as error:
            failure = as_publish_error(error, "sign-in")
    assert failure.retryable and failure.message == "Bluesky sign-in: the connection failed"
