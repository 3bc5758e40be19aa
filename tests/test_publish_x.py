"""The X adapter against the fake X (tests/fakes/x_server.py) over real sockets: posts,
threads, images, faults and exactly once. Tokens, metrics, history and the sign-in
are in test_publish_x_account.py; the outbox end to end in test_publish_x_outbox.py."""

from __future__ import annotations

import socket
import time
from datetime import timedelta

import httpx
import pytest

from socialgen.kit.clock import utcnow
from socialgen.publishing.networks.base import AccountCredentials, MediaItem, NetworkSettings
from socialgen.publishing.networks.guarded_http import GuardRefused
from socialgen.publishing.networks.x import adapter as x
from socialgen.publishing.networks.x.text import weighted_length
from tests.conftest import BACKEND
from tests.fakes.x_server import FakeX, Fault
from tests.fakes.x_support import (
    PNG,
    SETTINGS,
    THREAD,
    Noted,
    Saved,
    adapter_for,
    failure,
    image,
    on_create,
    post,
)
from tests.fakes.x_support import _quick_second_look as _quick_second_look  # autouse
from tests.fakes.x_support import fake as fake  # the fixture

pytestmark = pytest.mark.skipif(
    BACKEND == "postgresql", reason="a network's tests run on one database (SQLite)"
)


def creates(fake: FakeX) -> int:
    return len(fake.requests_to("/2/tweets", "POST"))


# --- posts and threads ------------------------------------------------------------------


def test_a_post_goes_out_once_and_links_to_its_page(fake: FakeX) -> None:
    published = adapter_for(fake).publish(post("Ship weekly & learn <fast>."))
    (tweet,) = fake.posts
    assert tweet.sent_text == "Ship weekly & learn <fast>."
    assert published.remote_id == tweet.id and published.part_ids == (tweet.id,)
    assert published.url == f"https://x.com/ada_ships/status/{tweet.id}"


def test_a_long_text_is_a_chain_of_replies_each_recorded_as_it_goes(fake: FakeX) -> None:
    noted = Noted()
    published = adapter_for(fake).publish(post(THREAD, noted=noted))
    tweets = fake.posts
    assert len(tweets) == 3
    assert [t.reply_to for t in tweets] == [None, tweets[0].id, tweets[1].id]
    assert all(weighted_length(t.sent_text) <= 280 for t in tweets)
    assert " ".join(t.sent_text for t in tweets) == THREAD
    assert noted == [(index, t.id) for index, t in enumerate(tweets)]
    assert published.part_ids == tuple(t.id for t in tweets)


def test_the_fake_refuses_what_x_refuses(fake: FakeX) -> None:
    """The fake's strictness, so the tests above could fail."""
    headers = {"Authorization": f"Bearer {fake.add_token()}"}
    url = f"{fake.base_url}/2/tweets"
    unknown = httpx.post(url, headers=headers, json={"text": "hi", "status": "hi"})
    assert unknown.status_code == 400 and "$.status" in unknown.json()["errors"][0]["message"]
    heavy = httpx.post(url, headers=headers, json={"text": "的" * 141})
    assert heavy.status_code == 403 and "too long" in heavy.json()["detail"]
    assert httpx.post(url, headers=headers, json={"text": "的" * 140}).status_code == 201
    twice = httpx.post(url, headers=headers, json={"text": "的" * 140})
    assert twice.status_code == 403 and "duplicate content" in twice.json()["detail"]
    assert httpx.post(url, json={"text": "no token"}).status_code == 401
    reader = {"Authorization": f"Bearer {fake.add_token(frozenset({'tweet.read', 'users.read'}))}"}
    denied = httpx.post(url, headers=reader, json={"text": "no write scope"})
    assert denied.status_code == 403 and "tweet.write" in denied.json()["detail"]
    assert len(fake.posts) == 1


