"""The Telegram adapter against the Bot API emulator (npm's telegram-test-api, its own
Node process: tests/telegram_support.py), over real sockets: text posts, long text as
a reply chain, parts never sent twice, edits and deletes, connect, the guard, and the
text rules. Media and faults: test_publish_telegram_media.py; the outbox:
test_publish_telegram_outbox.py."""

from __future__ import annotations

import itertools
import logging
import socket

import pytest

from socialgen.publishing.networks.base import (
    AccountCredentials,
    NetworkSettings,
    OutgoingPost,
    PublishError,
    RemoteEditor,
)
from socialgen.publishing.networks.guarded_http import GuardRefused
from socialgen.publishing.networks.telegram import adapter as telegram
from socialgen.publishing.networks.telegram.text import (
    MAX_TEXT,
    chat_of,
    check_token,
    connect_command,
    split,
    unconnected_parts,
    units16,
)
from tests.conftest import BACKEND
from tests.telegram_support import TelegramEmulator, new_token
from tests.telegram_support import telegram_emulator as telegram_emulator  # the fixture

pytestmark = pytest.mark.skipif(
    BACKEND == "postgresql", reason="a network's tests run on one database (SQLite)"
)

CHAT = "-1001234567890"
SETTINGS = NetworkSettings(allow_private_urls=True)
SENTENCE = "Small teams ship weekly because feedback beats a long plan."


def adapter_for(
    emulator: TelegramEmulator, token: str, settings: NetworkSettings = SETTINGS
) -> telegram.TelegramAdapter:
    credentials = AccountCredentials("telegram", emulator.base_url, CHAT, {"bot_token": token})
    return telegram.build(credentials, lambda secret: None, settings=settings)


class Noted(list[tuple[int, str]]):
    def __call__(self, index: int, remote_id: str) -> None:
        self.append((index, remote_id))


def post(text: str, posted: tuple[str, ...] = (), noted: Noted | None = None) -> OutgoingPost:
    return OutgoingPost("pub-1", "key-1", text, posted_parts=posted, part_posted=noted)


# --- publishing ---------------------------------------------------------------------


def test_a_short_post_is_one_plain_message(telegram_emulator: TelegramEmulator) -> None:
    token = new_token()
    text = "Ship *weekly* <b>now</b> _really_ [link](https://example.com)"
    published = adapter_for(telegram_emulator, token).publish(post(text))
    (sent,) = telegram_emulator.sent(token)
    assert sent.fields == {"chat_id": CHAT, "text": text}  # no parse_mode: nothing misread
    assert published.remote_id == f"{CHAT}/{sent.message_id}"
    assert published.part_ids == (published.remote_id,)
    assert published.url == f"https://t.me/c/1234567890/{sent.message_id}"


def test_a_long_post_is_a_chain_of_replies_cut_at_sentences(
    telegram_emulator: TelegramEmulator,
) -> None:
    token = new_token()
    text = " ".join([SENTENCE] * 160)  # 9,599 characters: three messages
    noted = Noted()
    published = adapter_for(telegram_emulator, token).publish(post(text, noted=noted))
    sent = telegram_emulator.sent(token)
    assert len(sent) == 3 and len(published.part_ids) == 3
    texts = [str(message.fields["text"]) for message in sent]
    assert all(len(part) <= MAX_TEXT and part.endswith("plan.") for part in texts)
    assert " ".join(texts) == text  # nothing lost, nothing doubled
    assert "reply_parameters" not in sent[0].fields
    for before, after in itertools.pairwise(sent):
        assert after.fields["reply_parameters"] == {"message_id": before.message_id}
    assert noted == [(i, f"{CHAT}/{m.message_id}") for i, m in enumerate(sent)]
    assert published.part_ids == tuple(remote for _, remote in noted)


