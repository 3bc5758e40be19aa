"""Bluesky publishing against a real PDS and AppView (tests/bluesky_support.py), and
the post-splitting rules without any network.

What the network holds is read with a separate atproto client (getRecord,
listRecords, getPosts), never through the adapter under test.
"""

from __future__ import annotations

import time
from typing import Any

import httpx
import pytest

from socialgen.publishing.networks.base import (
    AccountCredentials,
    MediaItem,
    NetworkSettings,
    PublishError,
)
from socialgen.publishing.networks.bluesky import adapter as bluesky
from socialgen.publishing.networks.bluesky.text import (
    MAX_BYTES,
    MAX_GRAPHEMES,
    TID_ALPHABET,
    graphemes,
    record_key,
    split_text,
)
from tests.bluesky_support import (  # noqa: F401
    LOCAL,
    BlueskyNetwork,
    Saved,
    adapter_for,
    bluesky_network_fixture,
    count_posts,
    faulty_pds_fixture,
    garbled,
    get_record,
    png,
    post,
    token,
)

POSTS = "app.bsky.feed.post"


@pytest.fixture(autouse=True)
def _loopback_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    # The dev network listens on localhost, which the SSRF guard refuses by default.
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")
    monkeypatch.delenv(bluesky.APPVIEW_ENV, raising=False)


# --- the network --------------------------------------------------------------------------


def test_the_network_answers_on_every_service(bluesky_network: BlueskyNetwork) -> None:
    # Its start-up time is printed, not bounded: seconds belong in benches.
    print(f"atproto dev network ready in {bluesky_network.start_seconds:.1f} s")
    pds = httpx.get(f"{bluesky_network.pds}/xrpc/com.atproto.server.describeServer", timeout=10)
    assert pds.status_code == 200 and pds.json()["did"].startswith("did:")
    appview = httpx.get(f"{bluesky_network.appview}/xrpc/_health", timeout=10)
    assert appview.status_code == 200, appview.text


def test_connect_keeps_a_session_and_names_the_account(bluesky_network: BlueskyNetwork) -> None:
    account = bluesky_network.account("conn")
    connected = bluesky.connect(
        bluesky_network.pds + "/", account.handle, account.app_password, settings=LOCAL
    )
    assert connected.service_url == bluesky_network.pds
    assert connected.identity.handle == f"@{account.handle}"
    assert connected.identity.profile_url == f"https://bsky.app/profile/{account.handle}"
    assert set(connected.secret) == {"app_password", "access_jwt", "refresh_jwt", "did"}
    assert connected.secret["did"] == account.did
    assert connected.secret["app_password"] == account.app_password


def test_a_wrong_app_password_asks_to_reconnect(bluesky_network: BlueskyNetwork) -> None:
    account = bluesky_network.account("wrong")
    with pytest.raises(PublishError) as refused:
        bluesky.connect(bluesky_network.pds, account.handle, "aaaa-bbbb-cccc-dddd", settings=LOCAL)
    assert refused.value.reconnect
    assert "aaaa-bbbb" not in str(refused.value)


def test_a_short_post_is_on_the_pds(bluesky_network: BlueskyNetwork) -> None:
    account = bluesky_network.account("short")
    adapter, _, _ = adapter_for(bluesky_network, account)
    started = time.monotonic()
    published = adapter.publish(post("Hello from socialgen", "short"))
    print(f"publish latency (one post): {(time.monotonic() - started) * 1000:.0f} ms")
    rkey = record_key("key-short", 0)
    assert published.remote_id == f"at://{account.did}/{POSTS}/{rkey}"
    assert published.url == f"https://bsky.app/profile/{account.handle}/post/{rkey}"
    assert published.part_ids == (published.remote_id,)
    assert get_record(bluesky_network, account, published.remote_id).text == "Hello from socialgen"


def test_a_long_post_becomes_a_thread_replying_to_its_root(bluesky_network: BlueskyNetwork) -> None:
    account = bluesky_network.account("thread")
    adapter, _, _ = adapter_for(bluesky_network, account)
    text = " ".join(f"Sentence number {i} says something useful." for i in range(17))
    assert graphemes(text) >= 700
    published = adapter.publish(post(text, "thread"))
    assert len(published.part_ids) >= 3
    records = [get_record(bluesky_network, account, uri) for uri in published.part_ids]
    assert records[0].reply is None
    for previous, uri, record in zip(
        published.part_ids, published.part_ids[1:], records[1:], strict=False
    ):
        assert record.reply.root.uri == published.remote_id
        assert record.reply.parent.uri == previous
        assert uri != previous
    for record in records:
        assert graphemes(record.text) <= MAX_GRAPHEMES
        assert record.text.endswith(".")  # cut at sentence ends
    assert " ".join(record.text for record in records) == text
    # The second part hangs under the root as a reply: the thread's own, not a comment.
    bluesky_network.process_all()
    assert adapter.metrics(published).comments == 0


