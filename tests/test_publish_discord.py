"""The Discord adapter against the fake Discord (tests/fakes/discord_server.py), over
real sockets: the fake's own strictness, one message and its details, long posts as
consecutive messages, attachments, mentions never parsed, exactly once with
`posted_parts`, timeouts, 5xx, 429 and the rate-limit headers, a deleted webhook, the
SSRF guard. Edits, deletes, connect and check: test_publish_discord_connect.py; the
outbox end to end: test_publish_discord_outbox.py."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import httpx
import pytest

from socialgen.publishing.networks.base import (
    AccountCredentials,
    MediaItem,
    NetworkSettings,
    OutgoingPost,
    PublishError,
)
from socialgen.publishing.networks.discord import adapter as discord
from socialgen.publishing.networks.discord.client import WebhookClient
from socialgen.publishing.networks.discord.text import MAX_CHARACTERS, length, split
from socialgen.publishing.networks.guarded_http import GuardRefused
from tests.conftest import BACKEND
from tests.fakes.discord_server import FakeDiscord, FakeWebhook, Fault

pytestmark = pytest.mark.skipif(
    BACKEND == "postgresql", reason="a network's tests run on one database (SQLite)"
)

SETTINGS = NetworkSettings(allow_private_urls=True)  # the fake lives on 127.0.0.1
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8 + b"\r\n--x\r\n"  # bytes a parser could mangle
PDF = b"%PDF-1.7\n" + bytes(range(256)) * 20 + b"\n%%EOF\n"
SENTENCE = "Small teams ship weekly because feedback beats a long plan."
LONG = "\n\n".join(" ".join([SENTENCE] * 15) for _ in range(5))  # 5 paragraphs of ~900


@pytest.fixture
def fake() -> Iterator[FakeDiscord]:
    with FakeDiscord() as server:
        yield server


@pytest.fixture
def hook(fake: FakeDiscord) -> FakeWebhook:
    return fake.add_webhook("Release notes")


class Sleeps(list[float]):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)
        time.sleep(seconds)


def adapter_for(
    fake: FakeDiscord,
    hook: FakeWebhook,
    *,
    timeout: float = 2.0,
    sleep: Sleeps | None = None,
    settings: NetworkSettings = SETTINGS,
) -> discord.DiscordAdapter:
    secret = {"webhook_url": fake.url_of(hook)}
    credentials = AccountCredentials("discord", fake.base_url, "#releases", secret)
    return discord.DiscordAdapter(
        credentials, settings=settings, timeout=timeout, sleep=Sleeps() if sleep is None else sleep
    )


class Noted(dict[int, str]):
    def __call__(self, index: int, remote_id: str) -> None:
        self[index] = remote_id


def post(
    text: str = "Shipped: weekly releases.",
    *media: MediaItem,
    posted: tuple[str, ...] = (),
    noted: Noted | None = None,
    number_parts: bool = False,
) -> OutgoingPost:
    return OutgoingPost("pub-1", "key-1", text, tuple(media), number_parts, posted, None, noted)


def failure(call: object, hook: FakeWebhook) -> PublishError:
    assert callable(call)
    with pytest.raises(PublishError) as caught:
        call()
    assert hook.token not in caught.value.message  # never the webhook's secret
    return caught.value


# --- the fake is as strict as Discord ---------------------------------------------------


def test_the_fake_refuses_what_discord_refuses_and_needs_wait_for_an_answer(
    fake: FakeDiscord, hook: FakeWebhook
) -> None:
    url = fake.url_of(hook)
    quiet = httpx.post(url, json={"content": "no wait"})
    assert quiet.status_code == 204 and quiet.content == b""  # created, but no id
    assert fake.texts() == ["no wait"]
    too_long = httpx.post(url, params={"wait": "true"}, json={"content": "x" * 2001})
    assert too_long.status_code == 400 and too_long.json()["code"] == 50035
    assert "content" in too_long.json()["errors"]
    assert httpx.post(url, params={"wait": "true"}, json={"content": " "}).json()["code"] == 50006
    garbled = httpx.post(url, content=b"{", headers={"Content-Type": "application/json"})
    assert garbled.json()["code"] == 50109
    assert httpx.get(url.replace(hook.token, "-" * len(hook.token))).status_code == 401
    assert httpx.get(url.replace(hook.id, "42")).json()["code"] == 10015
    extra = httpx.post(url, params={"wait": "true"}, json={"content": "ok", "nonsense": 1})
    assert extra.status_code == 200  # Discord ignores fields it does not know
    pinged = httpx.post(url, params={"wait": "true"}, json={"content": "@everyone hi"})
    assert pinged.json()["mention_everyone"] is True  # what allowed_mentions prevents
    assert "x-ratelimit-remaining" in pinged.headers


def test_the_fake_reads_files_as_discord_does_and_refuses_bad_forms(
    fake: FakeDiscord, hook: FakeWebhook
) -> None:
    url, wait = fake.url_of(hook), {"wait": "true"}
    payload = {"attachments": [{"id": 0, "filename": "a.png", "description": "alt"}]}
    one = [("files[0]", ("x.png", PNG, "image/png"))]
    sent = httpx.post(url, params=wait, data={"payload_json": json.dumps(payload)}, files=one)
    assert sent.json()["attachments"][0]["filename"] == "a.png"
    assert fake.live(hook)[0].files[0].data == PNG  # byte for byte
    bad = httpx.post(url, params=wait, data={"payload_json": "{"}, files=one)
    assert bad.json()["code"] == 50109
    orphan = {"attachments": [{"id": 3, "filename": "b.png"}]}
    missing = httpx.post(url, params=wait, data={"payload_json": json.dumps(orphan)}, files=one)
    assert missing.status_code == 400 and "attachments" in missing.json()["errors"]
    eleven = [(f"files[{n}]", (f"{n}.png", PNG, "image/png")) for n in range(11)]
    assert httpx.post(url, params=wait, files=eleven).json()["code"] == 50035
    assert len(fake.live(hook)) == 1


# --- one message ----------------------------------------------------------------------


def test_a_post_is_one_message_sent_with_wait_that_pings_nobody(
    fake: FakeDiscord, hook: FakeWebhook
) -> None:
    noted = Noted()
    published = adapter_for(fake, hook).publish(post("Ship it @everyone @here", noted=noted))
    (message,) = fake.live(hook)
    assert message.content == "Ship it @everyone @here"
    assert message.mention_everyone is False and message.allowed_mentions == {"parse": []}
    assert published.remote_id == message.id and published.part_ids == (message.id,)
    assert published.url == (
        f"https://discord.com/channels/{hook.guild_id}/{hook.channel_id}/{message.id}"
    )
    assert noted == {0: message.id}
    (sent,) = fake.requests_to("POST")
    assert sent.query["wait"] == ["true"] and sent.path.startswith("/api/v10/webhooks/")
    assert sent.headers["user-agent"].startswith("DiscordBot (")
    assert "authorization" not in sent.headers


def test_the_dry_run_shows_each_message_and_sends_nothing(
    fake: FakeDiscord, hook: FakeWebhook
) -> None:
    prepared = adapter_for(fake, hook).prepare(post(LONG))
    assert [part.text for part in prepared.parts] == split(LONG)
    first = prepared.parts[0].details
    assert first["limit"] == MAX_CHARACTERS and first["characters"] == length(split(LONG)[0])
    assert "never pinged" in first["allowedMentions"]
    assert fake.requests == []


# --- long posts -------------------------------------------------------------------------


def test_a_long_post_goes_as_consecutive_messages_cut_at_paragraphs(
    fake: FakeDiscord, hook: FakeWebhook
) -> None:
    published = adapter_for(fake, hook).publish(post(LONG))
    texts = fake.texts(hook)
    assert len(texts) == 3 and all(len(text) <= MAX_CHARACTERS for text in texts)
    assert "\n\n".join(texts) == LONG  # cut where paragraphs end: nothing lost
    assert published.part_ids == tuple(message.id for message in fake.live(hook))


def test_numbered_parts_end_with_their_place_and_still_fit() -> None:
    parts = split(LONG, number_parts=True)
    assert [part.rsplit(" ", 1)[1] for part in parts] == ["1/3", "2/3", "3/3"]
    assert all(len(part) <= MAX_CHARACTERS for part in parts)
    many = split(("word " * 500 + "\n\n") * 12, number_parts=True)
    assert len(many) >= 10 and many[-1].endswith(f" {len(many)}/{len(many)}")
    assert all(length(part) <= MAX_CHARACTERS for part in many)


def test_the_split_falls_back_to_sentences_words_and_counts_emoji_twice() -> None:
    sentences = " ".join(f"Sentence number {n} ends here." for n in range(120))
    first, *_ = split(sentences)
    assert first.endswith("ends here.")
    assert split("a" * 4500) == ["a" * 2000, "a" * 2000, "a" * 500]
    emoji = "\U0001f680" * 1500  # 3,000 UTF-16 units, as the web app counts them
    parts = split(emoji)
    assert [length(part) for part in parts] == [2000, 1000] and "".join(parts) == emoji
    assert split("  short  ") == ["short"]


# --- files ------------------------------------------------------------------------------


def test_images_and_the_pdf_are_attachments_of_the_first_message(
    fake: FakeDiscord, hook: FakeWebhook
) -> None:
    media = (
        MediaItem("document", PDF, "application/pdf", title="Ship Weekly!"),
        MediaItem("image", PNG, "image/png", alt_text="Slide 1: why"),
        MediaItem("image", PNG[::-1], "image/png", alt_text="Slide 2: how"),
    )
    adapter_for(fake, hook).publish(post(LONG, *media))
    first, *rest = fake.live(hook)
    assert [f.filename for f in first.files] == ["image-01.png", "image-02.png", "ship-weekly.pdf"]
    assert [f.data for f in first.files] == [PNG, PNG[::-1], PDF]
    assert [f.description for f in first.files] == ["Slide 1: why", "Slide 2: how", "Ship Weekly!"]
    assert [f.content_type for f in first.files] == ["image/png", "image/png", "application/pdf"]
    assert first.mention_everyone is False and len(rest) == 2
    assert all(message.files == [] for message in rest)


def test_files_past_ten_are_left_out_and_too_many_bytes_are_refused_before_sending(
    fake: FakeDiscord, hook: FakeWebhook
) -> None:
    adapter = adapter_for(fake, hook)
    twelve = tuple(MediaItem("image", PNG, "image/png", alt_text=f"{n}") for n in range(12))
    details = adapter.prepare(post("Deck", *twelve)).parts[0].details
    assert len(details["files"]) == 10
    assert details["leftOut"] == [
        "2 file(s) (image) left out: a Discord message takes at most 10 files"
    ]
    adapter.publish(post("Deck", *twelve))
    assert len(fake.live(hook)[0].files) == 10
    heavy = MediaItem("document", b"%PDF" + b"0" * (11 * 1024 * 1024), "application/pdf")
    for call in (adapter.prepare, adapter.publish):
        error = failure(lambda call=call: call(post("Big", heavy)), hook)
        assert "11.0 MiB" in error.message and "at most 10 MiB" in error.message
    assert len(fake.requests_to("POST")) == 1  # only the deck of ten


def test_a_post_of_files_only_has_no_content_and_nothing_at_all_is_refused(
    fake: FakeDiscord, hook: FakeWebhook
) -> None:
    adapter = adapter_for(fake, hook)
    adapter.publish(post("", MediaItem("image", PNG, "image/png")))
    assert fake.texts(hook) == [""] and len(fake.live(hook)[0].files) == 1
    assert "no text and no files" in failure(lambda: adapter.publish(post("  ")), hook).message


# --- exactly once ---------------------------------------------------------------------


def test_a_dropped_part_is_unknown_and_the_retry_sends_only_the_parts_not_yet_live(
    fake: FakeDiscord, hook: FakeWebhook
) -> None:
    adapter = adapter_for(fake, hook)
    noted = Noted()
    fake.add_fault(Fault("drop", method="POST", skip=1))  # the second message's answer
    error = failure(lambda: adapter.publish(post(LONG, noted=noted)), hook)
    assert error.outcome_unknown and "Check the Discord channel" in error.message
    assert list(noted) == [0] and len(fake.live(hook)) == 1  # dropped before it was made
    again = Noted()
    published = adapter.publish(post(LONG, posted=(noted[0],), noted=again))
    assert fake.texts(hook) == split(LONG)  # each part once, in order
    assert published.part_ids == tuple(m.id for m in fake.live(hook))
    assert published.remote_id == noted[0] and list(again) == [1, 2]
    assert adapter.publish(post(LONG, posted=published.part_ids)).part_ids == published.part_ids
    assert len(fake.requests_to("POST")) == 4  # all live: nothing sent the third time


def test_a_timeout_after_the_message_was_made_is_unknown_and_says_check_the_channel(
    fake: FakeDiscord, hook: FakeWebhook
) -> None:
    fake.add_fault(Fault("hang", method="POST", after_processing=True, seconds=5))
    adapter = adapter_for(fake, hook, timeout=0.4)
    error = failure(lambda: adapter.publish(post()), hook)
    assert error.outcome_unknown and not error.retryable
    assert "within 0.4 s" in error.message and "Check the Discord channel" in error.message
    assert fake.texts(hook) == ["Shipped: weekly releases."]  # it is live


def test_a_5xx_on_a_message_is_unknown_and_on_a_read_is_retryable(
    fake: FakeDiscord, hook: FakeWebhook
) -> None:
    adapter = adapter_for(fake, hook)
    fake.add_fault(Fault("status", method="POST", status=500, after_processing=True))
    sent = failure(lambda: adapter.publish(post()), hook)
    assert sent.outcome_unknown and "500" in sent.message
    fake.add_fault(Fault("status", method="GET", status=503))
    read = failure(adapter.check, hook)
    assert read.retryable and not read.outcome_unknown
    assert len(fake.live(hook)) == 1  # the 500 came after Discord made it


def test_no_server_is_retryable_nothing_was_sent(hook: FakeWebhook) -> None:
    with FakeDiscord() as gone:
        base = gone.base_url
    credentials = AccountCredentials(
        "discord", base, "#x", {"webhook_url": f"{base}/webhooks/{hook.id}/{hook.token}"}
    )
    adapter = discord.DiscordAdapter(credentials, settings=SETTINGS, timeout=0.5)
    error = failure(lambda: adapter.publish(post()), hook)
    assert error.retryable and not error.outcome_unknown


# --- rate limits --------------------------------------------------------------------------


def test_a_short_429_is_waited_for_and_a_long_one_is_retryable_with_its_wait(
    fake: FakeDiscord, hook: FakeWebhook
) -> None:
    sleeps = Sleeps()
    adapter = adapter_for(fake, hook, sleep=sleeps)
    fake.add_fault(Fault("status", method="POST", status=429, retry_after=0.25))
    adapter.publish(post("after a short wait"))
    assert sleeps == [0.25] and fake.texts(hook) == ["after a short wait"]
    fake.add_fault(Fault("status", method="POST", status=429, retry_after=64.57))
    error = failure(lambda: adapter.publish(post("later")), hook)
    assert error.retryable and error.retry_after == 64.57 and "rate limiting" in error.message
    assert fake.texts(hook) == ["after a short wait"]


def test_an_empty_bucket_is_waited_for_rather_than_met_with_a_429(hook: FakeWebhook) -> None:
    with FakeDiscord(limit=2, window=1.2) as fake:
        busy = fake.add_webhook()
        sleeps = Sleeps()
        adapter_for(fake, busy, sleep=sleeps).publish(post(LONG))
        assert len(fake.texts(busy)) == 3 and fake.rate_limited == 0
        assert len(sleeps) == 1 and 0 < sleeps[0] <= 1.2


def test_a_bucket_empty_for_long_stops_the_thread_where_it_is(hook: FakeWebhook) -> None:
    with FakeDiscord(limit=1, window=30) as fake:
        busy = fake.add_webhook()
        noted = Noted()
        error = failure(lambda: adapter_for(fake, busy).publish(post(LONG, noted=noted)), busy)
        assert error.retryable and error.retry_after is not None and error.retry_after > 25
        assert list(noted) == [0] and len(fake.texts(busy)) == 1 and fake.rate_limited == 0


# --- refusals ---------------------------------------------------------------------------


def test_a_deleted_webhook_or_a_reset_token_asks_to_reconnect(
    fake: FakeDiscord, hook: FakeWebhook
) -> None:
    wrong = fake.add_webhook()
    stale_token = "0" * len(wrong.token)  # the token before someone reset it
    stale_url = fake.url_of(wrong).replace(wrong.token, stale_token)
    credentials = AccountCredentials("discord", fake.base_url, "#x", {"webhook_url": stale_url})
    stale = discord.DiscordAdapter(credentials, settings=SETTINGS)
    refused = failure(lambda: stale.publish(post()), wrong)
    assert refused.reconnect and stale_token not in refused.message
    assert "Invalid Webhook Token" in refused.message
    fake.delete_webhook(hook)
    error = failure(lambda: adapter_for(fake, hook).publish(post()), hook)
    assert error.reconnect and "Unknown Webhook, code 10015" in error.message
    assert "socialgen accounts add discord" in error.message
    assert fake.live() == []


def test_discord_s_words_for_a_refused_message_name_the_field(
    fake: FakeDiscord, hook: FakeWebhook
) -> None:
    client = WebhookClient(fake.base_url, hook.id, hook.token, allow_private=True)
    with pytest.raises(PublishError) as caught:
        client.send_message({"content": "x" * 2001}, [])
    error = caught.value
    assert "Invalid Form Body, code 50035: content: Must be 2000 or fewer" in error.message
    assert not (error.retryable or error.outcome_unknown or error.reconnect)
    client.close()


def test_a_webhook_on_a_private_address_is_refused_unless_allowed(
    fake: FakeDiscord, hook: FakeWebhook
) -> None:
    closed = adapter_for(fake, hook, settings=NetworkSettings(allow_private_urls=False))
    for call in (closed.check, lambda: closed.prepare(post()), lambda: closed.publish(post())):
        error = failure(call, hook)
        assert isinstance(error, GuardRefused) and not error.retryable
    assert fake.requests == []
