"""The Nostr adapter against a real relay (nostr-relay, tests/nostr_support.py) over
real sockets: notes arrive signed and tagged, a long post is a NIP-10 thread, parts
already live are never sent again, a resend is the same event, and every fault: a
tampered signature, a relay down, a lost answer, rate limits, refusals, the SSRF
guard. What the relay holds is read with our own REQ in tests/nostr_support.py."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from socialgen.publishing.networks.base import MediaItem, NetworkSettings, PublishError
from socialgen.publishing.networks.guarded_http import GuardRefused
from socialgen.publishing.networks.nostr import adapter as nostr
from socialgen.publishing.networks.nostr import keys
from socialgen.publishing.networks.nostr.keys import (
    bech32_decode,
    verify_event,
)
from tests.conftest import BACKEND
from tests.nostr_support import (
    THREAD,
    LostAnswers,
    NostrRelay,
    adapter_for,
    down_url,
    new_key,
    outgoing,
)
from tests.nostr_support import nostr_relay as nostr_relay  # the fixture

pytestmark = pytest.mark.skipif(
    BACKEND == "postgresql", reason="a network's tests run on one database (SQLite)"
)


class Recorder:
    """OutgoingPost.part_posted: the parts as they go live; `fail_after` stops the
    attempt there (a worker dying between parts)."""

    def __init__(self, fail_after: int | None = None) -> None:
        self.calls: list[tuple[int, str]] = []
        self.fail_after = fail_after

    def __call__(self, index: int, remote_id: str) -> None:
        self.calls.append((index, remote_id))
        if self.fail_after is not None and index >= self.fail_after:
            raise RuntimeError("the worker died here")


def test_a_note_arrives_signed_with_its_hashtags_as_t_tags(nostr_relay: NostrRelay) -> None:
    signer = new_key()
    published = adapter_for(signer, nostr_relay.url).publish(
        outgoing("Ship weekly #Nostr #DevLife #nostr")
    )
    (note,) = nostr_relay.notes_of(signer.pubkey)
    assert note["id"] == published.remote_id and published.part_ids == (note["id"],)
    assert note["content"] == "Ship weekly #Nostr #DevLife #nostr" and note["kind"] == 1
    assert note["tags"] == [["t", "nostr"], ["t", "devlife"]]
    assert verify_event(note) and note["pubkey"] == signer.pubkey
    assert abs(note["created_at"] - datetime.now(UTC).timestamp()) < 60
    name = published.url.removeprefix("https://njump.me/")
    assert bech32_decode(name) == ("note", bytes.fromhex(note["id"]))


def test_a_long_post_is_a_thread_of_nip10_replies(nostr_relay: NostrRelay) -> None:
    signer = new_key()
    recorder = Recorder()
    published = adapter_for(signer, nostr_relay.url).publish(outgoing(THREAD, part_posted=recorder))
    notes = sorted(nostr_relay.notes_of(signer.pubkey), key=lambda e: e["created_at"])
    ids = [note["id"] for note in notes]
    assert len(notes) == 3 and published.part_ids == tuple(ids) and published.remote_id == ids[0]
    assert recorder.calls == list(enumerate(ids))  # each recorded as it went live
    assert "\n\n".join(note["content"] for note in notes) == THREAD
    hint = nostr_relay.url
    assert notes[0]["tags"] == []
    assert notes[1]["tags"] == [["e", ids[0], hint, "root"], ["p", signer.pubkey]]
    assert notes[2]["tags"] == [
        ["e", ids[0], hint, "root"],
        ["e", ids[1], hint, "reply"],
        ["p", signer.pubkey],
    ]
    assert notes[0]["created_at"] < notes[1]["created_at"] < notes[2]["created_at"]


def test_parts_already_live_are_never_sent_again(nostr_relay: NostrRelay) -> None:
    signer = new_key()
    adapter = adapter_for(signer, nostr_relay.url)
    first = Recorder(fail_after=1)
    with pytest.raises(RuntimeError):
        adapter.publish(outgoing(THREAD, part_posted=first))
    posted = tuple(remote_id for _, remote_id in first.calls)
    assert len(posted) == 2 and len(nostr_relay.notes_of(signer.pubkey)) == 2

    second = Recorder()
    published = adapter.publish(outgoing(THREAD, posted_parts=posted, part_posted=second))
    notes = nostr_relay.notes_of(signer.pubkey)
    assert len(notes) == 3  # only the third part went out
    assert [index for index, _ in second.calls] == [2]
    assert published.part_ids[:2] == posted and published.remote_id == posted[0]
    (last,) = [note for note in notes if note["id"] == published.part_ids[2]]
    assert ["e", posted[0], nostr_relay.url, "root"] in last["tags"]
    assert ["e", posted[1], nostr_relay.url, "reply"] in last["tags"]
    # Every part live already: nothing is sent at all.
    again = adapter.publish(outgoing(THREAD, posted_parts=published.part_ids))
    assert again == published and len(nostr_relay.notes_of(signer.pubkey)) == 3


def test_a_lost_answer_is_retryable_and_the_retry_finds_the_same_note(
    nostr_relay: NostrRelay, caplog: pytest.LogCaptureFixture
) -> None:
    signer = new_key()
    started = datetime.now(UTC) - timedelta(seconds=1)
    with LostAnswers(nostr_relay, drop=1) as lossy, pytest.raises(PublishError) as lost:
        adapter_for(signer, lossy.url, timeout=1.0).publish(outgoing("Sent, then silence."))
    assert lost.value.retryable and not lost.value.outcome_unknown
    assert "gave no answer" in lost.value.message
    (live,) = nostr_relay.notes_of(signer.pubkey)  # it reached the relay all the same

    retry = outgoing("Sent, then silence.", earlier_attempt_at=started)
    with caplog.at_level("INFO", logger="socialgen.publishing"):
        published = adapter_for(signer, nostr_relay.url).publish(retry)
    assert published.remote_id == live["id"]
    assert "found live from an earlier attempt" in caplog.text  # looked, not made anew
    assert len(nostr_relay.notes_of(signer.pubkey)) == 1


def test_a_resend_of_the_same_publication_is_the_same_event(
    nostr_relay: NostrRelay, monkeypatch: pytest.MonkeyPatch
) -> None:
    """From the first retry on, created_at is the earlier attempt's time: even a look
    that finds nothing (a relay slow to show it) makes the very same event again."""
    signer = new_key()
    earlier = datetime.now(UTC) - timedelta(minutes=3)
    adapter = adapter_for(signer, nostr_relay.url)
    first = adapter.publish(outgoing(THREAD, earlier_attempt_at=earlier))
    monkeypatch.setattr(nostr.NostrAdapter, "_earlier_notes", lambda *args: [])
    second = adapter.publish(outgoing(THREAD, earlier_attempt_at=earlier))
    assert second.part_ids == first.part_ids
    notes = nostr_relay.notes_of(signer.pubkey)
    assert len(notes) == 3 and {note["id"] for note in notes} == set(first.part_ids)
    assert min(note["created_at"] for note in notes) == int(earlier.timestamp())
    assert nostr_relay.send(notes[0])[2:] == [False, "duplicate: exists"]


def test_a_tampered_signature_is_refused_in_the_relays_words(
    nostr_relay: NostrRelay, monkeypatch: pytest.MonkeyPatch
) -> None:
    signer = new_key()
    real = keys.signed_event

    def tampered(*args: Any) -> dict[str, Any]:
        event = real(*args)
        return {**event, "sig": ("1" if event["sig"][0] == "0" else "0") + event["sig"][1:]}

    monkeypatch.setattr(nostr, "signed_event", tampered)
    with pytest.raises(PublishError) as refused:
        adapter_for(signer, nostr_relay.url, timeout=5.0).publish(outgoing("Forged?"))
    assert "invalid: Bad signature" in refused.value.message
    assert nostr_relay.url in refused.value.message
    assert not refused.value.retryable and not refused.value.outcome_unknown
    assert signer.nsec not in refused.value.message
    assert nostr_relay.notes_of(signer.pubkey) == []


def test_one_relay_down_and_one_up_is_published(nostr_relay: NostrRelay) -> None:
    signer = new_key()
    down = down_url()
    published = adapter_for(signer, down, nostr_relay.url).publish(outgoing("One is enough."))
    (note,) = nostr_relay.notes_of(signer.pubkey)
    assert published.remote_id == note["id"]
    assert note["tags"] == []  # no hint needed: a single note names no relay

    with pytest.raises(PublishError) as unreachable:
        adapter_for(signer, down).publish(outgoing("Nobody listens."))
    assert unreachable.value.retryable and "could not be reached" in unreachable.value.message


@pytest.mark.parametrize(
    ("words", "retryable", "wait"),
    [
        ("rate-limited: slow down", True, nostr.RATE_LIMIT_WAIT),
        ("blocked: paid relay", False, None),
    ],
    ids=["rate-limited", "blocked"],
)
def test_a_relay_that_refuses_says_why_and_only_a_rate_limit_is_retried(
    nostr_relay: NostrRelay, words: str, retryable: bool, wait: float | None
) -> None:
    signer = new_key()
    with LostAnswers(nostr_relay, refuse=words) as refusing:
        with pytest.raises(PublishError) as refused:
            adapter_for(signer, refusing.url).publish(outgoing("Let me in."))
        assert refusing.events_seen == 1
    assert words in refused.value.message and refused.value.retryable is retryable
    assert refused.value.retry_after == wait
    assert nostr_relay.notes_of(signer.pubkey) == []


def test_a_private_relay_is_refused_by_the_guard_unless_allowed(nostr_relay: NostrRelay) -> None:
    signer = new_key()
    guarded = adapter_for(signer, nostr_relay.url, settings=NetworkSettings())
    with pytest.raises(GuardRefused) as refused:
        guarded.publish(outgoing("Should not leave."))
    assert not refused.value.retryable and "loopback" in refused.value.message
    with pytest.raises(GuardRefused):
        guarded.prepare(outgoing("Nor in a dry run."))
    with pytest.raises(GuardRefused):
        guarded.check()
    metadata = adapter_for(signer, "ws://169.254.169.254")  # refused even when allowed
    with pytest.raises(GuardRefused):
        metadata.publish(outgoing("Never."))
    assert nostr_relay.notes_of(signer.pubkey) == []


def test_prepare_shows_the_notes_and_what_is_left_out_without_sending(
    nostr_relay: NostrRelay,
) -> None:
    signer = new_key()
    image = MediaItem(kind="image", data=b"png", mime_type="image/png", alt_text="a slide")
    prepared = adapter_for(signer, nostr_relay.url, down_url()).prepare(
        outgoing(THREAD + " #Shipping", media=(image,), number_parts=True)
    )
    assert prepared.network == "nostr" and len(prepared.parts) == 3
    first, _, last = prepared.parts
    assert first.details["author"] == signer.npub and len(first.details["relays"]) == 2
    assert first.details["leftOut"] == [
        "1 image left out: a Nostr note shows an image by linking to it on a public host, "
        "and socialgen has none to put it on"
    ]
    assert last.text.endswith(" 3/3") and last.details["hashtags"] == ["shipping"]
    assert nostr_relay.notes_of(signer.pubkey) == []
