"""X through the real outbox: `accounts add x --token-stdin` stores the account, the
outbox publishes a post once, and a publication whose answer was lost after X
created it (and a thread cut there) is never sent twice: the retry finds it on the
account's timeline. Runs on SQLite only: a network's tests run on one database."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from socialgen.app.runtime import Runtime
from socialgen.cli.support import use_runtime
from socialgen.files.backends import files_of
from socialgen.publishing.accounts.add_x_cli import add_x
from socialgen.publishing.networks.x import adapter as x
from socialgen.publishing.outbox.runner import publish_now
from socialgen.publishing.registry import Networks
from socialgen.publishing.settings import PublishTerms
from tests.conftest import BACKEND, Store
from tests.fakes.x_server import FakeX
from tests.fakes.x_support import (
    THREAD,
    on_create,
)
from tests.fakes.x_support import _quick_second_look as _quick_second_look  # autouse
from tests.fakes.x_support import fake as fake  # the fixture

pytestmark = pytest.mark.skipif(
    BACKEND == "postgresql", reason="a network's tests run on SQLite only"
)


@pytest.fixture
def on_x(
    store: Store, networks: dict[str, Any], fake: FakeX, monkeypatch: pytest.MonkeyPatch
) -> FakeX:
    """The fake X as the Runtimes' "x" network, reachable on 127.0.0.1."""
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")
    networks["x"] = x
    return fake


def add_account(fake: FakeX, networks: dict[str, Any]) -> str:
    """`socialgen accounts add x --token-stdin` (registered in accounts/cli.py; here
    the same command sits on an app of its own)."""
    app = typer.Typer()
    app.callback()(use_runtime)
    app.command("x")(add_x)
    token = fake.add_token()
    args = ["x", "--token-stdin", "--service", fake.base_url, "--json"]
    result = CliRunner().invoke(app, args, input=token + "\n", obj=Runtime(networks=networks))
    assert result.exit_code == 0, result.output
    assert token not in result.output
    added = json.loads(result.stdout)
    assert (added["network"], added["handle"]) == ("x", "@ada_ships")
    return str(added["id"])


def publish(store: Store, networks: dict[str, Any], post_id: str, account: str, **kw: Any) -> Any:
    """`posts publish` as a face runs it: the Runtime's networks, with its settings
    (allow_private_urls: the fake is on 127.0.0.1)."""
    runtime = Runtime(networks=networks)
    terms = PublishTerms.of(runtime.settings, Networks.of(runtime), files_of(runtime))
    try:
        (row,) = publish_now(
            store.engine, store.workspace_id, post_id, [account], terms=terms, **kw
        )
    finally:
        runtime.close()
    return row


def creates(fake: FakeX) -> int:
    return len(fake.requests_to("/2/tweets", "POST"))


def test_the_outbox_publishes_a_post_to_x_once(
    store: Store, on_x: FakeX, networks: dict[str, Any]
) -> None:
    account = add_account(on_x, networks)
    post = store.post("Shipping weekly, live on X from the outbox.")
    row = publish(store, networks, post.id, account)
    assert row.state == "published", row.message
    (tweet,) = on_x.posts
    assert row.state == "published" and row.remoteId == tweet.id
    assert row.url == f"https://x.com/ada_ships/status/{tweet.id}"
    again = publish(store, networks, post.id, account)
    assert again.state == "published" and creates(on_x) == 1


def test_an_answer_lost_after_x_created_the_post_is_not_sent_twice(
    store: Store, on_x: FakeX, networks: dict[str, Any]
) -> None:
    account = add_account(on_x, networks)
    post = store.post("Created on X, the answer lost on the way back.")
    on_x.state.timeline_lag = timedelta(minutes=5)  # not listed yet when we look
    on_x.add_fault(on_create("drop", after_processing=True))
    first = publish(store, networks, post.id, account)
    assert first.state == "unknown" and "check https://x.com/ada_ships" in first.message
    assert len(on_x.posts) == 1
    on_x.state.timeline_lag = timedelta(0)  # the user checks, and asks again
    retry = publish(store, networks, post.id, account, retry=True)
    (tweet,) = on_x.posts
    assert retry.state == "published" and retry.remoteId == tweet.id
    assert creates(on_x) == 1  # found on the timeline, never sent again


def test_a_thread_cut_by_a_lost_answer_resumes_where_it_stopped(
    store: Store, on_x: FakeX, networks: dict[str, Any]
) -> None:
    account = add_account(on_x, networks)
    post = store.post(THREAD)
    on_x.state.timeline_lag = timedelta(minutes=5)
    on_x.add_fault(on_create("drop", after_processing=True, skip=1))
    assert publish(store, networks, post.id, account).state == "unknown"
    assert len(on_x.posts) == 2  # part 1 recorded by the outbox, part 2 live unanswered
    on_x.state.timeline_lag = timedelta(0)
    retry = publish(store, networks, post.id, account, retry=True)
    tweets = on_x.posts
    assert retry.state == "published" and retry.remoteId == tweets[0].id
    assert len(tweets) == 3 and creates(on_x) == 3
    assert [t.reply_to for t in tweets] == [None, tweets[0].id, tweets[1].id]