def test_parts_an_earlier_attempt_got_live_are_never_sent_again(
    telegram_emulator: TelegramEmulator,
) -> None:
    token = new_token()
    text = " ".join([SENTENCE] * 160)
    adapter = adapter_for(telegram_emulator, token)
    first = adapter.publish(post(text))
    all_sent = telegram_emulator.sent(token)
    # The same publication again, as if the third part had failed: two parts are live.
    noted = Noted()
    again = adapter.publish(post(text, posted=first.part_ids[:2], noted=noted))
    now = telegram_emulator.sent(token)
    assert len(now) == 4  # only the third part went out again
    assert now[3].fields["text"] == all_sent[2].fields["text"]
    assert now[3].fields["reply_parameters"] == {"message_id": all_sent[1].message_id}
    assert noted == [(2, f"{CHAT}/{now[3].message_id}")]
    assert again.part_ids[:2] == first.part_ids[:2] and again.remote_id == first.remote_id
    # Every part live already: nothing is sent.
    adapter.publish(post(text, posted=again.part_ids))
    assert len(telegram_emulator.sent(token)) == 4


def test_numbered_parts_end_with_their_place(telegram_emulator: TelegramEmulator) -> None:
    token = new_token()
    outgoing = OutgoingPost("pub-2", "key-2", " ".join([SENTENCE] * 80), number_parts=True)
    adapter_for(telegram_emulator, token).publish(outgoing)
    texts = telegram_emulator.texts(token)
    assert [text.rsplit(" ", 1)[1] for text in texts] == ["1/2", "2/2"]
    assert all(units16(text) <= MAX_TEXT for text in texts)


def test_edit_and_delete_every_part(telegram_emulator: TelegramEmulator) -> None:
    token = new_token()
    adapter = adapter_for(telegram_emulator, token)
    assert isinstance(adapter, RemoteEditor)
    published = adapter.publish(post(" ".join([SENTENCE] * 100)))  # two messages
    edited = adapter.edit(published, "Shorter now.")
    assert edited.part_ids == published.part_ids[:1]  # the second part was deleted
    assert telegram_emulator.texts(token) == ["Shorter now."]
    adapter.delete(edited)
    assert telegram_emulator.sent(token) == []
    adapter.delete(edited)  # gone already: no failure


def test_an_edit_needing_more_messages_is_refused_before_any_change(
    telegram_emulator: TelegramEmulator,
) -> None:
    token = new_token()
    adapter = adapter_for(telegram_emulator, token)
    published = adapter.publish(post("One line."))
    with pytest.raises(PublishError, match="needs 2 messages and the post has 1"):
        adapter.edit(published, " ".join([SENTENCE] * 100))
    assert telegram_emulator.texts(token) == ["One line."]


def test_metrics_say_the_bot_api_gives_none(telegram_emulator: TelegramEmulator) -> None:
    adapter = adapter_for(telegram_emulator, new_token())
    metrics = adapter.metrics(adapter.publish(post("Counted?")))
    assert (metrics.likes, metrics.comments, metrics.impressions) == (0, 0, None)
    assert "does not give" in metrics.note
    assert not hasattr(adapter, "history")  # a bot cannot read a channel's past posts


def test_the_token_is_in_no_url_httpx_logs(
    telegram_emulator: TelegramEmulator, caplog: pytest.LogCaptureFixture
) -> None:
    token = new_token()
    # httpx's own logger too: an earlier test (or socialgen's CLI) may have quietened it.
    with caplog.at_level(logging.DEBUG), caplog.at_level(logging.DEBUG, logger="httpx"):
        adapter_for(telegram_emulator, token).publish(post("Logged?"))
    assert "/botTOKEN/sendMessage" in caplog.text  # httpx logged the call ...
    assert token not in caplog.text and token.split(":")[1] not in caplog.text  # ... not it


# --- connect, check, the guard -------------------------------------------------------


def test_connect_asks_who_the_bot_is_and_takes_a_server_without_getchat(
    telegram_emulator: TelegramEmulator, caplog: pytest.LogCaptureFixture
) -> None:
    token = new_token()
    connected = telegram.connect(telegram_emulator.base_url + "/", CHAT, token, settings=SETTINGS)
    assert connected.service_url == telegram_emulator.base_url
    assert connected.secret == {"bot_token": token}
    assert connected.identity.handle == CHAT and connected.identity.display_name == CHAT
    assert "has no getChat" in caplog.text  # the emulator lacks it: said, not fatal
    assert adapter_for(telegram_emulator, token).check().handle == CHAT


