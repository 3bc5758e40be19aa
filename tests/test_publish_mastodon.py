"""Mastodon publishing against a real Mastodon API server (mastodon-mock, run as its
own process by tests/mastodon_support.py): counts and faults are read on the server's
side, never from what the adapter says about itself."""

from __future__ import annotations

import io
import re
import threading
import time
from collections.abc import Iterator
from html.parser import HTMLParser
from typing import Any

import httpx
import pytest
from PIL import Image

from socialgen.app.runtime import Runtime
from socialgen.kit.errors import BadRequest
from socialgen.publishing.networks.base import (
    AccountCredentials,
    MediaItem,
    NetworkSettings,
    OutgoingPost,
    Published,
    PublishError,
)
from socialgen.publishing.networks.mastodon import adapter as mastodon
from socialgen.publishing.networks.mastodon.text import count, split
from tests.mastodon_support import MastodonMock, MockUser, free_port
from tests.mastodon_support import mastodon_mock as mastodon_mock  # the fixture

# The mock lives on 127.0.0.1: the allowance as the Runtime hands it to the networks.
ALLOWED = NetworkSettings(allow_private_urls=True)
SENTENCE = "Small teams ship weekly because feedback beats planning."
LONG_TEXT = "\n\n".join(" ".join([SENTENCE] * 3) for _ in range(6))  # 1,030 characters


