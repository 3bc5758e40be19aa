"""Discord beyond publishing, against the fake Discord: the webhook URL read and
checked, `connect` and `check`, edits and deletes of every part (base.RemoteEditor),
metrics (none), the text rules a dry run reads without an account, and
`accounts add discord` (its webhook URL from stdin, never shown)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import typer
from typer.testing import CliRunner

from socialgen.app.runtime import Runtime
from socialgen.cli.support import use_runtime
from socialgen.kit.errors import BadRequest
from socialgen.publishing.accounts.add_discord_cli import add_discord
from socialgen.publishing.networks.base import (
    AccountCredentials,
    NetworkSettings,
    OutgoingPost,
    Published,
    PublishError,
    RemoteEditor,
)
from socialgen.publishing.networks.discord import adapter as discord
from socialgen.publishing.networks.discord.text import connect_command, split, unconnected_parts
from socialgen.publishing.networks.discord.webhook import (
    DISCORD_API,
    normalise_service,
    parse_webhook_url,
    same_service,
)
from socialgen.publishing.networks.guarded_http import GuardRefused
from tests.conftest import BACKEND, Store
from tests.fakes.discord_server import FakeDiscord, FakeWebhook

SETTINGS = NetworkSettings(allow_private_urls=True)
SENTENCE = "Small teams ship weekly because feedback beats a long plan."
LONG = "\n\n".join(" ".join([SENTENCE] * 15) for _ in range(5))  # three messages
TOKEN = "k3Y_-Tok3n" * 7


@pytest.fixture
def fake() -> Iterator[FakeDiscord]:
    with FakeDiscord() as server:
        yield server


@pytest.fixture
def hook(fake: FakeDiscord) -> FakeWebhook:
    return fake.add_webhook("Release notes")


def adapter_for(fake: FakeDiscord, hook: FakeWebhook) -> discord.DiscordAdapter:
    secret = {"webhook_url": fake.url_of(hook)}
    credentials = AccountCredentials("discord", fake.base_url, "#releases", secret)
    return discord.build(credentials, lambda _: None, settings=SETTINGS)


# --- the webhook URL --------------------------------------------------------------------


def test_a_webhook_url_is_read_on_every_discord_host_and_version() -> None:
    for url in (
        f"https://discord.com/api/webhooks/123/{TOKEN}",
        f"https://discordapp.com/api/webhooks/123/{TOKEN}/",
        f"https://canary.discord.com/api/v10/webhooks/123/{TOKEN}",
    ):
        webhook = parse_webhook_url(f"  {url}\n")
        assert (webhook.webhook_id, webhook.token) == ("123", TOKEN)
        assert same_service(DISCORD_API, webhook)
        assert webhook.url_on(normalise_service(webhook.base)) == (
            f"https://discord.com/api/webhooks/123/{TOKEN}"
        )
    local = parse_webhook_url(f"http://127.0.0.1:8080/api/v9/webhooks/7/{TOKEN}")
    assert local.base == "http://127.0.0.1:8080/api" and not same_service(DISCORD_API, local)
    assert normalise_service("https://discord.com/api/v10/") == DISCORD_API


@pytest.mark.parametrize(
    "url",
    [
        f"https://discord.com/api/channels/123/{TOKEN}",
        f"ftp://discord.com/api/webhooks/123/{TOKEN}",
        f"https://discord.com/api/webhooks/abc/{TOKEN}",
        f"https://discord.com/api/webhooks/123/{TOKEN}?thread_id=9",
        f"https://user:pw@discord.com/api/webhooks/123/{TOKEN}",
        f"https://discord.com:99999/api/webhooks/123/{TOKEN}",
        TOKEN,
    ],
)
def test_a_url_that_is_not_a_webhook_is_refused_without_repeating_it(url: str) -> None:
    with pytest.raises(BadRequest) as caught:
        parse_webhook_url(url)
    assert TOKEN not in caught.value.message and "webhook" in caught.value.message


# --- connect and check ------------------------------------------------------------------


def test_connect_checks_the_webhook_and_names_the_account_after_the_channel(
    fake: FakeDiscord, hook: FakeWebhook
) -> None:
    connected = discord.connect(fake.base_url, "#Releases", fake.url_of(hook), settings=SETTINGS)
    assert connected.service_url == fake.base_url
    assert connected.secret == {"webhook_url": fake.url_of(hook)}
    who = connected.identity
    assert (who.handle, who.display_name) == ("#releases", "Release notes")
    assert who.profile_url == f"https://discord.com/channels/{hook.guild_id}/{hook.channel_id}"
    assert hook.token not in repr(who)
    unnamed = discord.connect(fake.base_url, "", fake.url_of(hook) + "/", settings=SETTINGS)
    assert unnamed.identity.handle == f"#{hook.channel_id}"
    assert adapter_for(fake, hook).check() == who


def test_connect_refuses_a_webhook_off_the_service_a_deleted_one_and_a_private_host(
    fake: FakeDiscord, hook: FakeWebhook
) -> None:
    with pytest.raises(BadRequest) as elsewhere:
        discord.connect(DISCORD_API, "", fake.url_of(hook), settings=SETTINGS)
    assert f"give serviceUrl {fake.base_url}" in elsewhere.value.message
    assert hook.token not in elsewhere.value.message
    fake.delete_webhook(hook)
    with pytest.raises(PublishError) as deleted:
        discord.connect(fake.base_url, "", fake.url_of(hook), settings=SETTINGS)
    assert deleted.value.reconnect and hook.token not in deleted.value.message
    with pytest.raises(GuardRefused):
        discord.connect(fake.base_url, "", fake.url_of(hook), settings=NetworkSettings())
    assert len(fake.requests) == 1  # the deleted one's: the guard let nothing else out


# --- edit, delete, metrics --------------------------------------------------------------


def test_an_edit_changes_every_part_in_place_adds_or_deletes_messages_and_pings_nobody(
    fake: FakeDiscord, hook: FakeWebhook
) -> None:
    adapter = adapter_for(fake, hook)
    assert isinstance(adapter, RemoteEditor)
    published = adapter.publish(OutgoingPost("pub-1", "key-1", LONG))
    ids = published.part_ids
    shorter = adapter.edit(published, "Shorter now, @everyone.")
    assert shorter.part_ids == ids[:1] and shorter.url == published.url
    (message,) = fake.live(hook)
    assert message.content == "Shorter now, @everyone." and message.edited_timestamp
    assert message.mention_everyone is False  # allowed_mentions sent on the edit too
    longer = adapter.edit(shorter, LONG + "\n\nAnd one more thing.")
    assert longer.part_ids[0] == ids[0] and len(longer.part_ids) == 3
    assert fake.texts(hook) == split(LONG + "\n\nAnd one more thing.")
    adapter.delete(longer)
    assert fake.live(hook) == []
    adapter.delete(longer)  # already gone: nothing to do, no error
    assert len(fake.requests_to("DELETE")) == 2 + 3 + 3


def test_an_edit_of_a_message_gone_says_so(fake: FakeDiscord, hook: FakeWebhook) -> None:
    adapter = adapter_for(fake, hook)
    published = adapter.publish(OutgoingPost("pub-1", "key-1", "Soon gone"))
    adapter.delete(published)
    with pytest.raises(PublishError) as caught:
        adapter.edit(published, "Too late")
    assert "Unknown Message" in caught.value.message and not caught.value.reconnect


def test_metrics_say_a_webhook_reads_no_counts(fake: FakeDiscord, hook: FakeWebhook) -> None:
    metrics = adapter_for(fake, hook).metrics(Published("1", "", ("1",)))
    assert (metrics.likes, metrics.comments, metrics.impressions) == (0, 0, None)
    assert "cannot read reactions" in metrics.note
    assert not hasattr(adapter_for(fake, hook), "history")  # no past posts either
    assert fake.requests == []


# --- what a dry run reads without an account ---------------------------------------------


def test_unconnected_parts_are_the_adapter_s_and_the_command_connects_the_channel() -> None:
    parts = unconnected_parts(LONG, True)
    assert [text for text, _ in parts] == split(LONG, number_parts=True)
    assert parts[1][1]["message"] == "2 of 3, sent one after the other"
    with pytest.raises(PublishError):
        unconnected_parts(" \n", False)
    assert connect_command("#releases") == "socialgen accounts add discord --channel releases"
    assert connect_command("#a b") == "socialgen accounts add discord --channel 'a b'"
    assert discord.IDEMPOTENT is False and discord.FINDS_ITS_POSTS is False
    assert discord.DEFAULT_SERVICE_URL == "https://discord.com/api"


# --- accounts add discord -------------------------------------------------------------------


@pytest.mark.skipif(BACKEND == "postgresql", reason="a network's tests run on SQLite only")
def test_accounts_add_discord_reads_the_url_from_stdin_and_never_shows_it(
    store: Store, fake: FakeDiscord, hook: FakeWebhook, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")
    app = typer.Typer()
    app.callback()(use_runtime)  # the Runtime handed in, as the real root does
    app.command("discord")(add_discord)  # as accounts/cli.py registers it under `accounts add`
    runtime = Runtime(networks={"discord": discord})
    args = ["discord", "--channel", "releases", "--webhook-stdin", "--json"]
    result = CliRunner().invoke(app, args, input=fake.url_of(hook) + "\n", obj=runtime)
    assert result.exit_code == 0, result.output
    added = json.loads(result.stdout)
    assert (added["network"], added["handle"]) == ("discord", "#releases")
    assert added["serviceUrl"] == fake.base_url and added["displayName"] == "Release notes"
    bad = CliRunner().invoke(
        app, ["discord", "--webhook-stdin"], input=f"nope/{TOKEN}\n", obj=runtime
    )
    assert bad.exit_code != 0 and "not a Discord webhook URL" in repr(bad.exception)
    for said in (result.output, bad.output, repr(bad.exception)):
        assert hook.token not in said and TOKEN not in said
