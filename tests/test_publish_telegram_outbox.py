"""Telegram through the product's own faces and the real outbox, on a real store: the
channel connected with `accounts add telegram` (the real command line), a post
published with `posts publish` and seen once in the Bot API emulator; against the fake
Bot API, a send that went live unanswered is `unknown` and never sent again, and a
thread stopped by a 429 at its second part resumes there, its first part never sent
twice."""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner

from socialgen.app.runtime import Runtime
from socialgen.cli.main import app
from socialgen.publishing.networks.telegram import adapter as telegram
from tests.conftest import BACKEND, Store
from tests.fakes.telegram_media_server import FakeTelegram, Fault
from tests.telegram_support import TelegramEmulator, new_token
from tests.telegram_support import telegram_emulator as telegram_emulator  # the fixture

pytestmark = pytest.mark.skipif(
    BACKEND == "postgresql", reason="a network's tests run on SQLite only"
)

CHAT = "-1001234567890"
# A post holds 3,000 characters, a message 4,096 UTF-16 units: emoji (two units each)
# make a post of 2,700 characters two messages.
SENTENCE = "Ship weekly: " + "\U0001f680" * 30 + "."
LONG = " ".join([SENTENCE] * 60)
runner = CliRunner()


@pytest.fixture(autouse=True)
def _servers_on_loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    """The servers live on 127.0.0.1 (the guard lets them through); a short timeout."""
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")
    monkeypatch.setenv("SOCIALGEN_NETWORK_TIMEOUT", "0.5")


def cli(*args: str, stdin: str | None = None, code: int = 0) -> Any:
    runtime = Runtime(networks={"telegram": telegram})
    # --json before a "--" (a chat id starts with "-": it follows a "--" on the line)
    end = args.index("--") if "--" in args else len(args)
    line = [*args[:end], "--json", *args[end:]]
    result = runner.invoke(app, line, input=stdin, obj=runtime)
    assert result.exit_code == code, result.output
    return json.loads(result.stdout)


def connect(base_url: str, chat: str, token: str) -> str:
    added = cli("accounts", "add", "telegram", "--api", base_url, "--token-stdin", "--", chat,
                stdin=token + "\n")  # fmt: skip
    assert added["network"] == "telegram" and added["handle"] == chat
    assert token not in json.dumps(added)
    return str(added["id"])


def test_a_post_goes_live_once_in_the_emulator(
    store: Store, telegram_emulator: TelegramEmulator
) -> None:
    token = new_token()
    account = connect(telegram_emulator.base_url, CHAT, token)
    post = store.post(LONG)  # two messages
    (row,) = cli("posts", "publish", post.id, "--to", account)["publications"]
    assert row["state"] == "published", row
    sent = telegram_emulator.sent(token)
    texts = [str(message.fields["text"]) for message in sent]
    assert len(texts) == 2 and " ".join(texts) == LONG
    assert sent[1].fields["reply_parameters"] == {"message_id": sent[0].message_id}
    assert row["remoteId"] == f"{CHAT}/{sent[0].message_id}"
    assert row["url"] == f"https://t.me/c/1234567890/{sent[0].message_id}"

    again = cli("posts", "publish", post.id, "--to", account)["publications"]
    assert again[0]["state"] == "published"
    preview = cli("posts", "publish", post.id, "--to", account, "--dry-run")
    (network,) = preview["networks"]
    assert [part["details"]["method"] for part in network["parts"]] == ["sendMessage"] * 2
    assert len(telegram_emulator.sent(token)) == 2  # neither the repeat nor the dry run sent
    shown = cli("posts", "stats", post.id, "--refresh")
    assert "does not give" in json.dumps(shown)  # the metrics' note, not a failure


def test_a_send_live_but_unanswered_is_unknown_and_never_sent_again(store: Store) -> None:
    with FakeTelegram() as fake:
        account = connect(fake.base_url, "@shipweekly", fake.token)
        post = store.post("Sent, then silence.")
        fake.fail(Fault("late", "sendMessage", seconds=1.5))
        (row,) = cli("posts", "publish", post.id, "--to", account, code=1)["publications"]
        assert row["state"] == "unknown", row
        assert "look at the channel" in row["message"] and fake.token not in row["message"]
        assert len(fake.messages) == 1  # it is live

        assert cli("publish-due")["published"] == 0
        refused = cli("posts", "publish", post.id, "--to", account, code=1)
        assert "is unknown" in refused["message"] and "--retry" in refused["message"]
        assert len(fake.sent("sendMessage")) == 1 and len(fake.messages) == 1


def test_a_thread_stopped_by_a_429_resumes_at_the_part_that_failed(store: Store) -> None:
    with FakeTelegram() as fake:
        account = connect(fake.base_url, "@shipweekly", fake.token)
        post = store.post(LONG)  # two messages
        fake.fail(Fault("late", "sendMessage", seconds=0.0))  # the first part: answered
        fake.fail(Fault("status", "sendMessage", 429, parameters={"retry_after": 1}))
        # `posts publish` waits out a short retry_after itself, then resumes.
        (row,) = cli("posts", "publish", post.id, "--to", account)["publications"]
        assert row["state"] == "published" and row["attempts"] == 2, row
        texts = [call.fields["text"] for call in fake.sent("sendMessage")]
        assert len(texts) == 3 and texts[1] == texts[2]  # the 429'd part, sent again once
        assert [m.text for m in fake.messages] == texts[:2]  # the first part: once
        assert [m.reply_to for m in fake.messages] == [None, fake.messages[0].message_id]
        assert row["remoteId"] == f"{fake.chat_id}/{fake.messages[0].message_id}"


def test_history_says_why_a_channel_cannot_be_read_back(
    store: Store, telegram_emulator: TelegramEmulator
) -> None:
    account = connect(telegram_emulator.base_url, CHAT, new_token())
    result = runner.invoke(
        app, ["accounts", "history", account], obj=Runtime(networks={"telegram": telegram})
    )
    assert result.exit_code != 0
    assert "cannot read past posts from telegram: the Bot API cannot read" in result.output
    assert "Traceback" not in result.output
