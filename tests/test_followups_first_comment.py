"""A first comment goes under the post once it is live, on every network that can take
one, and is really there on the network's own local server: a reply on Bluesky (the
dev-env PDS), Mastodon (mastodon-mock), X and Threads (their strict fakes), Telegram
(telegram-test-api), Nostr (nostr-relay) and Pixelfed (mastodon-mock behind
Pixelfed's rules); a comment on LinkedIn (its strict fake, Comments API). A Discord
webhook cannot reply: the dry run says so and the follow-up is `skipped`, the post
published. Everything through the product's faces: `socialgen accounts add`, `posts
first-comment`, `posts publish`, `publish-due`, `posts publications`, in-process.

Runs on SQLite only, as every network's tests do (the store's part runs on both in
tests/test_followups_exactly_once.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from typer.testing import CliRunner

from socialgen.app.runtime import Runtime
from socialgen.cli.main import app
from socialgen.publishing.accounts.service import add_account, connect_account
from socialgen.publishing.networks.base import NetworkSettings, OutgoingPost
from socialgen.publishing.networks.discord import adapter as discord
from socialgen.publishing.registry import Networks
from socialgen.store.engine import transaction
from socialgen.store.tables import Publication, PublicationState
from tests.bluesky_support import (
    BlueskyNetwork,
    bluesky_network_fixture,  # noqa: F401  (the fixture)
)
from tests.conftest import BACKEND, Store
from tests.fakes.discord_server import FakeDiscord
from tests.fakes.linkedin_server import FakeLinkedIn
from tests.fakes.threads_routes import USER_ID
from tests.fakes.threads_server import FakeThreads
from tests.fakes.x_server import FakeX
from tests.keys_support import keys_now
from tests.mastodon_support import MastodonMock
from tests.mastodon_support import mastodon_mock as mastodon_mock  # the fixture
from tests.nostr_support import NostrRelay, new_key
from tests.nostr_support import nostr_relay as nostr_relay  # the fixture
from tests.pixelfed_support import PixelfedProxy, adapter, photo
from tests.pixelfed_support import proxy as proxy  # the fixture
from tests.pixelfed_support import server as server  # the fixture
from tests.telegram_support import TelegramEmulator, new_token
from tests.telegram_support import telegram_emulator as telegram_emulator  # the fixture

pytestmark = pytest.mark.skipif(
    BACKEND == "postgresql", reason="a network's tests run on SQLite only"
)

COMMENT = "Sources and the full write-up: https://example.com/ship-weekly"
runner = CliRunner()


@pytest.fixture(autouse=True)
def _servers_on_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every server lives on 127.0.0.1 (the guard lets it through); short timeouts."""
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")
    monkeypatch.setenv("SOCIALGEN_NETWORK_TIMEOUT", "2")


def cli(*args: str, stdin: str | None = None, code: int = 0) -> Any:
    """`socialgen ARGS --json` in-process (--json before a "--": a chat id follows it)."""
    end = args.index("--") if "--" in args else len(args)
    line = [*args[:end], "--json", *args[end:]]
    result = runner.invoke(app, line, input=stdin, obj=Runtime())
    assert result.exit_code == code, result.output
    return json.loads(result.stdout)


def publish_with_comment(store: Store, account: str, text: str = "Small teams ship weekly.") -> Any:
    """A post with a first comment, published: its publication, the comment under it."""
    post = store.post(text)
    data = cli("posts", "first-comment", post.id, COMMENT)
    assert data["firstComment"]["text"] == COMMENT and data["firstComment"]["delaySeconds"] == 0
    (row,) = cli("posts", "publish", post.id, "--to", account)["publications"]
    assert row["state"] == "published", row
    (comment,) = row["followups"]
    assert comment["kind"] == "first-comment" and comment["state"] == "published", comment
    assert comment["remoteId"] and comment["remoteId"] != row["remoteId"]
    # Exactly once: later passes leave it alone, and `posts publications` shows it.
    assert cli("publish-due")["followups"]["published"] == 0
    (shown,) = cli("posts", "publications", post.id)["publications"]
    assert shown["followups"] == [comment]
    return post, row, comment


# --- Mastodon -----------------------------------------------------------------------------


def test_mastodon_first_comment_is_a_reply_under_the_status(
    store: Store, mastodon_mock: MastodonMock
) -> None:
    user = mastodon_mock.new_user("comments")
    added = cli("accounts", "add", "mastodon", "--instance", mastodon_mock.base_url,
                "--token-stdin", stdin=user.token + "\n")  # fmt: skip
    _, row, comment = publish_with_comment(store, added["id"])
    reply, root = mastodon_mock.statuses(user)  # newest first
    assert root["id"] == row["remoteId"] and reply["id"] == comment["remoteId"]
    assert reply["in_reply_to_id"] == root["id"]
    assert "example.com/ship-weekly" in reply["content"]
    assert comment["url"] == reply["url"]