def test_facets_use_utf8_byte_offsets(bluesky_network: BlueskyNetwork) -> None:
    account = bluesky_network.account("facets")
    friend = bluesky_network.account("friend")
    adapter, _, _ = adapter_for(bluesky_network, account)
    link = "https://example.com/read?x=1"
    text = f"🎉👩‍👩‍👧 new: {link}, thanks @{friend.handle} #café 🚀 #launch"
    published = adapter.publish(post(text, "facets"))
    record = get_record(bluesky_network, account, published.remote_id)
    raw = record.text.encode("utf-8")
    spans = {}
    for facet in record.facets:
        feature = facet.features[0]
        spans[feature.py_type] = (raw[facet.index.byte_start : facet.index.byte_end], feature)
    link_bytes, link_feature = spans["app.bsky.richtext.facet#link"]
    assert link_bytes.decode() == link and link_feature.uri == link
    mention_bytes, mention = spans["app.bsky.richtext.facet#mention"]
    assert mention_bytes.decode() == f"@{friend.handle}" and mention.did == friend.did
    tags = [
        (raw[f.index.byte_start : f.index.byte_end].decode(), f.features[0].tag)
        for f in record.facets
        if f.features[0].py_type == "app.bsky.richtext.facet#tag"
    ]
    assert tags == [("#café", "café"), ("#launch", "launch")]
    assert record.embed.external.uri == link  # the link card


def test_publishing_twice_creates_one_record(bluesky_network: BlueskyNetwork) -> None:
    account = bluesky_network.account("twice")
    adapter, _, _ = adapter_for(bluesky_network, account)
    text = " ".join(f"Part of a thread, sentence {i}." for i in range(30))
    first = adapter.publish(post(text, "twice"))
    again, _, _ = adapter_for(bluesky_network, account)
    second = again.publish(post(text, "twice"))
    assert second == first
    assert count_posts(bluesky_network, account) == len(first.part_ids) > 1


def test_a_crash_mid_thread_resumes_without_duplicates(
    bluesky_network: BlueskyNetwork, monkeypatch: pytest.MonkeyPatch
) -> None:
    account = bluesky_network.account("crash")
    adapter, _, _ = adapter_for(bluesky_network, account)
    text = " ".join(f"Resumable thread, sentence {i}." for i in range(30))
    real_create = adapter._create
    written: list[str] = []

    def create_then_die(did: str, rkey: str, record: dict[str, Any]) -> dict[str, str]:
        if written:
            raise PublishError("connection dropped", retryable=True)
        ref = real_create(did, rkey, record)
        written.append(ref["uri"])
        return ref

    monkeypatch.setattr(adapter, "_create", create_then_die)
    with pytest.raises(PublishError):
        adapter.publish(post(text, "crash"))
    assert count_posts(bluesky_network, account) == 1
    retry, _, _ = adapter_for(bluesky_network, account)
    published = retry.publish(post(text, "crash"))
    assert published.remote_id == written[0]
    assert count_posts(bluesky_network, account) == len(published.part_ids) > 1


def test_an_image_post_carries_its_alt_text(bluesky_network: BlueskyNetwork) -> None:
    account = bluesky_network.account("image")
    adapter, _, _ = adapter_for(bluesky_network, account)
    slides = tuple(
        MediaItem(kind="image", data=png(64, 48), mime_type="image/png", alt_text=f"Slide {i}")
        for i in (1, 2)
    )
    published = adapter.publish(post("Our carousel https://example.com", "image", media=slides))
    record = get_record(bluesky_network, account, published.remote_id)
    assert record.embed.py_type == "app.bsky.embed.images"  # images win over the link card
    assert [image.alt for image in record.embed.images] == ["Slide 1", "Slide 2"]
    assert record.embed.images[0].image.mime_type == "image/png"
    assert (
        record.embed.images[0].aspect_ratio.width,
        record.embed.images[0].aspect_ratio.height,
    ) == (
        64,
        48,
    )


