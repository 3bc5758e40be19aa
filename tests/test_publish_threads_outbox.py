"""Threads through the real outbox (a store, `publish_now`'s claim, worker and record)
against the fake Threads API: a long post goes live once as a thread, and a
publication whose publish was sent but never answered is not sent twice, neither by
the attempt itself nor by the user's --retry. Also `accounts add threads
--token-stdin` on a local command group (the same command accounts/cli.py registers)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import typer
from sqlmodel import select
from typer.testing import CliRunner

from socialgen.app.runtime import Runtime
from socialgen.cli.support import use_runtime
from socialgen.files.backends import files_of
from socialgen.kit.clock import iso, utcnow
from socialgen.publishing.accounts.add_threads_cli import add_threads
from socialgen.publishing.networks.base import NetworkSettings
from socialgen.publishing.networks.threads import adapter as threads
from socialgen.publishing.outbox.runner import publish_now
from socialgen.publishing.outbox.service import MAYBE_LIVE_SINCE
from socialgen.publishing.registry import Networks
from socialgen.publishing.secrets import SecretKeys, decrypt_secret, encrypt_secret
from socialgen.publishing.settings import PublishTerms
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import SocialAccount
from tests.conftest import BACKEND, Store
from tests.fakes.threads_routes import USER_ID, USERNAME
from tests.fakes.threads_server import FakeThreads, Fault
from tests.fakes.threads_support import LONG
from tests.keys_support import keys_now
from tests.outbox_support import publication

pytestmark = pytest.mark.skipif(
    BACKEND == "postgresql", reason="a network's tests run on SQLite only"
)


@pytest.fixture
def fake(networks: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeThreads]:
    """The fake on 127.0.0.1 (the guard lets it through), as the test's "threads"."""
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")
    networks["threads"] = threads
    with FakeThreads() as server:
        yield server


def add_account(store: Store, fake: FakeThreads) -> str:
    secret = {
        "access_token": fake.add_token(),
        "user_id": USER_ID,
        "issued_at": iso(utcnow()) or "",
    }
    with transaction(store.engine) as session:
        account = SocialAccount(
            workspace_id=store.workspace_id,
            network="threads",
            handle=f"@{USERNAME}",
            display_name="Ada Lovelace",
            service_url=fake.api_url,
            secret_ciphertext=encrypt_secret(secret, session, keys_now()),
        )
        session.add(account)
        session.flush()
        return account.id


def terms(networks: dict[str, Any]) -> PublishTerms:
    """The publishing terms as a face reads them, with the networks' settings (the
    fake lives on 127.0.0.1: allow_private_urls reaches the adapter through them)."""
    runtime = Runtime()
    test_networks = Networks(
        networks, NetworkSettings.of(runtime.settings), keys=SecretKeys.of(runtime)
    )
    return PublishTerms.of(runtime.settings, test_networks, files_of(runtime))


def publish(store: Store, networks: dict[str, Any], post_id: str, account: str, **kw: Any) -> Any:
    (view,) = publish_now(
        store.engine, store.workspace_id, post_id, [account], terms=terms(networks), **kw
    )
    return view


def test_a_long_post_goes_live_once_as_a_thread_through_the_outbox(
    store: Store, networks: dict[str, Any], fake: FakeThreads
) -> None:
    account = add_account(store, fake)
    post = store.post(LONG)
    view = publish(store, networks, post.id, account)
    assert view.state == "published", view.message
    texts = fake.live_texts()
    assert len(texts) == 3 and " ".join(texts).split() == LONG.split()
    row = publication(store, view.id)
    media = list(fake.state.media)
    assert row.part_ids == media and row.remote_id == media[0]
    assert (row.remote_url or "").startswith(f"https://www.threads.com/@{USERNAME}/post/")
    again = publish(store, networks, post.id, account)
    assert again.state == "published" and len(fake.live_texts()) == 3  # never twice


def test_a_publish_answered_by_nobody_is_found_and_never_sent_twice(
    store: Store, networks: dict[str, Any], fake: FakeThreads
) -> None:
    account = add_account(store, fake)
    post = store.post("Small teams ship weekly.")
    fake.state.container_polls = 0
    fake.add_fault(Fault("drop", path="/threads_publish", after_processing=True))
    view = publish(store, networks, post.id, account)
    assert view.state == "published"  # the attempt looked, and found it
    assert fake.live_texts() == ["Small teams ship weekly."]
    assert len(fake.requests_to("/threads_publish")) == 1


def test_an_unknown_outcome_is_settled_on_the_account_by_the_retry(
    store: Store, networks: dict[str, Any], fake: FakeThreads
) -> None:
    account = add_account(store, fake)
    post = store.post("Small teams ship weekly.")
    fake.state.container_polls = 0
    fake.add_fault(Fault("drop", path="/threads_publish", after_processing=True))
    # Neither the listing nor the container's state can be read after it.
    fake.add_fault(Fault("status", path=f"{USER_ID}/threads", method="GET", status=503))
    status = "status,error_message"
    fake.add_fault(Fault("status", fields=status, status=503, skip=1))
    view = publish(store, networks, post.id, account)
    assert view.state == "unknown" and "check your Threads profile" in view.message
    assert MAYBE_LIVE_SINCE in (publication(store, view.id).options or {})
    retried = publish(store, networks, post.id, account, retry=True)
    assert retried.state == "published"
    assert fake.live_texts() == ["Small teams ship weekly."]  # looked for, not resent
    assert len(fake.requests_to("/threads_publish")) == 1
    assert publication(store, view.id).remote_id == next(iter(fake.state.media))


def test_accounts_add_threads_takes_a_token_on_stdin(
    store: Store, networks: dict[str, Any], fake: FakeThreads
) -> None:
    app = typer.Typer()
    app.callback()(use_runtime)  # the root's part: the Runtime handed in, for the command
    app.command("threads")(add_threads)
    token = fake.add_token()
    result = CliRunner().invoke(
        app,
        ["threads", "--token-stdin", "--service", fake.api_url, "--json"],
        input=token + "\n",
        obj=Runtime(networks=networks),
    )
    assert result.exit_code == 0, result.output
    assert token not in result.output and f"@{USERNAME}" in result.output
    with read_session(store.engine) as session:
        (account,) = session.exec(select(SocialAccount)).all()
        stored = decrypt_secret(account.secret_ciphertext, keys_now())
    assert (account.network, account.handle, account.service_url) == (
        "threads",
        f"@{USERNAME}",
        fake.api_url,
    )
    assert stored["access_token"] == token and stored["user_id"] == USER_ID
