"""The Telegram adapter against the strict fake Bot API (tests/fakes/telegram_media_server.py),
over real sockets: photos, albums and the carousel's PDF as multipart uploads, captions
and the text after them, the channel and the bot's rights at connect, and every fault:
429, a timeout after sending, 5xx, a refused token, a chat that moved."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import httpx
import pytest

from socialgen.publishing.networks.base import (
    AccountCredentials,
    MediaItem,
    NetworkSettings,
    OutgoingPost,
    PublishError,
)
from socialgen.publishing.networks.telegram import adapter as telegram
from tests.conftest import BACKEND
from tests.fakes.telegram_media_server import FakeTelegram, Fault

pytestmark = pytest.mark.skipif(
    BACKEND == "postgresql", reason="a network's tests run on one database (SQLite)"
)

SETTINGS = NetworkSettings(allow_private_urls=True)
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4
PDF = b"%PDF-1.7\n" + bytes(range(256)) * 8 + b"\n%%EOF\n"
SENTENCE = "Small teams ship weekly because feedback beats a long plan."


@pytest.fixture
def fake() -> Iterator[FakeTelegram]:
    with FakeTelegram() as server:
        yield server


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    """A short timeout: the late-answer tests wait for it."""
    monkeypatch.setattr(f"{__name__}.SETTINGS", replace(SETTINGS, network_timeout=0.5))


def adapter_for(
    fake: FakeTelegram, handle: str = "@shipweekly", token: str = ""
) -> telegram.TelegramAdapter:
    secret = {"bot_token": token or fake.token}
    credentials = AccountCredentials("telegram", fake.base_url, handle, secret)
    return telegram.build(credentials, lambda secret: None, settings=SETTINGS)


def image(number: int) -> MediaItem:
    return MediaItem("image", PNG + bytes([number]), "image/png", alt_text=f"Slide {number}")


DECK = MediaItem("document", PDF, "application/pdf", title="Ship weekly: the deck")


def post(text: str, *media: MediaItem, posted: tuple[str, ...] = ()) -> OutgoingPost:
    return OutgoingPost("pub-1", "key-1", text, tuple(media), posted_parts=posted)


def failure(call: object) -> PublishError:
    assert callable(call)
    with pytest.raises(PublishError) as caught:
        call()
    return caught.value


# --- the fake is as strict as it says --------------------------------------------------


def test_the_fake_refuses_what_telegram_would_and_what_it_would_ignore(
    fake: FakeTelegram,
) -> None:
    def call(method: str, token: str = "", **kwargs: Any) -> tuple[int, str]:
        url = f"{fake.base_url}/bot{token or fake.token}/{method}"
        answer = httpx.post(url, **kwargs)
        return answer.status_code, str(answer.json().get("description"))

    photo = {"photo0": ("a.png", PNG, "image/png"), "doc": ("d.pdf", PDF, "application/pdf")}
    chat = {"chat_id": "@shipweekly"}
    album = [{"type": "photo", "media": "attach://photo0"}] * 11
    mixed = [
        {"type": "photo", "media": "attach://photo0"},
        {"type": "document", "media": "attach://doc"},
    ]
    assert call("sendMessage", "1:" + "B" * 35, json={**chat, "text": "x"}) == (401, "Unauthorized")
    assert call("sendMessage", json={"text": "x"}) == (400, "Bad Request: chat_id is empty")
    assert call("sendMessage", json={**chat, "text": "x", "colour": 1})[0] == 400
    assert call("sendMessage", json={**chat, "text": "x" * 4097})[1].endswith("too long")
    assert call("sendPoll", json=chat) == (404, "Not Found")
    for media, words in ((album, "wrong number"), (mixed, "can't be mixed")):
        data = {**chat, "media": json.dumps(media)}
        assert words in call("sendMediaGroup", data=data, files=photo)[1]
    long_caption = {**chat, "caption": "x" * 1025}
    files = {"photo": photo["photo0"]}
    assert "caption is too long" in call("sendPhoto", data=long_caption, files=files)[1]
    unattached = [{"type": "photo", "media": "attach://nowhere"}] * 2
    data = {**chat, "media": json.dumps(unattached)}
    assert "wrong file identifier" in call("sendMediaGroup", data=data, files=photo)[1]
    assert fake.messages == []


# --- media -----------------------------------------------------------------------------


def test_one_image_is_a_photo_with_the_text_as_caption(fake: FakeTelegram) -> None:
    published = adapter_for(fake).publish(post("Slides inside.", image(1)))
    (call,) = fake.calls
    assert call.method == "sendPhoto"
    assert call.fields == {"chat_id": "@shipweekly", "caption": "Slides inside."}
    assert call.files["photo"] == ("slide-1.png", PNG + b"\x01", "image/png")
    (message,) = fake.messages
    assert published.part_ids == (f"{fake.chat_id}/c{message.message_id}",)
    assert published.remote_id == f"{fake.chat_id}/{message.message_id}"
    assert published.url == f"https://t.me/shipweekly/{message.message_id}"


def test_images_and_the_deck_an_album_then_the_rest_then_the_pdf(fake: FakeTelegram) -> None:
    text = " ".join([SENTENCE] * 30)  # 1,799 characters: a caption and one reply
    images = [image(n) for n in range(1, 5)]
    published = adapter_for(fake).publish(post(text, DECK, *images))
    assert [call.method for call in fake.calls] == ["sendMediaGroup", "sendMessage", "sendDocument"]
    album, rest, deck = fake.calls
    assert [item["media"] for item in album.fields["media"]] == [
        f"attach://photo{n}" for n in range(4)
    ]
    caption = album.fields["media"][0]["caption"]
    assert len(caption) <= 1024 and all("caption" not in m for m in album.fields["media"][1:])
    assert f"{caption} {rest.fields['text']}" == text
    assert [album.files[f"photo{n}"][1] for n in range(4)] == [i.data for i in images]
    first = fake.messages[0].message_id
    assert rest.fields["reply_parameters"] == {"message_id": first}
    assert deck.files["document"] == ("Ship-weekly-the-deck.pdf", PDF, "application/pdf")
    assert deck.fields["caption"] == "Ship weekly: the deck"
    assert deck.fields["reply_parameters"] == {"message_id": fake.messages[4].message_id}
    ids = [m.message_id for m in fake.messages]
    assert published.part_ids == (
        f"{fake.chat_id}/c{','.join(map(str, ids[:4]))}",
        f"{fake.chat_id}/{ids[4]}",
        f"{fake.chat_id}/c{ids[5]}",
    )


def test_the_deck_alone_is_a_document_and_the_dry_run_says_what_is_left_out(
    fake: FakeTelegram,
) -> None:
    adapter = adapter_for(fake)
    adapter.publish(post("The whole deck.", DECK))
    assert [call.method for call in fake.calls] == ["sendDocument"]
    gif = MediaItem("image", b"GIF89a", "image/gif")
    prepared = adapter.prepare(post("Twelve slides.", *[image(n) for n in range(12)], gif))
    (part,) = prepared.parts
    assert part.details["method"] == "sendMediaGroup" and len(part.details["media"]) == 10
    left_out = " ".join(part.details["leftOut"])
    assert "image/gif" in left_out and "2 images past the album's 10" in left_out
    assert "alt text" in left_out
    assert len(fake.calls) == 1  # the dry run sent nothing


def test_an_album_resumed_after_its_caption_reply_never_sends_the_album_again(
    fake: FakeTelegram,
) -> None:
    adapter = adapter_for(fake)
    text = " ".join([SENTENCE] * 30)
    first = adapter.publish(post(text, image(1), image(2)))
    again = adapter.publish(post(text, image(1), image(2), posted=first.part_ids[:1]))
    assert [call.method for call in fake.calls] == ["sendMediaGroup", "sendMessage", "sendMessage"]
    assert fake.calls[2].fields["reply_parameters"] == {"message_id": fake.messages[0].message_id}
    assert again.part_ids[0] == first.part_ids[0]


def test_edit_changes_captions_and_texts_and_delete_takes_every_album_message(
    fake: FakeTelegram,
) -> None:
    adapter = adapter_for(fake)
    published = adapter.publish(post("Before.", image(1), image(2), DECK))
    edited = adapter.edit(published, "After.")
    assert [call.method for call in fake.calls[-1:]] == ["editMessageCaption"]
    assert fake.messages[0].text == "After." and fake.messages[2].text == DECK.title
    assert edited.part_ids == published.part_ids
    adapter.edit(edited, "After.")  # the same text: Telegram's "not modified" is no failure
    adapter.delete(edited)
    assert fake.messages == []
    assert len(fake.sent("deleteMessage")) == 3


# --- faults ---------------------------------------------------------------------------


def test_a_429_is_retryable_after_telegrams_retry_after(fake: FakeTelegram) -> None:
    fake.fail(Fault("status", "sendMessage", 429, parameters={"retry_after": 7}))
    error = failure(lambda: adapter_for(fake).publish(post("Busy.")))
    assert error.retryable and error.retry_after == 7.0 and not error.outcome_unknown
    assert "Too Many Requests" in error.message and fake.messages == []


def test_a_timeout_after_sending_is_unknown_and_the_parts_before_it_are_kept(
    fake: FakeTelegram, quick: None
) -> None:
    fake.fail(Fault("late", "sendMessage", seconds=1.5, times=1))
    noted: list[tuple[int, str]] = []
    outgoing = replace(
        post(" ".join([SENTENCE] * 100)), part_posted=lambda i, r: noted.append((i, r))
    )
    error = failure(lambda: adapter_for(fake).publish(outgoing))
    assert error.outcome_unknown and not error.retryable
    assert "may be live: look at the channel" in error.message
    assert fake.token not in error.message
    assert noted == []  # the first part's answer never came: nothing recorded as live
    assert len(fake.messages) == 1  # ... yet it is live: only the user can tell


def test_a_timeout_on_a_later_part_keeps_the_first_and_says_unknown(
    fake: FakeTelegram, quick: None
) -> None:
    noted: list[tuple[int, str]] = []
    outgoing = replace(
        post(" ".join([SENTENCE] * 100)), part_posted=lambda i, r: noted.append((i, r))
    )
    fake.fail(Fault("late", "sendMessage", seconds=0.0))  # the first part: answered
    fake.fail(Fault("late", "sendMessage", seconds=1.5))  # the second: live, unanswered
    adapter = adapter_for(fake)
    error = failure(lambda: adapter.publish(outgoing))
    assert error.outcome_unknown and "part 2 of 2" in error.message
    assert noted == [(0, f"{fake.chat_id}/{fake.messages[0].message_id}")]
    assert len(fake.messages) == 2


def test_a_5xx_on_a_send_is_unknown_but_on_a_read_retryable(fake: FakeTelegram) -> None:
    fake.fail(Fault("status", "sendPhoto", 502, "Bad Gateway"))
    error = failure(lambda: adapter_for(fake).publish(post("Photo.", image(1))))
    assert error.outcome_unknown and "502" in error.message
    fake.fail(Fault("status", "getMe", 500, "Internal Server Error"))
    error = failure(lambda: adapter_for(fake).check())
    assert error.retryable and not error.outcome_unknown


def test_a_refused_token_asks_to_reconnect_without_showing_it(fake: FakeTelegram) -> None:
    wrong = "999999:" + "B" * 35
    error = failure(lambda: adapter_for(fake, token=wrong).publish(post("Who?")))
    assert error.reconnect and "Unauthorized" in error.message
    assert wrong not in error.message and "socialgen accounts add telegram" in error.message
    fake.fail(
        Fault("status", "sendMessage", 403, "Forbidden: bot is not a member of the channel chat")
    )
    error = failure(lambda: adapter_for(fake).publish(post("Kicked?")))
    assert error.reconnect and "not a member" in error.message


def test_a_chat_that_moved_names_its_new_id(fake: FakeTelegram) -> None:
    moved = {"migrate_to_chat_id": -1009876543210}
    fake.fail(Fault("status", "sendMessage", 400, "Bad Request: group chat was upgraded to a "
                    "supergroup chat", parameters=moved))  # fmt: skip
    error = failure(lambda: adapter_for(fake).publish(post("Moved?")))
    assert "-1009876543210" in error.message and "accounts add telegram" in error.message
    assert not (error.retryable or error.outcome_unknown or error.reconnect)


def test_the_networks_refusals_are_plain_errors_in_its_words(fake: FakeTelegram) -> None:
    error = failure(lambda: adapter_for(fake, handle="@elsewhere").publish(post("Lost.")))
    assert "chat not found" in error.message and "(400)" in error.message
    assert not (error.retryable or error.outcome_unknown or error.reconnect)


# --- connect ---------------------------------------------------------------------------


def test_connect_reads_the_channel_and_checks_the_bot_may_post(fake: FakeTelegram) -> None:
    connected = telegram.connect(fake.base_url, "t.me/shipweekly", fake.token, settings=SETTINGS)
    assert connected.identity.handle == "@shipweekly"
    assert connected.identity.display_name == "Ship Weekly"
    assert connected.identity.profile_url == "https://t.me/shipweekly"
    assert [call.method for call in fake.calls] == ["getMe", "getChat", "getChatMember"]
    assert fake.calls[2].fields == {"chat_id": "@shipweekly", "user_id": 424242}


@pytest.mark.parametrize(
    "member",
    [{"status": "member"}, {"status": "administrator", "can_post_messages": False}],
)
def test_connect_refuses_a_bot_that_may_not_post(
    fake: FakeTelegram, member: dict[str, object]
) -> None:
    fake.member = member
    error = failure(
        lambda: telegram.connect(fake.base_url, "@shipweekly", fake.token, settings=SETTINGS)
    )
    assert "@poster_bot may not post in @shipweekly" in error.message
    assert "Administrators" in error.message


def test_connect_with_a_refused_token_and_an_unknown_chat(fake: FakeTelegram) -> None:
    wrong = "999999:" + "B" * 35
    error = failure(
        lambda: telegram.connect(fake.base_url, "@shipweekly", wrong, settings=SETTINGS)
    )
    assert error.reconnect and wrong not in error.message
    error = failure(
        lambda: telegram.connect(fake.base_url, "@nowhere_else", fake.token, settings=SETTINGS)
    )
    assert "chat not found" in error.message