def test_metrics_count_a_like_and_a_reply(bluesky_network: BlueskyNetwork) -> None:
    account = bluesky_network.account("metrics")
    fan = bluesky_network.account("fan")
    adapter, _, _ = adapter_for(bluesky_network, account)
    published = adapter.publish(post("Count me", "metrics"))
    fan_client = fan.client(bluesky_network.pds)
    cid = fan_client.com.atproto.repo.get_record(
        {"repo": account.did, "collection": POSTS, "rkey": record_key("key-metrics", 0)}
    ).cid
    ref = {"uri": published.remote_id, "cid": cid}
    now = "2026-01-01T00:00:00.000Z"
    for collection, record in (
        ("app.bsky.feed.like", {"subject": ref, "createdAt": now}),
        (POSTS, {"text": "Nice!", "reply": {"root": ref, "parent": ref}, "createdAt": now}),
        (
            POSTS,
            {
                "text": "Quoted",
                "embed": {"$type": "app.bsky.embed.record", "record": ref},
                "createdAt": now,
            },
        ),
    ):
        fan_client.com.atproto.repo.create_record(
            {"repo": fan.did, "collection": collection, "record": {"$type": collection, **record}}
        )
    bluesky_network.process_all()
    through_pds = adapter.metrics(published)
    # A quote spreads the post as a repost does: counted with the reposts.
    assert (through_pds.likes, through_pds.comments, through_pds.reposts) == (1, 1, 1)
    through_appview, _, _ = adapter_for(
        bluesky_network,
        account,
        settings=NetworkSettings(bluesky_appview=bluesky_network.appview, allow_private_urls=True),
    )
    assert through_appview.metrics(published) == through_pds


def test_a_refused_access_token_is_refreshed_and_saved(bluesky_network: BlueskyNetwork) -> None:
    account = bluesky_network.account("refresh")
    adapter, saver, secret = adapter_for(bluesky_network, account)
    broken = garbled(secret["access_jwt"])
    adapter, saver, _ = adapter_for(bluesky_network, account, access_jwt=broken)
    adapter.publish(post("After a refresh", "refresh"))
    assert saver.secrets, "the new tokens were not saved"
    assert saver.secrets[-1]["access_jwt"] not in (broken, "")
    assert saver.secrets[-1]["app_password"] == account.app_password
    assert count_posts(bluesky_network, account) == 1


def test_a_revoked_session_signs_in_again_with_the_app_password(
    bluesky_network: BlueskyNetwork,
) -> None:
    from atproto import Client  # type: ignore[import-untyped]

    account = bluesky_network.account("revoked")
    _, _, secret = adapter_for(bluesky_network, account)
    Client(base_url=bluesky_network.pds).com.atproto.server.delete_session(
        headers={"Authorization": f"Bearer {secret['refresh_jwt']}"}
    )
    adapter, saver, _ = adapter_for(
        bluesky_network,
        account,
        access_jwt=garbled(secret["access_jwt"]),
        refresh_jwt=secret["refresh_jwt"],
    )
    adapter.publish(post("After a new sign-in", "revoked"))
    assert saver.secrets and saver.secrets[-1]["refresh_jwt"] != secret["refresh_jwt"]
    assert count_posts(bluesky_network, account) == 1


def test_a_revoked_app_password_asks_to_reconnect(bluesky_network: BlueskyNetwork) -> None:
    account = bluesky_network.account("gone")
    _, _, secret = adapter_for(bluesky_network, account)
    owner = account.client(bluesky_network.pds)
    owner.com.atproto.server.revoke_app_password({"name": "socialgen"})
    stale = AccountCredentials(
        "bluesky",
        bluesky_network.pds,
        account.handle,
        {**secret, "access_jwt": garbled(secret["access_jwt"])},
    )
    with pytest.raises(PublishError) as refused:
        bluesky.build(stale, Saved(), settings=LOCAL).publish(post("Never posted", "gone"))
    assert refused.value.reconnect and not refused.value.retryable
    assert (
        refused.value.message
        == f"reconnect the account: socialgen accounts add bluesky {account.handle}"
    )
    for value in secret.values():
        assert value not in str(refused.value)
    assert count_posts(bluesky_network, account) == 0


# --- no network: prepare() ---------------------------------------------------------------


def offline_adapter() -> bluesky.BlueskyAdapter:
    # An unroutable service: prepare() must not reach it.
    credentials = AccountCredentials("bluesky", "http://192.0.2.1", "me.test", {})
    return bluesky.build(credentials, Saved(), settings=LOCAL)