@pytest.fixture(autouse=True)
def _private_urls(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server lives on 127.0.0.1, and the SSRF guard checks every request the
    adapter sends (guarded_http.py): let it through."""
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")


@pytest.fixture(autouse=True)
def no_faults_left_over(request: pytest.FixtureRequest) -> Iterator[None]:
    """A fault a test did not use up must not hit the next test."""
    yield
    if "mastodon_mock" in request.fixturenames:
        request.getfixturevalue("mastodon_mock").clear_faults()


def adapter(server: MastodonMock, user: MockUser) -> mastodon.MastodonAdapter:
    credentials = AccountCredentials(
        "mastodon", server.base_url, user.username, {"access_token": user.token}
    )
    return mastodon.MastodonAdapter(credentials, lambda _: None, allow_private=True)


def outgoing(key: str, text: str = "Hello from socialgen", **kwargs: Any) -> OutgoingPost:
    return OutgoingPost(publication_id=key, idempotency_key=f"pub-{key}", text=text, **kwargs)


def png(colour: str) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8), colour).save(out, "PNG")
    return out.getvalue()


def failure(call: Any, *secrets: str) -> PublishError:
    with pytest.raises(PublishError) as caught:
        call()
    for secret in secrets:
        assert secret not in str(caught.value) and secret not in caught.value.message
    return caught.value


# --- counting and splitting, as Mastodon counts ----------------------------------------


def test_urls_count_23_and_remote_mentions_count_the_user_part() -> None:
    url = "https://example.com/" + "a" * 80
    assert count(f"read {url} now") == len("read  now") + 23
    assert count("thanks @alice@mastodon.social!") == len("thanks @alice!")
    assert count("mail me at x@example.com") == len("mail me at x@example.com")


def test_a_long_post_is_cut_at_paragraph_ends_and_numbered_only_when_asked() -> None:
    parts = split(LONG_TEXT, 500)
    assert len(parts) == 3 and all(count(part) <= 500 for part in parts)
    assert all(part.endswith(".") for part in parts)  # whole paragraphs, whole sentences
    assert "\n\n".join(parts) == LONG_TEXT
    numbered = split(LONG_TEXT, 500, number=True)
    assert [part.rsplit(" ", 1)[1] for part in numbered] == ["1/3", "2/3", "3/3"]
    assert all(count(part) <= 500 for part in numbered)
    assert split("short", 500, number=True) == ["short"]


def test_a_paragraph_longer_than_a_status_is_cut_at_sentences_then_words() -> None:
    paragraph = " ".join([SENTENCE] * 12)
    parts = split(paragraph, 200)
    assert all(count(part) <= 200 and part.endswith(".") for part in parts)
    words = " ".join(["word"] * 300)
    parts = split(words, 100)
    assert all(count(part) <= 100 for part in parts) and " ".join(parts) == words
    assert [len(part) for part in split("x" * 250, 100)] == [100, 100, 50]


# --- against the server ---------------------------------------------------------------


def test_connect_verifies_the_token_and_names_the_account(mastodon_mock: MastodonMock) -> None:
    user = mastodon_mock.new_user()
    connected = mastodon.connect(mastodon_mock.base_url + "/", "", user.token, settings=ALLOWED)
    host = mastodon_mock.base_url.removeprefix("http://")
    assert connected.service_url == mastodon_mock.base_url
    assert connected.identity.handle == f"@{user.username}@{host}"
    assert connected.secret["access_token"] == user.token
    assert mastodon.connect(
        mastodon_mock.base_url, f"@{user.username}", user.token, settings=ALLOWED
    )

    with pytest.raises(BadRequest, match="refused the access token") as refused:
        mastodon.connect(mastodon_mock.base_url, "", "not-a-token-" + user.token, settings=ALLOWED)
    assert user.token not in refused.value.message
    with pytest.raises(BadRequest, match="belongs to"):
        mastodon.connect(mastodon_mock.base_url, "@someone_else", user.token, settings=ALLOWED)
    assert adapter(mastodon_mock, user).check().handle == connected.identity.handle


def test_a_post_is_published_and_reads_back(mastodon_mock: MastodonMock) -> None:
    user = mastodon_mock.new_user()
    published = adapter(mastodon_mock, user).publish(outgoing("one"))

    [status] = mastodon_mock.statuses(user)
    assert status["id"] == published.remote_id and published.part_ids == (published.remote_id,)
    assert "Hello from socialgen" in status["content"]
    assert published.url == status["url"] and published.url.endswith(f"/{published.remote_id}")


def test_a_long_post_threads_under_the_instance_limit(mastodon_mock: MastodonMock) -> None:
    user = mastodon_mock.new_user()
    published = adapter(mastodon_mock, user).publish(outgoing("long", LONG_TEXT, number_parts=True))

    statuses = sorted(mastodon_mock.statuses(user), key=lambda s: int(s["id"]))
    assert [s["id"] for s in statuses] == list(published.part_ids) and len(statuses) == 3
    assert statuses[0]["in_reply_to_id"] is None
    assert [s["in_reply_to_id"] for s in statuses[1:]] == [s["id"] for s in statuses[:-1]]
    assert all(re.search(rf"{i}/3</p>$", s["content"]) for i, s in enumerate(statuses, 1))


def test_the_limit_is_the_instances_own(mastodon_mock: MastodonMock) -> None:
    user = mastodon_mock.new_user()
    instance = httpx.get(f"{mastodon_mock.base_url}/api/v2/instance").json()
    instance["configuration"]["statuses"]["max_characters"] = 150
    mastodon_mock.fault("/api/v2/instance*", methods=("GET",), status=200, body=instance)
    prepared = adapter(mastodon_mock, user).prepare(outgoing("small", LONG_TEXT))
    assert len(prepared.parts) > 6 and all(count(p.text) <= 150 for p in prepared.parts)
    assert prepared.parts[0].details["limit"] == 150

    mastodon_mock.fault("/api/v2/instance*", methods=("GET",), status=404)
    prepared = adapter(mastodon_mock, user).prepare(outgoing("default", LONG_TEXT))
    assert prepared.parts[0].details["limit"] == 500 and "limit_note" in prepared.parts[0].details


def test_the_same_publication_twice_is_one_status(mastodon_mock: MastodonMock) -> None:
    user = mastodon_mock.new_user()
    post = outgoing("twice", LONG_TEXT)
    first = adapter(mastodon_mock, user).publish(post)
    again = adapter(mastodon_mock, user).publish(post)  # a retry after a crash

    assert again == first
    assert mastodon_mock.status_count(user) == 3  # one thread of three, not two


def test_a_thread_cut_by_a_500_is_finished_once_on_retry(mastodon_mock: MastodonMock) -> None:
    user = mastodon_mock.new_user()
    # The first POST passes (a zero-latency rule takes it), the second gets the 500.
    mastodon_mock.fault("/api/v1/statuses", effect="latency")
    mastodon_mock.fault("/api/v1/statuses", status=500)
    post = outgoing("cut", LONG_TEXT)

    error = failure(lambda: adapter(mastodon_mock, user).publish(post), user.token)
    assert error.retryable and not error.reconnect and not error.outcome_unknown
    assert mastodon_mock.status_count(user) == 1

    published = adapter(mastodon_mock, user).publish(post)
    assert mastodon_mock.status_count(user) == 3 and len(published.part_ids) == 3


def test_429_is_retryable_after_the_servers_time(mastodon_mock: MastodonMock) -> None:
    user = mastodon_mock.new_user()
    mastodon_mock.fault("/api/v1/statuses", effect="ratelimit", headers={"Retry-After": "7"})
    error = failure(lambda: adapter(mastodon_mock, user).publish(outgoing("busy")), user.token)
    assert error.retryable and error.retry_after == 7
    assert mastodon_mock.status_count(user) == 0

    # Mastodon itself sends X-RateLimit-Reset as an ISO time, without Retry-After.
    reset = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(time.time() + 60))
    mastodon_mock.fault("/api/v1/statuses", status=429, headers={"X-RateLimit-Reset": reset})
    error = failure(lambda: adapter(mastodon_mock, user).publish(outgoing("busy")), user.token)
    assert error.retryable and error.retry_after is not None and 55 <= error.retry_after <= 61

    adapter(mastodon_mock, user).publish(outgoing("busy"))
    assert mastodon_mock.status_count(user) == 1


def test_a_refused_connection_is_retryable() -> None:
    credentials = AccountCredentials(
        "mastodon", f"http://127.0.0.1:{free_port()}", "", {"access_token": "secret-token"}
    )
    gone = mastodon.MastodonAdapter(credentials, lambda _: None, allow_private=True)
    error = failure(lambda: gone.check(), "secret-token")
    assert error.retryable and "could not reach" in error.message


def test_a_redirect_is_not_followed(mastodon_mock: MastodonMock) -> None:
    """The SSRF check covered the instance's host, not where a redirect points."""
    user = mastodon_mock.new_user()
    elsewhere = "http://169.254.169.254/latest/meta-data"
    mastodon_mock.fault(
        "/api/v1/accounts/verify_credentials",
        methods=("GET",),
        status=302,
        headers={"Location": elsewhere},
    )
    error = failure(lambda: adapter(mastodon_mock, user).check(), user.token)
    assert f"redirects to {elsewhere}" in error.message and not error.retryable


def test_a_revoked_token_asks_to_reconnect(mastodon_mock: MastodonMock) -> None:
    user = mastodon_mock.new_user()
    token = mastodon_mock.token(user.username)
    revoked = MockUser(user.username, token, user.account_id)
    mastodon_mock.revoke(token)

    error = failure(lambda: adapter(mastodon_mock, revoked).publish(outgoing("x")), token)
    assert error.reconnect and not error.retryable
    assert f"socialgen accounts add mastodon --instance {mastodon_mock.base_url}" in error.message


def test_a_refusal_carries_the_instances_words(mastodon_mock: MastodonMock) -> None:
    user = mastodon_mock.new_user()
    mastodon_mock.fault("/api/v1/statuses", status=422, body={"error": "Validation failed: nope"})
    error = failure(lambda: adapter(mastodon_mock, user).publish(outgoing("no")), user.token)
    assert "Validation failed: nope" in error.message and not error.retryable


def test_images_go_with_their_descriptions(mastodon_mock: MastodonMock) -> None:
    user = mastodon_mock.new_user()
    colours = ["red", "green", "blue", "white", "black"]
    media = tuple(MediaItem("image", png(c), "image/png", alt_text=f"Slide {c}") for c in colours)
    pdf = MediaItem("document", b"%PDF-1.4", "application/pdf", title="deck")
    post = outgoing("images", "A carousel", media=(*media, pdf))

    root = adapter(mastodon_mock, user).prepare(post).parts[0].details
    assert len(root["media"]) == 4 and root["media_left_out"] == 1
    assert "documents_left_out" in root
    published = adapter(mastodon_mock, user).publish(post)

    attachments = mastodon_mock.status(published.remote_id)["media_attachments"]
    assert [a["description"] for a in attachments] == [f"Slide {c}" for c in colours[:4]]
    assert all(a["type"] == "image" and a["url"] for a in attachments)


def test_media_still_processing_is_polled(mastodon_mock: MastodonMock) -> None:
    """Mastodon answers an upload with url null and 206 while it processes it: the
    adapter waits for the url before attaching."""
    user = mastodon_mock.new_user()
    auth = {"Authorization": f"Bearer {user.token}"}
    ready = httpx.post(
        f"{mastodon_mock.base_url}/api/v2/media",
        files={"file": ("a.png", png("red"), "image/png")},
        data={"description": "red"},
        headers=auth,
    ).json()
    processing = {**ready, "url": None, "preview_url": None}
    mastodon_mock.fault("/api/v2/media", status=202, body=processing)
    mastodon_mock.fault(
        f"/api/v1/media/{ready['id']}", methods=("GET",), status=206, body=processing, count=2
    )

    media = (MediaItem("image", png("red"), "image/png", alt_text="red"),)
    published = adapter(mastodon_mock, user).publish(outgoing("slow", "A slow image", media=media))

    assert mastodon_mock.faults_left() == []  # both 206 answers were polled through
    [attachment] = mastodon_mock.status(published.remote_id)["media_attachments"]
    assert attachment["id"] == ready["id"]


def test_metrics_count_a_favourite_and_a_reply_from_someone_else(
    mastodon_mock: MastodonMock,
) -> None:
    author, reader = mastodon_mock.new_user(), mastodon_mock.new_user("reader")
    publisher = adapter(mastodon_mock, author)
    published = publisher.publish(outgoing("liked", LONG_TEXT))
    assert publisher.metrics(published).comments == 0  # our own thread is no comment

    mastodon_mock.favourite(reader.token, published.remote_id)
    mastodon_mock.reply(reader.token, published.remote_id, "Agreed!")
    metrics = publisher.metrics(published)
    assert (metrics.likes, metrics.reposts, metrics.comments) == (1, 0, 1)

    error = failure(lambda: publisher.metrics(Published("999999999", "", ("999999999",))))
    assert "gone" in error.message and not error.retryable


# --- the browser sign-in ----------------------------------------------------------------


class _Form(HTMLParser):
    """The mock's account picker: a form with hidden fields and one button per account."""

    def __init__(self) -> None:
        super().__init__()
        self.action = ""
        self.fields: dict[str, str] = {}
        self.accounts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {name: value or "" for name, value in attrs}
        if tag == "form":
            self.action = found.get("action", "")
        elif tag == "input" and found.get("type") == "hidden":
            self.fields[found["name"]] = found.get("value", "")
        elif tag == "button" and found.get("name") == "username":
            self.accounts.append(found.get("value", ""))


def _sign_in_as(username: str, announced: list[str], seen: dict[str, str]) -> None:
    """The user's browser: open the announced link, pick the account, follow the
    redirect back to socialgen's loopback port."""
    deadline = time.monotonic() + 10
    while not announced and time.monotonic() < deadline:
        time.sleep(0.02)
    url = re.search(r"https?://\S+", announced[0])
    assert url
    seen["authorize_url"] = url.group()
    with httpx.Client(follow_redirects=True, timeout=10) as browser:
        picker = browser.get(url.group())
        form = _Form()
        form.feed(picker.text)
        assert username in form.accounts
        done = browser.post(
            httpx.URL(url.group()).join(form.action), data={**form.fields, "username": username}
        )
        seen["final_url"], seen["final_page"] = str(done.url), done.text


def test_authorize_signs_in_through_the_browser(mastodon_mock: MastodonMock) -> None:
    user = mastodon_mock.new_user()
    announced: list[str] = []
    seen: dict[str, str] = {}
    browser = threading.Thread(
        target=_sign_in_as, args=(user.username, announced, seen), daemon=True
    )
    browser.start()
    connected = mastodon.authorize(
        mastodon_mock.base_url,
        {"timeout": "20"},
        open_browser=False,
        announce=announced.append,
        settings=ALLOWED,
    )
    browser.join(timeout=10)

    assert connected.identity.handle.startswith(f"@{user.username}@")
    assert connected.secret["client_id"] and connected.secret["client_secret"]
    query = httpx.URL(seen["authorize_url"]).params
    assert query["code_challenge_method"] == "S256" and query["code_challenge"]
    assert query["redirect_uri"].startswith("http://127.0.0.1:")
    assert (
        seen["final_url"].startswith(query["redirect_uri"])
        and "close this tab" in seen["final_page"]
    )
    # The new token is a working one of that user's.
    credentials = AccountCredentials("mastodon", connected.service_url, "", connected.secret)
    mastodon.build(credentials, lambda _: None, settings=ALLOWED).publish(outgoing("via-oauth"))
    assert mastodon_mock.status_count(user) == 1


def test_an_instance_that_is_down_is_unavailable_not_a_bad_token(
    mastodon_mock: MastodonMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Adding an account on a busy or failing instance says the instance failed (502),
    not that the token is wrong (400): the user should try later, not make a new token."""
    from socialgen.publishing.accounts.service import NetworkUnavailable, connect_account
    from socialgen.publishing.registry import Networks

    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")  # the mock is on 127.0.0.1
    built_in = Networks.of(Runtime())  # read after the allowance: a Runtime's networks
    user = mastodon_mock.new_user("down")
    mastodon_mock.fault("/api/v1/accounts/verify_credentials", methods=("GET",), status=503)
    with pytest.raises(NetworkUnavailable) as raised:
        connect_account(built_in, "mastodon", mastodon_mock.base_url, "", user.token)
    assert raised.value.status_code == 502
    assert user.token not in raised.value.message
    # The fault was used up: the same token is fine now.
    assert connect_account(built_in, "mastodon", mastodon_mock.base_url, "", user.token).secret
