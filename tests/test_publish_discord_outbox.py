"""Discord through the real outbox, end to end: an account connected with the
Discord module on the fake Discord (tests/fakes/discord_server.py), posts published
with `socialgen posts publish` in-process, and what the channel holds read on the
fake's side. Exactly once: a message sent then unanswered is `unknown` and never sent
again by `publish-due`; a thread cut off after its first message is finished by
`--retry` without that message again. Every test ends with the witness's check: the
webhook's token is in no output and no log record (httpx logs each request's URL)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from socialgen.app.runtime import Runtime
from socialgen.publishing.accounts.service import add_account, connect_account
from socialgen.publishing.networks.base import NetworkSettings
from socialgen.publishing.networks.discord import adapter as discord
from socialgen.publishing.networks.discord.text import split
from socialgen.publishing.registry import Networks
from socialgen.store.engine import transaction
from tests.conftest import BACKEND, Store
from tests.fakes.discord_server import FakeDiscord, FakeWebhook, Fault
from tests.keys_support import keys_now
from tests.outbox_support import due_publication, publication
from tests.publish_e2e_support import Witness
from tests.publish_e2e_support import witness as witness  # the fixture

pytestmark = pytest.mark.skipif(
    BACKEND == "postgresql", reason="a network's tests run on SQLite only"
)

SENTENCE = "Small teams ship weekly because feedback beats a long plan."
# Two messages (a post holds at most 3,000 characters: Discord's 2,000 make two).
LONG = "\n\n".join(" ".join([SENTENCE] * 23) for _ in range(2))


@pytest.fixture(autouse=True)
def _private_urls(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fake lives on 127.0.0.1: let socialgen's SSRF guard through."""
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")


@pytest.fixture
def fake() -> Iterator[FakeDiscord]:
    with FakeDiscord() as server:
        yield server


@pytest.fixture
def hook(fake: FakeDiscord, witness: Witness) -> FakeWebhook:
    made = fake.add_webhook("Release notes")
    witness.secret(made.token, fake.url_of(made))
    witness.runtime = Runtime(networks={"discord": discord})
    return made


def connected(store: Store, fake: FakeDiscord, hook: FakeWebhook) -> str:
    """The channel connected as the HTTP API connects it (connect_account), stored."""
    networks = Networks(
        {"discord": discord}, NetworkSettings(allow_private_urls=True), keys=keys_now()
    )
    found = connect_account(
        networks, "discord", fake.base_url, "releases", fake.url_of(hook), secret_name="secret"
    )
    with transaction(store.engine) as session:
        return add_account(session, store.workspace_id, "discord", found, networks=networks).id


def test_a_post_is_published_once_and_its_link_is_the_message_s(
    store: Store, fake: FakeDiscord, hook: FakeWebhook, witness: Witness
) -> None:
    account = connected(store, fake, hook)
    post = store.post("Shipping weekly, live in #releases. @everyone")
    answer = witness.cli_json("posts", "publish", post.id, "--to", "discord:#releases")
    (row,) = answer["publications"]
    assert row["state"] == "published" and row["accountId"] == account, row
    (message,) = fake.live(hook)
    assert message.content == "Shipping weekly, live in #releases. @everyone"
    assert message.mention_everyone is False
    assert row["remoteId"] == message.id
    assert (
        row["url"] == f"https://discord.com/channels/{hook.guild_id}/{hook.channel_id}/{message.id}"
    )
    again = witness.cli_json("posts", "publish", post.id, "--to", account)
    assert again["publications"][0]["state"] == "published"
    dry = witness.cli_json("posts", "publish", post.id, "--to", account, "--dry-run")
    assert [part["text"] for part in dry["networks"][0]["parts"]] == [message.content]
    assert len(fake.live(hook)) == 1  # neither the repeat nor the dry run sent


def test_a_message_sent_then_unanswered_is_unknown_and_never_sent_again(
    store: Store,
    fake: FakeDiscord,
    hook: FakeWebhook,
    witness: Witness,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SOCIALGEN_NETWORK_TIMEOUT", "0.5")  # read by the CLI's Runtime
    witness.runtime = Runtime(networks={"discord": discord})
    account = connected(store, fake, hook)
    post = store.post("Sent, then silence.")
    fake.add_fault(Fault("hang", method="POST", after_processing=True, seconds=10))
    answer = witness.cli_json("posts", "publish", post.id, "--to", account, code=1)
    (row,) = answer["publications"]
    assert row["state"] == "unknown", row
    assert "Check the Discord channel" in row["message"] and "within 0.5 s" in row["message"]
    assert fake.texts(hook) == ["Sent, then silence."]  # live, unanswered
    due = witness.cli_json("publish-due")
    assert due["published"] == 0, due
    refused = witness.cli("posts", "publish", post.id, "--to", account, code=None)
    assert refused.exit_code != 0 and "--retry" in refused.output
    assert len(fake.requests_to("POST")) == 1  # sent once, whatever was asked after


def test_a_thread_cut_off_after_its_first_message_is_finished_without_it(
    store: Store, fake: FakeDiscord, hook: FakeWebhook, witness: Witness
) -> None:
    account = connected(store, fake, hook)
    post = store.post(LONG)
    fake.add_fault(Fault("drop", method="POST", skip=1))  # the second message
    answer = witness.cli_json("posts", "publish", post.id, "--to", account, code=1)
    (first,) = answer["publications"]
    assert first["state"] == "unknown", first
    assert len(fake.live(hook)) == 1
    (done,) = witness.cli_json("posts", "publish", post.id, "--to", account, "--retry")[
        "publications"
    ]
    assert done["state"] == "published", done
    assert fake.texts(hook) == split(LONG)  # each message once, in order
    stored = publication(store, done["id"])
    assert stored.part_ids == [message.id for message in fake.live(hook)]
    assert done["remoteId"] == fake.live(hook)[0].id


def test_a_long_rate_limit_is_retried_by_the_outbox_after_discord_s_wait(
    store: Store, fake: FakeDiscord, hook: FakeWebhook, witness: Witness
) -> None:
    account = connected(store, fake, hook)
    _, publication_id = due_publication(store, account, content="After Discord's wait.")
    fake.add_fault(Fault("status", method="POST", status=429, retry_after=42.5))
    due = witness.cli_json("publish-due")
    assert (due["published"], due["retrying"]) == (0, 1), due
    stored = publication(store, publication_id)
    assert stored.state == "queued" and "rate limiting" in stored.message
    assert stored.next_attempt_at is not None and stored.updated_at is not None
    wait = (stored.next_attempt_at - stored.updated_at).total_seconds()
    assert 41 < wait < 44, wait  # Discord's retry_after, not the 30 s default backoff
    assert fake.live(hook) == []