@pytest.mark.parametrize(
    "unit",
    ["A plain sentence that goes on. ", "Emoji 👩‍👩‍👧‍👦 family! ", "Wörter über Straße? "],
)
def test_every_part_fits_both_limits(unit: str) -> None:
    text = unit * 120
    for number_parts in (False, True):
        parts = split_text(text, number_parts=number_parts)
        assert len(parts) > 1
        for part in parts:
            assert graphemes(part) <= MAX_GRAPHEMES
            assert len(part.encode("utf-8")) <= MAX_BYTES


def test_the_byte_limit_binds_before_the_grapheme_limit() -> None:
    # A family emoji is one grapheme of 25 bytes: 250 of them (with spaces) are 6,499
    # bytes but only 499 graphemes, so the bytes decide where the posts end.
    family = "👩‍👩‍👧‍👦"
    parts = split_text(" ".join([family] * 250))
    assert len(parts) == 3
    assert all(len(p.encode()) <= MAX_BYTES and graphemes(p) < 240 for p in parts)
    assert max(len(p.encode()) for p in parts) > MAX_BYTES - 30


def test_splits_at_paragraphs_then_sentences() -> None:
    first = "First paragraph. " * 10
    second = "Second paragraph has one very long sentence " + "and more " * 40 + "ends here."
    parts = split_text(first.strip() + "\n\n" + second)
    assert parts[0] == first.strip()
    assert all(graphemes(p) <= MAX_GRAPHEMES for p in parts)
    assert parts[-1].endswith("ends here.")


def test_numbering_only_when_asked() -> None:
    text = "One sentence here. " * 40
    plain = offline_adapter().prepare(post(text, "plain"))
    numbered = offline_adapter().prepare(post(text, "numbered", number_parts=True))
    total = len(numbered.parts)
    assert not plain.parts[0].text.endswith(f"1/{len(plain.parts)}")
    assert [p.text.rsplit(" ", 1)[1] for p in numbered.parts] == [
        f"{i}/{total}" for i in range(1, total + 1)
    ]
    assert not offline_adapter().prepare(post("Short", "short")).parts[0].text.endswith("1/1")


def test_prepare_shows_facets_keys_and_images() -> None:
    image = MediaItem(kind="image", data=b"", mime_type="image/png", alt_text="Slide")
    pdf = MediaItem(kind="document", data=b"%PDF", mime_type="application/pdf")
    prepared = offline_adapter().prepare(post("Hi @bob.test #tag", "p", media=(image, pdf)))
    details = prepared.parts[0].details
    assert details["rkey"] == record_key("key-p", 0)
    assert [f["kind"] for f in details["facets"]] == ["mention", "tag"]
    assert details["images"] == [{"alt": "Slide", "mime_type": "image/png"}]
    assert "documents are not supported" in details["note"]


def test_record_keys_are_stable_valid_tids() -> None:
    keys = [record_key("publication-1", i) for i in range(5)]
    assert keys == [record_key("publication-1", i) for i in range(5)]
    assert len(set(keys)) == 5 and record_key("publication-2", 0) not in keys
    for key in keys:
        assert len(key) == 13 and key[0] in "234567abcdefghij"
        assert set(key) <= set(TID_ALPHABET)


@pytest.mark.parametrize(
    ("answer", "retryable", "retry_after"),
    [
        ((429, {"Retry-After": "7"}), True, 7.0),
        ((429, {"ratelimit-reset": "in 60 s"}), True, 60.0),
        ((503, {"Retry-After": "3"}), True, 3.0),
        ((500, {}), True, None),
        (None, True, None),  # the connection dropped
        ((400, {}), False, None),
    ],
)
def test_network_failures_tell_the_outbox_whether_to_retry(
    faulty_pds: Any, answer: Any, retryable: bool, retry_after: float | None
) -> None:
    if answer and answer[1].get("ratelimit-reset") == "in 60 s":
        # The header holds a time (seconds since 1970), so it is made when the test runs.
        answer = (answer[0], {"ratelimit-reset": str(int(time.time()) + 60)})
    faulty_pds.answer = answer
    secret = {
        "app_password": "p",
        "access_jwt": token(),
        "refresh_jwt": token(),
        "did": "did:plc:x",
    }
    credentials = AccountCredentials("bluesky", faulty_pds.url, "faulty.test", secret)
    with pytest.raises(PublishError) as failed:
        bluesky.build(credentials, Saved(), settings=LOCAL).publish(post("Hello", "faulty"))
    assert failed.value.retryable is retryable
    assert not failed.value.outcome_unknown  # record keys make a retry safe
    if retry_after is None:
        assert failed.value.retry_after is None
    else:
        assert failed.value.retry_after == pytest.approx(retry_after, abs=2)
    assert secret["access_jwt"] not in str(failed.value)