def test_prepare_shows_the_parts_their_images_and_what_is_left_out(fake: FakeX) -> None:
    deck = MediaItem("document", b"%PDF-1.7 ...", "application/pdf", title="Deck")
    slides = [image(n) for n in range(1, 11)]
    prepared = adapter_for(fake).prepare(post(" ".join([THREAD[:200]] * 2), *slides, deck))
    first, second = prepared.parts
    assert [len(first.details["media"]), len(second.details["media"])] == [4, 4]
    assert second.details["inReplyTo"] == "part 1"
    assert first.details["weightedLength"] <= first.details["limit"] == 280
    left_out = first.details["leftOut"]
    assert any("PDF is left out" in sentence for sentence in left_out)
    assert any("Images 9 to 10 left out" in sentence for sentence in left_out)
    assert fake.requests == []  # a dry run sends nothing


def test_images_go_four_per_post_down_the_thread_with_their_alt_text(fake: FakeX) -> None:
    slides = [image(n, f"Slide {n} of the deck") for n in range(1, 7)]
    adapter_for(fake).publish(post(THREAD, *slides))
    first, second, third = fake.posts
    assert (len(first.media_ids), len(second.media_ids), third.media_ids) == (4, 2, ())
    uploaded = [fake.state.media[m] for m in first.media_ids + second.media_ids]
    assert [m["bytes"] for m in uploaded] == [s.data for s in slides]
    assert [m["alt"] for m in uploaded] == [s.alt_text for s in slides]
    assert {m["category"] for m in uploaded} == {"tweet_image"}


def test_a_post_of_images_only_has_no_text(fake: FakeX) -> None:
    adapter_for(fake).publish(post("", image(1)))
    (tweet,) = fake.posts
    assert tweet.sent_text == "" and len(tweet.media_ids) == 1
    assert failure(lambda: adapter_for(fake).publish(post("  "))).message.endswith("no images")


# --- exactly once -----------------------------------------------------------------------


def test_429_on_part_two_waits_for_the_reset_and_the_retry_never_reposts_part_one(
    fake: FakeX,
) -> None:
    fake.add_fault(on_create("status", status=429, reset_in=30, skip=1))
    noted = Noted()
    limited = failure(lambda: adapter_for(fake).publish(post(THREAD, noted=noted)))
    assert limited.retryable and not limited.outcome_unknown
    assert limited.retry_after is not None and 25 <= limited.retry_after <= 31
    assert [index for index, _ in noted] == [0] and len(fake.posts) == 1
    posted = (noted[0][1],)  # what the outbox hands the next attempt
    published = adapter_for(fake).publish(post(THREAD, posted=posted))
    tweets = fake.posts
    assert len(tweets) == 3 and len({t.sent_text for t in tweets}) == 3
    assert tweets[1].reply_to == posted[0] and tweets[2].reply_to == tweets[1].id
    assert published.part_ids == tuple(t.id for t in tweets)


def test_every_part_already_posted_sends_nothing(fake: FakeX) -> None:
    published = adapter_for(fake).publish(post(THREAD))
    again = adapter_for(fake).publish(post(THREAD, posted=published.part_ids))
    assert again.part_ids == published.part_ids and creates(fake) == 3


def test_a_timeout_after_the_post_was_created_finds_it_and_goes_on(fake: FakeX) -> None:
    fake.add_fault(on_create("hang", after_processing=True, seconds=3, skip=1))
    noted = Noted()
    started = time.monotonic()
    published = adapter_for(fake).publish(post(THREAD, noted=noted))
    assert time.monotonic() - started < 3  # gave up after the 0.5 s timeout
    tweets = fake.posts
    assert len(tweets) == 3 and creates(fake) == 3  # part 2 found, never sent again
    assert published.part_ids == tuple(t.id for t in tweets)
    assert noted == [(index, t.id) for index, t in enumerate(tweets)]


def test_a_dropped_answer_while_the_timeline_lags_is_unknown_never_resent(fake: FakeX) -> None:
    fake.state.timeline_lag = timedelta(minutes=5)
    fake.add_fault(on_create("drop", after_processing=True))
    error = failure(lambda: adapter_for(fake).publish(post()))
    assert error.outcome_unknown and not error.retryable
    assert "check https://x.com/ada_ships" in error.message and "--retry" in error.message
    assert len(fake.posts) == 1 and creates(fake) == 1  # live once, and only once
    assert len(fake.requests_to("/2/users/2244994945/tweets")) == 2  # looked twice


