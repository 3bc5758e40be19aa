"""Nostr through the product's own faces and the real outbox, on a real store: the key
connected with `accounts add nostr` (the real command line), a post
published with `posts publish` and found once on the real relay, its counts read with
`posts stats --refresh`; a first attempt whose answer was lost after the note reached
the relay is retried and finds that note: the relay holds it once."""

from __future__ import annotations

import json
import secrets
from datetime import timedelta
from typing import Any

import pytest
from typer.testing import CliRunner

from socialgen.app.runtime import Runtime
from socialgen.cli.main import app
from socialgen.kit.clock import utcnow
from socialgen.publishing.networks.nostr import adapter as nostr
from socialgen.publishing.networks.nostr.keys import Signer, signed_event, signer_from
from socialgen.publishing.outbox import cli as outbox_cli
from socialgen.store.engine import transaction
from socialgen.store.tables import Publication
from tests.conftest import BACKEND, Store
from tests.nostr_support import LostAnswers, NostrRelay
from tests.nostr_support import nostr_relay as nostr_relay  # the fixture

pytestmark = pytest.mark.skipif(
    BACKEND == "postgresql", reason="a network's tests run on SQLite only"
)
runner = CliRunner()


@pytest.fixture(autouse=True)
def _relay_on_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    """The relay lives on 127.0.0.1 (the guard lets it through); a short timeout."""
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")
    monkeypatch.setenv("SOCIALGEN_NETWORK_TIMEOUT", "1")


def cli(*args: str, stdin: str | None = None, code: int | None = 0) -> Any:
    result = runner.invoke(
        app, [*args, "--json"], input=stdin, obj=Runtime(networks={"nostr": nostr})
    )
    assert code is None or result.exit_code == code, result.output
    return json.loads(result.stdout)


def connect(relays: str, signer: Signer) -> str:
    added = cli("accounts", "add", "nostr", "--relays", relays, "--nsec-stdin",
                stdin=signer.nsec + "\n")  # fmt: skip
    assert added["network"] == "nostr" and added["handle"] == signer.npub
    assert signer.nsec not in json.dumps(added) and added["serviceUrl"] == relays
    return str(added["id"])


def test_a_post_goes_live_once_and_its_reactions_are_counted(
    store: Store, nostr_relay: NostrRelay
) -> None:
    signer, fan = signer_from(secrets.token_hex(32)), signer_from(secrets.token_hex(32))
    account = connect(nostr_relay.url, signer)
    post = store.post("Shipping weekly, live on #Nostr.")
    (row,) = cli("posts", "publish", post.id, "--to", account)["publications"]
    assert row["state"] == "published", row
    (note,) = nostr_relay.notes_of(signer.pubkey)
    assert row["remoteId"] == note["id"] and note["content"] == "Shipping weekly, live on #Nostr."
    assert note["tags"] == [["t", "nostr"]] and row["url"].startswith("https://njump.me/note1")

    again = cli("posts", "publish", post.id, "--to", account)["publications"]
    assert again[0]["state"] == "published"
    dry = cli("posts", "publish", post.id, "--to", account, "--dry-run")
    (network,) = dry["networks"]
    assert [part["text"] for part in network["parts"]] == ["Shipping weekly, live on #Nostr."]
    assert len(nostr_relay.notes_of(signer.pubkey)) == 1  # neither the repeat nor the dry run

    assert nostr_relay.send(signed_event(fan, 7, "+", [["e", note["id"]]], note["created_at"]))[2]
    (counted,) = cli("posts", "stats", post.id, "--refresh")["posts"]
    assert counted["likes"] == 1 and counted["publications"][0]["likes"] == 1


def test_a_lost_answer_is_retried_and_finds_the_note_instead_of_sending_another(
    store: Store,
    nostr_relay: NostrRelay,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr(outbox_cli, "PUBLISH_WAIT_SECONDS", 0.0)  # not the 30 s backoff
    signer = signer_from(secrets.token_hex(32))
    with LostAnswers(nostr_relay, drop=1) as lossy:
        account = connect(lossy.url, signer)
        post = store.post("Sent, then silence.")
        (row,) = cli("posts", "publish", post.id, "--to", account, code=None)["publications"]
        assert row["state"] == "queued", row  # resending is harmless: a retry is planned
        assert "gave no answer" in row["message"] and signer.nsec not in row["message"]
        (live,) = nostr_relay.notes_of(signer.pubkey)  # it reached the relay anyway

        with transaction(store.engine) as session:  # the planned retry, due now
            publication = session.get(Publication, row["id"])
            assert publication is not None
            publication.next_attempt_at = utcnow() - timedelta(seconds=1)
            session.add(publication)
        with caplog.at_level("INFO", logger="socialgen.publishing"):
            assert cli("publish-due")["published"] == 1
        assert "found live from an earlier attempt" in caplog.text  # looked, then resent it
        assert lossy.events_seen == 2  # the found note was sent again: the same event
    with transaction(store.engine) as session:
        final = session.get(Publication, row["id"])
        assert final is not None
        assert final.state == "published" and final.remote_id == live["id"]
    assert [note["id"] for note in nostr_relay.notes_of(signer.pubkey)] == [live["id"]]


def test_check_and_history_read_the_account_through_its_relays(
    store: Store, nostr_relay: NostrRelay
) -> None:
    """`accounts check` and `accounts history` pass the account's relays (not one
    http URL) through the guard by Nostr's own rule, and read the notes back."""
    signer = signer_from(secrets.token_hex(32))
    account = connect(nostr_relay.url, signer)
    earlier = int((utcnow() - timedelta(days=3)).timestamp())
    for n, text in enumerate(("First note, from before socialgen.", "Second, also mine.")):
        assert nostr_relay.send(signed_event(signer, 1, text, [], earlier + n))[2] is True
    checked = cli("accounts", "check", account)
    assert checked["ok"] is True and checked["identity"]["handle"] == signer.npub
    pulled = cli("accounts", "history", account)
    assert (pulled["fetched"], pulled["created"], pulled["complete"]) == (2, 2, True)
    assert cli("accounts", "history", account)["created"] == 0  # pulling again adds none