def test_a_token_of_the_wrong_shape_is_refused_before_anything_is_sent(
    telegram_emulator: TelegramEmulator,
) -> None:
    for wrong in ("", "123456", "abc:" + "A" * 35, "123:" + "A" * 34, "123:" + "A" * 34 + "!"):
        with pytest.raises(PublishError, match="not a bot token") as caught:
            telegram.connect(telegram_emulator.base_url, CHAT, wrong, settings=SETTINGS)
        assert not caught.value.retryable
    adapter = adapter_for(telegram_emulator, "not-a-token")
    with pytest.raises(PublishError, match="not a bot token"):
        adapter.publish(post("Never sent."))
    assert telegram_emulator.sent("not-a-token") == []


def test_channel_handles() -> None:
    assert chat_of("@ShipWeekly") == "@ShipWeekly"
    assert chat_of("ShipWeekly") == "@ShipWeekly"
    assert chat_of("https://t.me/ShipWeekly") == "@ShipWeekly"
    assert chat_of(" -1001234567890 ") == "-1001234567890"
    for wrong in ("", "@ab", "@1abcde", "@with space", "@" + "a" * 40, "t.me/+invite"):
        with pytest.raises(PublishError, match="not a channel"):
            chat_of(wrong)
    assert check_token(" 42:" + "a" * 35 + "\n") == "42:" + "a" * 35
    assert connect_command("@ShipWeekly") == "socialgen accounts add telegram @ShipWeekly"
    assert connect_command("who?") == "socialgen accounts add telegram @CHANNEL"
    assert connect_command(CHAT) == f"socialgen accounts add telegram -- {CHAT}"


def test_a_private_host_is_refused_unless_allowed(telegram_emulator: TelegramEmulator) -> None:
    token = new_token()
    closed = NetworkSettings(allow_private_urls=False)
    adapter = adapter_for(telegram_emulator, token, settings=closed)
    for call in (
        lambda: adapter.publish(post("Never sent.")),
        lambda: adapter.prepare(post("Never shown.")),
        lambda: telegram.connect(telegram_emulator.base_url, CHAT, token, settings=closed),
    ):
        with pytest.raises(GuardRefused) as caught:
            call()
        assert token not in caught.value.message
    assert telegram_emulator.sent(token) == []


def test_a_server_that_is_not_there_is_retryable_nothing_was_sent() -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    token = new_token()
    credentials = AccountCredentials("telegram", closed, CHAT, {"bot_token": token})
    adapter = telegram.build(credentials, lambda secret: None, settings=SETTINGS)
    with pytest.raises(PublishError) as caught:
        adapter.publish(post("Nobody home."))
    assert caught.value.retryable and not caught.value.outcome_unknown
    assert caught.value.message.startswith("could not reach Telegram while sending part 1")
    assert token not in caught.value.message


# --- the text rules --------------------------------------------------------------------


def test_cuts_fall_on_paragraphs_then_sentences_then_words() -> None:
    paragraph = "A" * 3000 + ".\n\n" + "B" * 3000 + "."
    assert split(paragraph, [MAX_TEXT], MAX_TEXT) == ["A" * 3000 + ".", "B" * 3000 + "."]
    words = " ".join(["word"] * 2000)  # 9,999 characters, no sentence end
    parts = split(words, [MAX_TEXT], MAX_TEXT)
    assert all(part.startswith("word") and part.endswith("word") for part in parts)
    assert " ".join(parts) == words
    assert split("x" * 5000, [MAX_TEXT], MAX_TEXT) == ["x" * 4096, "x" * 904]  # one long word


def test_length_is_counted_in_utf16_units_so_emoji_count_two() -> None:
    text = "🚀" * 2100  # 2,100 code points, 4,200 UTF-16 units: over one message
    parts = split(text, [MAX_TEXT], MAX_TEXT)
    assert [units16(part) for part in parts] == [4096, 104]
    assert "".join(parts) == text  # never a half of a surrogate pair


def test_the_dry_run_without_an_account_shows_the_parts() -> None:
    parts = unconnected_parts(" ".join([SENTENCE] * 100), number_parts=False)
    assert len(parts) == 2
    text, details = parts[0]
    assert details == {"method": "sendMessage", "characters": units16(text), "limit": 4096}
    with pytest.raises(PublishError, match="no text and no media"):
        unconnected_parts("   ", number_parts=False)