def test_nothing_created_and_nothing_found_is_still_unknown(fake: FakeX) -> None:
    """Right after a timeout, "not on the timeline" proves nothing (it lags)."""
    fake.add_fault(on_create("drop"))
    assert failure(lambda: adapter_for(fake).publish(post())).outcome_unknown
    fake.add_fault(on_create("status", status=503))
    assert failure(lambda: adapter_for(fake).publish(post())).outcome_unknown
    assert fake.posts == []


def test_a_retry_after_an_unanswered_attempt_looks_first_and_sends_only_the_rest(
    fake: FakeX,
) -> None:
    before = utcnow()
    fake.state.timeline_lag = timedelta(minutes=5)
    fake.add_fault(on_create("drop", after_processing=True, skip=1))
    noted = Noted()
    assert failure(lambda: adapter_for(fake).publish(post(THREAD, noted=noted))).outcome_unknown
    assert len(fake.posts) == 2 and len(noted) == 1  # part 2 is live, unrecorded
    fake.state.timeline_lag = timedelta(0)  # X lists it now; the user retries
    retry = Noted()
    published = adapter_for(fake).publish(
        post(THREAD, posted=(noted[0][1],), earlier=before, noted=retry)
    )
    tweets = fake.posts
    assert len(tweets) == 3 and creates(fake) == 3  # part 2 found, part 3 sent
    assert retry == [(1, tweets[1].id), (2, tweets[2].id)]
    assert published.part_ids == tuple(t.id for t in tweets)


def test_an_earlier_attempt_that_went_live_is_found_before_sending(fake: FakeX) -> None:
    before = utcnow()
    first = adapter_for(fake).publish(post("Live, unanswered: https://example.com/a?b=1 & more"))
    again = adapter_for(fake).publish(
        post("Live, unanswered: https://example.com/a?b=1 & more", earlier=before)
    )
    assert again.remote_id == first.remote_id and creates(fake) == 1


def test_duplicate_content_is_a_clear_failure_unless_it_is_our_earlier_attempt(
    fake: FakeX,
) -> None:
    adapter_for(fake).publish(post("Said once."))
    error = failure(lambda: adapter_for(fake).publish(post("Said once.")))
    assert not (error.retryable or error.outcome_unknown or error.reconnect)
    assert "duplicate content" in error.message and "change the text" in error.message
    before = utcnow()
    fake.state.timeline_lag = timedelta(minutes=5)  # the first look misses it...
    fake.add_fault(on_create("drop", after_processing=True))
    assert failure(lambda: adapter_for(fake).publish(post("Said twice?"))).outcome_unknown
    fake.state.timeline_lag = timedelta(0)
    found = adapter_for(fake).publish(post("Said twice?", earlier=before))
    assert found.remote_id == fake.posts[-1].id and len(fake.posts) == 2


# --- faults before sending, and the guard -------------------------------------------------


def test_a_connection_refused_before_sending_is_retryable(fake: FakeX) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    credentials = AccountCredentials(
        "x", f"http://127.0.0.1:{closed}", "@ada_ships", {"access_token": "t", "user_id": "1"}
    )
    error = failure(lambda: x.build(credentials, Saved(), settings=SETTINGS).publish(post()))
    assert error.retryable and not error.outcome_unknown


def test_an_upload_that_fails_is_retryable_and_posts_nothing(fake: FakeX) -> None:
    fake.add_fault(Fault("status", path="/2/media/upload", status=503))
    error = failure(lambda: adapter_for(fake).publish(post("With a chart", image(1))))
    assert error.retryable and not error.outcome_unknown and fake.posts == []


def test_a_private_host_is_refused_when_private_urls_are_not_allowed(fake: FakeX) -> None:
    guarded = adapter_for(fake, settings=NetworkSettings(allow_private_urls=False))
    for call in (lambda: guarded.publish(post()), lambda: guarded.prepare(post())):
        error = failure(call)
        assert isinstance(error, GuardRefused) and not error.retryable
    assert fake.requests == []


def test_no_message_carries_the_token(fake: FakeX) -> None:
    token = fake.add_token(frozenset({"tweet.read", "users.read"}))
    error = failure(lambda: adapter_for(fake, {"access_token": token}).publish(post(PNG.hex())))
    assert error.reconnect and "tweet.write" in error.message and token not in error.message