# --- Bluesky ------------------------------------------------------------------------------


def test_bluesky_first_comment_is_a_reply_record_under_the_post(
    store: Store, bluesky_network: BlueskyNetwork
) -> None:
    person = bluesky_network.account("comments")
    added = cli("accounts", "add", "bluesky", person.handle, "--service", bluesky_network.pds,
                "--password-stdin", stdin=person.app_password + "\n")  # fmt: skip
    _, row, comment = publish_with_comment(store, added["id"])
    reader = person.client(bluesky_network.pds)
    listed = reader.com.atproto.repo.list_records(
        {"repo": person.did, "collection": "app.bsky.feed.post", "limit": 10}
    ).records
    assert len(listed) == 2
    (reply,) = [record for record in listed if record.value.reply is not None]
    assert reply.uri == comment["remoteId"] and reply.value.text == COMMENT
    assert reply.value.reply.root.uri == row["remoteId"] == reply.value.reply.parent.uri
    assert comment["url"].endswith("/post/" + reply.uri.rsplit("/", 1)[-1])


# --- X and Threads ------------------------------------------------------------------------


@pytest.fixture
def x_fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeX]:
    from socialgen.publishing.networks.x import adapter as x

    monkeypatch.setattr(x, "LOOK_AGAIN_AFTER", 0.01)
    with FakeX() as fake:
        yield fake


def test_x_first_comment_is_a_reply_to_the_post(store: Store, x_fake: FakeX) -> None:
    added = cli("accounts", "add", "x", "--token-stdin", "--service", x_fake.base_url,
                stdin=x_fake.add_token() + "\n")  # fmt: skip
    _, row, comment = publish_with_comment(store, added["id"])
    root, reply = x_fake.posts
    assert (root.id, reply.id) == (row["remoteId"], comment["remoteId"])
    assert reply.reply_to == root.id and reply.sent_text == COMMENT


def test_threads_first_comment_is_a_reply_to_the_post(store: Store) -> None:
    with FakeThreads() as fake:
        added = cli("accounts", "add", "threads", "--token-stdin", "--service", fake.api_url,
                    stdin=fake.add_token() + "\n")  # fmt: skip
        assert added["network"] == "threads"
        _, row, comment = publish_with_comment(store, added["id"])
        with fake.lock:
            media = {m.id: m for m in fake.state.media.values()}
    reply = media[comment["remoteId"]]
    assert reply.reply_to == row["remoteId"] and reply.text == COMMENT
    assert media[row["remoteId"]].reply_to is None
    assert USER_ID  # the fake's account: the one the token belongs to


# --- LinkedIn -----------------------------------------------------------------------------


@pytest.fixture
def linkedin(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLinkedIn]:
    """The fake as LinkedIn itself (`accounts add linkedin` names no API host)."""
    with FakeLinkedIn() as fake:
        monkeypatch.setattr(
            "socialgen.publishing.networks.linkedin.adapter.DEFAULT_SERVICE_URL", fake.base_url
        )
        monkeypatch.setenv("SOCIALGEN_LINKEDIN_OAUTH_URL", fake.base_url)
        monkeypatch.delenv("SOCIALGEN_LINKEDIN_VERSION", raising=False)
        yield fake


def test_linkedin_first_comment_is_a_comment_on_the_post(
    store: Store, linkedin: FakeLinkedIn
) -> None:
    added = cli("accounts", "add", "linkedin", "--token-stdin",
                stdin=linkedin.add_token() + "\n")  # fmt: skip
    _, row, comment = publish_with_comment(store, added["id"])
    (made,) = linkedin.rest.comments
    assert made.target == row["remoteId"] and made.text == COMMENT
    assert made.actor == linkedin.member.urn and made.urn == comment["remoteId"]
    assert linkedin.post_count == 1  # a comment, not a second post
    sent = linkedin.requests_to("/rest/socialActions/", "POST")
    assert len(sent) == 1 and sent[0].headers["linkedin-version"]


def test_linkedin_refuses_a_comment_over_its_limit_in_the_dry_run_and_the_post_stays(
    store: Store, linkedin: FakeLinkedIn
) -> None:
    added = cli("accounts", "add", "linkedin", "--token-stdin",
                stdin=linkedin.add_token() + "\n")  # fmt: skip
    post = store.post("One post, one long comment.")
    cli("posts", "first-comment", post.id, "x" * 1300)
    (preview,) = cli("posts", "publish", post.id, "--to", added["id"], "--dry-run")["networks"]
    (follow,) = preview["followups"]
    assert "1300 characters" in follow["error"] and follow["parts"] == []
    (row,) = cli("posts", "publish", post.id, "--to", added["id"])["publications"]
    assert row["state"] == "published"
    (comment,) = row["followups"]
    assert comment["state"] == "failed" and "1250" in comment["message"]
    assert linkedin.rest.comments == [] and linkedin.post_count == 1


# --- Telegram and Nostr -------------------------------------------------------------------


