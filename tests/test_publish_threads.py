"""The Threads adapter against the fake Threads API (tests/fakes/threads_server.py),
over real sockets: text rules, threads of replies, the container's wait, and exactly
once without an idempotency key (posted parts never sent again, a publish that got
no answer settled on the account or by the container's status). Limits, tokens,
metrics, history, the guard and the sign-in are in test_publish_threads_account.py."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import httpx
import pytest

from socialgen.kit.clock import utcnow
from socialgen.publishing.networks.base import MediaItem, NetworkSettings, OutgoingPost
from socialgen.publishing.networks.threads.text import (
    MAX_CHARACTERS,
    connect_command,
    count,
    split,
    unconnected_parts,
)
from tests.conftest import BACKEND
from tests.fakes.threads_routes import USER_ID
from tests.fakes.threads_routes import count as meta_count
from tests.fakes.threads_server import FakeThreads, Fault
from tests.fakes.threads_support import LONG, SENTENCE, Parts, adapter_for, failure, post

pytestmark = pytest.mark.skipif(
    BACKEND == "postgresql", reason="a network's tests run on one database (SQLite)"
)


@pytest.fixture
def fake() -> Iterator[FakeThreads]:
    with FakeThreads() as server:
        yield server


def published_texts(fake: FakeThreads) -> list[str]:
    return [r.params["text"] for r in fake.requests_to(f"{USER_ID}/threads", "POST")]


# --- the fake is strict where a client can go wrong -------------------------------------


def test_the_fake_refuses_what_meta_refuses(fake: FakeThreads) -> None:
    auth = {"Authorization": f"Bearer {fake.add_token()}"}
    create = f"{fake.api_url}/{USER_ID}/threads"
    made = httpx.post(create, data={"media_type": "TEXT", "text": "hi"}, headers=auth).json()
    publish = f"{fake.api_url}/{USER_ID}/threads_publish"
    early = httpx.post(publish, data={"creation_id": made["id"]}, headers=auth)
    assert early.json()["error"]["code"] == 9007  # not FINISHED yet: "not ready"
    odd = httpx.post(create, data={"media_type": "TEXT", "text": "x", "link": "y"}, headers=auth)
    assert "not a valid parameter" in odd.json()["error"]["message"]
    long = httpx.post(create, data={"media_type": "TEXT", "text": "a" * 501}, headers=auth)
    assert long.status_code == 400
    anonymous = httpx.post(create, data={"media_type": "TEXT", "text": "x"})
    assert anonymous.json()["error"]["code"] == 190
    assert fake.live_texts() == []


# --- text -------------------------------------------------------------------------------


def test_an_emoji_counts_its_utf8_bytes_as_meta_counts_it() -> None:
    assert count("ab") == 2 and count("é") == 1
    for emoji in ("👍", "❤", "👩‍👩‍👧‍👦", "🇫🇷"):
        assert count(emoji) == len(emoji.encode()) == meta_count(emoji)
    text = "Launch day 🚀 " * 80
    parts = split(text)
    assert len(parts) > 2
    assert all(meta_count(part) <= MAX_CHARACTERS for part in parts)
    assert " ".join(parts).split() == text.split()


def test_a_long_post_goes_out_as_a_thread_of_replies_recorded_part_by_part(
    fake: FakeThreads,
) -> None:
    noted = Parts()
    published = adapter_for(fake).publish(post(LONG, parts=noted, number=True))
    texts = fake.live_texts()
    assert len(texts) == 3 and [t[-4:] for t in texts] == [" 1/3", " 2/3", " 3/3"]
    assert " ".join(t[:-4] for t in texts).split() == LONG.split()
    ids = list(published.part_ids)
    assert noted.noted == list(enumerate(ids)) and published.remote_id == ids[0]
    media = fake.state.media
    assert [media[i].reply_to for i in ids] == [None, ids[0], ids[1]]
    assert published.url.startswith("https://www.threads.com/@ada.codes/post/")


def test_more_than_five_links_is_refused_before_anything_is_sent(fake: FakeThreads) -> None:
    text = " ".join(f"https://example.com/{n}" for n in range(6))
    error = failure(lambda: adapter_for(fake).publish(post(text)))
    assert "at most 5 links" in error.message and not error.retryable
    assert fake.requests == []


def test_the_dry_run_says_images_are_left_out_and_how_to_connect(fake: FakeThreads) -> None:
    image = MediaItem("image", b"\x89PNG", "image/png", alt_text="slide")
    outgoing = OutgoingPost("pub-1", "key-1", LONG, (image, image), number_parts=True)
    prepared = adapter_for(fake).prepare(outgoing)
    assert len(prepared.parts) == 3
    (left,) = prepared.parts[0].details["leftOut"]
    assert "2 images" in left and "public web address" in left
    assert prepared.parts[1].details["replyTo"] == "part 1 of 3"
    unconnected = unconnected_parts(LONG, True)
    assert [text for text, _ in unconnected] == [part.text for part in prepared.parts]
    assert connect_command("@ada").startswith("socialgen accounts add threads")
    assert fake.requests == []  # a dry run calls nothing


# --- the container's wait ---------------------------------------------------------------


def test_the_container_is_published_only_once_it_says_finished(fake: FakeThreads) -> None:
    fake.state.container_polls = 2
    adapter_for(fake).publish(post())
    reads = [r for r in fake.requests if r.params.get("fields") == "status,error_message"]
    assert len(reads) == 3  # IN_PROGRESS twice, then FINISHED
    assert fake.live_texts() == ["Small teams ship weekly."]


def test_a_container_that_never_finishes_is_retried_later_not_published(
    fake: FakeThreads,
) -> None:
    fake.state.container_polls = 10_000
    adapter = adapter_for(fake)
    adapter.container_wait = 0.6
    error = failure(lambda: adapter.publish(post()))
    assert error.retryable and not error.outcome_unknown
    assert "still preparing" in error.message
    assert fake.requests_to("/threads_publish") == [] and fake.live_texts() == []


# --- exactly once -----------------------------------------------------------------------


def test_parts_already_live_are_never_sent_again(fake: FakeThreads) -> None:
    adapter = adapter_for(fake)
    first = adapter.publish(post(SENTENCE)).remote_id
    noted = Parts()
    published = adapter.publish(post(LONG, posted=(first,), parts=noted))
    texts = published_texts(fake)
    assert len(texts) == len(set(texts)) == 3  # the first part went once, before
    assert published.part_ids[0] == first and len(published.part_ids) == 3
    assert [index for index, _ in noted.noted] == [1, 2]
    assert fake.state.media[published.part_ids[1]].reply_to == first
    every = adapter.publish(post(LONG, posted=published.part_ids))
    assert every.part_ids == published.part_ids and len(published_texts(fake)) == 3


def test_a_publish_whose_answer_is_lost_is_found_on_the_account(fake: FakeThreads) -> None:
    fake.add_fault(Fault("hang", path="/threads_publish", after_processing=True, seconds=5))
    published = adapter_for(fake).publish(post())
    assert fake.live_texts() == ["Small teams ship weekly."]
    assert published.remote_id == next(iter(fake.state.media))
    assert len(fake.requests_to("/threads_publish")) == 1  # never sent again


def test_a_lost_reply_is_found_among_the_replies(fake: FakeThreads) -> None:
    fake.add_fault(Fault("drop", path="/threads_publish", after_processing=True))
    first = adapter_for(fake).publish(post(SENTENCE)).remote_id
    fake.add_fault(Fault("drop", path="/threads_publish", after_processing=True))
    published = adapter_for(fake).publish(post(LONG, posted=(first,)))
    assert len(fake.live_texts()) == 3 and len(fake.requests_to("/replies")) == 1
    assert len(published.part_ids) == 3


def test_when_the_listing_lags_the_container_status_says_it_went_out(
    fake: FakeThreads,
) -> None:
    fake.state.container_polls = 0  # FINISHED at the wait's first read
    fake.add_fault(Fault("drop", path="/threads_publish", after_processing=True))
    fake.add_fault(Fault("status", path=f"{USER_ID}/threads", method="GET", status=503))
    # No fault here hangs: a timeout well above a loaded machine's slowest answer.
    roomy = NetworkSettings(allow_private_urls=True, network_timeout=5.0)
    published = adapter_for(fake, settings=roomy).publish(post())
    assert fake.live_texts() == ["Small teams ship weekly."]
    status_reads = [r for r in fake.requests if r.params.get("fields") == "status,error_message"]
    assert len(status_reads) == 2  # the wait, then the settling
    assert published.remote_id in fake.state.media


def test_a_publish_that_never_arrived_is_retried_and_then_goes_out_once(
    fake: FakeThreads,
) -> None:
    adapter = adapter_for(fake)
    fake.add_fault(Fault("drop", path="/threads_publish"))  # dropped before Meta acts
    started = utcnow()
    error = failure(lambda: adapter.publish(post()))
    assert error.retryable and not error.outcome_unknown
    assert "not live" in error.message and fake.live_texts() == []
    adapter.publish(post(earlier=started))
    assert fake.live_texts() == ["Small teams ship weekly."]


def test_an_earlier_attempt_found_live_is_not_sent_again(fake: FakeThreads) -> None:
    adapter = adapter_for(fake)
    before = utcnow()
    first = adapter.publish(post(LONG))
    sent = len(fake.requests_to(f"{USER_ID}/threads", "POST"))
    again = adapter.publish(post(LONG, posted=first.part_ids[:1], earlier=before))
    assert again.part_ids == first.part_ids
    assert len(fake.requests_to(f"{USER_ID}/threads", "POST")) == sent  # no container
    assert len(fake.live_texts()) == 3


def test_an_older_post_with_the_same_text_is_not_taken_for_this_one(
    fake: FakeThreads,
) -> None:
    fake.add_past_post("Small teams ship weekly.", utcnow() - timedelta(days=3))
    published = adapter_for(fake).publish(post(earlier=utcnow() - timedelta(minutes=1)))
    assert fake.live_texts() == ["Small teams ship weekly."] * 2
    assert published.remote_id == list(fake.state.media)[-1]


def test_when_nothing_can_tell_the_outcome_is_unknown_and_says_what_to_check(
    fake: FakeThreads,
) -> None:
    token = fake.add_token()
    fake.add_fault(Fault("drop", path="/threads_publish", after_processing=True))
    fake.state.container_polls = 0  # FINISHED at the wait's first read
    # The listing fails, and the container's status past the wait's one read.
    fake.add_fault(Fault("status", path=f"{USER_ID}/threads", method="GET", status=503))
    status = "status,error_message"
    fake.add_fault(Fault("status", fields=status, status=503, skip=1, times=5))
    adapter = adapter_for(fake, token)
    error = failure(lambda: adapter.publish(post()))
    assert error.outcome_unknown and not error.retryable
    assert "check your Threads profile" in error.message and token not in error.message
    assert "--retry" in error.message