def test_telegram_first_comment_replies_to_the_channel_post(
    store: Store, telegram_emulator: TelegramEmulator
) -> None:
    token = new_token()
    chat = "-1001234567890"
    added = cli("accounts", "add", "telegram", "--api", telegram_emulator.base_url,
                "--token-stdin", "--", chat, stdin=token + "\n")  # fmt: skip
    _, row, comment = publish_with_comment(store, added["id"])
    root, reply = telegram_emulator.sent(token)
    assert row["remoteId"] == f"{chat}/{root.message_id}"
    assert reply.fields["text"] == COMMENT
    assert reply.fields["reply_parameters"] == {"message_id": root.message_id}
    assert comment["remoteId"] == f"{chat}/{reply.message_id}"


def test_nostr_first_comment_is_a_reply_note(store: Store, nostr_relay: NostrRelay) -> None:
    signer = new_key()
    added = cli("accounts", "add", "nostr", "--relays", nostr_relay.url, "--nsec-stdin",
                stdin=signer.nsec + "\n")  # fmt: skip
    _, row, comment = publish_with_comment(store, added["id"])
    notes = {note["id"]: note for note in nostr_relay.notes_of(signer.pubkey)}
    assert set(notes) == {row["remoteId"], comment["remoteId"]}
    reply = notes[comment["remoteId"]]
    assert reply["content"] == COMMENT
    roots = [tag for tag in reply["tags"] if tag[0] == "e" and tag[-1] == "root"]
    assert [tag[1] for tag in roots] == [row["remoteId"]]


# --- Pixelfed: a comment under a photo post already live -----------------------------------


def test_pixelfed_comment_under_a_live_photo_goes_out_with_publish_due(
    store: Store, server: PixelfedProxy, mastodon_mock: MastodonMock
) -> None:
    user = mastodon_mock.new_user("pixel")
    added = cli("accounts", "add", "pixelfed", "--instance", server.base_url, "--token-stdin",
                stdin=user.token + "\n")  # fmt: skip
    live = adapter(server, user).publish(photo("photo-key"))  # the post, made live earlier
    post = store.post("Morning light over the harbour")
    with transaction(store.engine) as session:
        session.add(
            Publication(
                workspace_id=store.workspace_id,
                post_id=post.id,
                account_id=added["id"],
                state=PublicationState.PUBLISHED,
                remote_id=live.remote_id,
                remote_url=live.url,
                part_ids=list(live.part_ids),
            )
        )
    data = cli("posts", "first-comment", post.id, COMMENT)
    (queued,) = data["firstComment"]["publications"]
    assert queued["state"] == "queued"  # live already: queued at once
    assert cli("publish-due")["followups"]["published"] == 1
    (row,) = cli("posts", "publications", post.id)["publications"]
    (comment,) = row["followups"]
    assert comment["state"] == "published"
    reply, photo_status = mastodon_mock.statuses(user)
    assert photo_status["id"] == live.remote_id and reply["id"] == comment["remoteId"]
    assert reply["in_reply_to_id"] == live.remote_id and not reply["media_attachments"]
    assert cli("publish-due")["followups"]["published"] == 0
    assert len(mastodon_mock.statuses(user)) == 2


def test_pixelfed_refuses_a_comment_over_the_caption_limit(
    server: PixelfedProxy, mastodon_mock: MastodonMock
) -> None:
    user = mastodon_mock.new_user("pixel")
    server.max_characters = 20
    made = adapter(server, user)
    outgoing = OutgoingPost("c-1", "key-c-1", "A comment far longer than twenty", reply_to="1")
    with pytest.raises(Exception, match="Pixelfed takes 20"):
        made.prepare(outgoing)


# --- Discord: no replies through a webhook -----------------------------------------------


def test_discord_cannot_take_a_first_comment_the_dry_run_says_so_and_the_post_stays(
    store: Store,
) -> None:
    with FakeDiscord() as fake:
        hook = fake.add_webhook("Release notes")
        networks = Networks(
            {"discord": discord}, NetworkSettings(allow_private_urls=True), keys=keys_now()
        )
        found = connect_account(
            networks, "discord", fake.base_url, "releases", fake.url_of(hook), secret_name="secret"
        )
        with transaction(store.engine) as session:
            account = add_account(session, store.workspace_id, "discord", found, networks=networks)
            account_id = account.id
        post = store.post("Release 1.2 is out.")
        cli("posts", "first-comment", post.id, COMMENT)
        dry = cli("posts", "publish", post.id, "--to", account_id, "--dry-run")
        (follow,) = dry["networks"][0]["followups"]
        assert "cannot post a reply under a post" in follow["error"]
        (row,) = cli("posts", "publish", post.id, "--to", account_id)["publications"]
        assert row["state"] == "published"
        (comment,) = row["followups"]
        assert comment["state"] == "skipped" and "discord cannot" in comment["message"]
        assert len(fake.live(hook)) == 1
