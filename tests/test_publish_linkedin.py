"""The LinkedIn adapter against the fake LinkedIn (tests/fakes/linkedin_server.py),
over real sockets: headers, escaping, text/document/image posts, faults, tokens,
metrics, and the browser sign-in through the loopback redirect."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from dataclasses import replace

import httpx
import pytest

from socialgen.publishing.networks.base import (
    AccountCredentials,
    MediaItem,
    NetworkSettings,
    OutgoingPost,
    PublishError,
)
from socialgen.publishing.networks.linkedin import adapter as linkedin
from socialgen.publishing.networks.linkedin.client import (
    DEFAULT_OAUTH_URL,
    DEFAULT_VERSION,
    oauth_url,
)
from socialgen.publishing.networks.linkedin.oauth import SCOPES
from socialgen.publishing.networks.linkedin.text import escape_little, little_to_text
from tests.fakes.linkedin_little import RESERVED, read_little
from tests.fakes.linkedin_server import DEFAULT_SCOPES, FakeLinkedIn, Fault

PDF = b"%PDF-1.7\n" + bytes(range(256)) * 40 + b"\n%%EOF\n"
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 300


@pytest.fixture(autouse=True)
def _private_urls(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server lives on 127.0.0.1, and the SSRF guard checks every request the
    adapter sends (guarded_http.py): let it through."""
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")


@pytest.fixture
def fake() -> Iterator[FakeLinkedIn]:
    with FakeLinkedIn() as server:
        yield server


# A short timeout: the fault tests wait for it (handed in as the Runtime's Networks do).
# The fake lives on 127.0.0.1: the allowance as the Runtime hands it to the networks.
SETTINGS = NetworkSettings(linkedin_timeout=0.5, allow_private_urls=True)


def on_fake(fake: FakeLinkedIn, settings: NetworkSettings = SETTINGS) -> NetworkSettings:
    """The settings with the fake as LinkedIn's OAuth host (the linkedin_oauth_url
    setting, as the Runtime's Networks hand it in)."""
    return replace(settings, linkedin_oauth_url=fake.base_url)


class Saved(list[dict[str, str]]):
    def __call__(self, secret: dict[str, str]) -> None:
        self.append(secret)


def adapter_for(
    fake: FakeLinkedIn,
    secret: dict[str, str],
    saved: Saved | None = None,
    settings: NetworkSettings = SETTINGS,
) -> linkedin.LinkedInAdapter:
    credentials = AccountCredentials("linkedin", fake.base_url, fake.member.urn, secret)
    saver = saved if saved is not None else Saved()
    return linkedin.build(credentials, saver, settings=on_fake(fake, settings))


def post(text: str = "Small teams ship weekly.", *media: MediaItem) -> OutgoingPost:
    return OutgoingPost("pub-1", "key-1", text, tuple(media))


def failure(call: object) -> PublishError:
    assert callable(call)
    with pytest.raises(PublishError) as caught:
        call()
    return caught.value


# --- the protocol headers, both sides -------------------------------------------------


def test_the_fake_refuses_rest_calls_without_linkedin_version(fake: FakeLinkedIn) -> None:
    token = fake.add_token()
    auth = {"Authorization": f"Bearer {token}", "X-Restli-Protocol-Version": "2.0.0"}
    body = {"author": fake.member.urn, "commentary": "x", "visibility": "PUBLIC"}
    url = f"{fake.base_url}/rest/posts"
    assert httpx.post(url, headers=auth, json=body).status_code == 426
    retired = httpx.post(url, headers={**auth, "LinkedIn-Version": "202301"}, json=body)
    assert retired.status_code == 426
    assert "not active" in retired.json()["message"]
    no_restli = {"Authorization": f"Bearer {token}", "LinkedIn-Version": DEFAULT_VERSION}
    assert httpx.post(url, headers=no_restli, json=body).status_code == 400
    assert fake.post_count == 0


def test_the_adapter_sends_version_and_restli_headers_on_every_api_call(
    fake: FakeLinkedIn,
) -> None:
    token = fake.add_token(scopes=DEFAULT_SCOPES | {"r_member_social"})
    adapter = adapter_for(fake, {"access_token": token})
    adapter.check()
    published = adapter.publish(post("With a deck", MediaItem("document", PDF, "application/pdf")))
    adapter.metrics(published)
    api_calls = [r for r in fake.requests if r.path.startswith(("/rest/", "/v2/"))]
    assert {r.path.split("/")[2] for r in api_calls} >= {"userinfo", "posts", "documents"}
    for request in api_calls:
        assert request.headers["linkedin-version"] == DEFAULT_VERSION, request.path
        assert request.headers["x-restli-protocol-version"] == "2.0.0", request.path
        assert request.headers["authorization"] == f"Bearer {token}"


def test_a_retired_version_is_a_clear_error_naming_the_setting(fake: FakeLinkedIn) -> None:
    retired = NetworkSettings(
        linkedin_version="202301", linkedin_timeout=0.5, allow_private_urls=True
    )
    adapter = adapter_for(fake, {"access_token": fake.add_token()}, settings=retired)
    error = failure(lambda: adapter.publish(post()))
    assert "SOCIALGEN_LINKEDIN_VERSION" in error.message
    assert not (error.retryable or error.outcome_unknown or error.reconnect)
    assert fake.post_count == 0


# --- text -------------------------------------------------------------------------------


def test_reserved_characters_arrive_intact_and_hashtags_stay_hashtags(
    fake: FakeLinkedIn,
) -> None:
    text = "Why I learned (C#) *bold* @x #tag a_b [1] {2} <3> ~4~ | back\\slash"
    adapter = adapter_for(fake, {"access_token": fake.add_token()})
    adapter.publish(post(text))
    fake.little_mode = "reject"  # LinkedIn's stricter cousin: an unescaped one is a 400
    adapter.publish(post(text))
    first, second = fake.posts
    assert first.text == second.text == text
    assert first.reading.cut_at is None
    assert first.reading.hashtags == ["tag"]


def test_the_fake_cuts_unescaped_text_as_linkedin_does(fake: FakeLinkedIn) -> None:
    """Proof the round trip above can fail: unescaped, the same text is cut."""
    token = fake.add_token()
    headers = {
        "Authorization": f"Bearer {token}",
        "LinkedIn-Version": DEFAULT_VERSION,
        "X-Restli-Protocol-Version": "2.0.0",
    }
    body = {
        "author": fake.member.urn,
        "commentary": "Why I learned (C#) today",
        "visibility": "PUBLIC",
        "distribution": {"feedDistribution": "MAIN_FEED"},
        "lifecycleState": "PUBLISHED",
    }
    answer = httpx.post(f"{fake.base_url}/rest/posts", headers=headers, json=body)
    assert answer.status_code == 201
    assert fake.posts[0].text == "Why I learned "


def test_escaping_survives_every_reserved_character() -> None:
    for char in sorted(RESERVED):
        for text in (char, f"a{char}b", f"{char}{char} x{char}", f"({char}word)"):
            reading = read_little(escape_little(text))
            assert (reading.text, reading.cut_at) == (text, None), text


def test_commentary_read_back_is_what_a_reader_sees() -> None:
    """`accounts history` reads LinkedIn's commentary back: the inverse of the escaping,
    and mentions and hashtag templates as the fake (LinkedIn's reader) shows them."""
    for char in sorted(RESERVED):
        for text in (char, f"a{char}b", f"{char}{char} x{char}", f"({char}word)", "#tag"):
            assert little_to_text(escape_little(text)) == text, text
    raw = r"Hi @[Ada Lovelace](urn:li:person:x1), see {hashtag|\#|ai} \(C\#\) a\_b"
    assert little_to_text(raw) == read_little(raw).text == "Hi Ada Lovelace, see #ai (C#) a_b"


def test_prepare_shows_the_escaped_text_and_refuses_more_than_3000_characters(
    fake: FakeLinkedIn,
) -> None:
    adapter = adapter_for(fake, {"access_token": fake.add_token()})
    prepared = adapter.prepare(post("Learn (C#)", MediaItem("image", PNG, "image/png", "alt")))
    assert [part.text for part in prepared.parts] == ["Learn \\(C\\#\\)"]
    assert prepared.parts[0].details["media"][0]["altText"] == "alt"
    assert adapter.prepare(post("x" * 3000)).parts[0].text == "x" * 3000
    error = failure(lambda: adapter.publish(post("x" * 3001)))
    assert "3000" in error.message and not error.retryable
    assert fake.requests == []  # refused before any call


def test_a_text_post_gets_its_urn_and_feed_url(fake: FakeLinkedIn) -> None:
    published = adapter_for(fake, {"access_token": fake.add_token()}).publish(post())
    (created,) = fake.posts
    assert published.remote_id == created.urn
    assert published.url == f"https://www.linkedin.com/feed/update/{created.urn}/"
    assert created.body["author"] == fake.member.urn
    assert created.body["visibility"] == "PUBLIC"
    assert created.body["distribution"]["feedDistribution"] == "MAIN_FEED"
    assert created.body["lifecycleState"] == "PUBLISHED"
    assert created.body["isReshareDisabledByAuthor"] is False
    assert "content" not in created.body


# --- media ------------------------------------------------------------------------------


def test_a_carousel_becomes_a_document_post_with_its_pdf(fake: FakeLinkedIn) -> None:
    slide = MediaItem("image", PNG, "image/png", "Slide 1")
    deck = MediaItem("document", PDF, "application/pdf", title="Why small teams win")
    adapter_for(fake, {"access_token": fake.add_token()}).publish(post("Deck", slide, deck))
    (created,) = fake.posts
    media = created.body["content"]["media"]
    assert media["id"].startswith("urn:li:document:")
    assert media["title"] == "Why small teams win"
    assert fake.uploads == {media["id"]: PDF}  # the PDF only, byte for byte
    assert fake.requests_to("/rest/images") == []


def test_images_go_through_the_images_api(fake: FakeLinkedIn) -> None:
    adapter = adapter_for(fake, {"access_token": fake.add_token()})
    one = MediaItem("image", PNG, "image/png", "A chart")
    adapter.publish(post("One", one))
    three = [MediaItem("image", PNG + bytes([n]), "image/png", f"Slide {n}") for n in range(3)]
    adapter.publish(post("Three", *three))
    single, multi = fake.posts
    assert single.body["content"]["media"]["altText"] == "A chart"
    images = multi.body["content"]["multiImage"]["images"]
    assert [image["altText"] for image in images] == ["Slide 0", "Slide 1", "Slide 2"]
    assert [fake.uploads[image["id"]] for image in images] == [item.data for item in three]


# --- faults -----------------------------------------------------------------------------


def test_429_is_retryable_with_retry_after_and_500_too(fake: FakeLinkedIn) -> None:
    adapter = adapter_for(fake, {"access_token": fake.add_token()})
    fake.add_fault(Fault("status", path="/rest/posts", status=429, retry_after="7"))
    limited = failure(lambda: adapter.publish(post()))
    assert limited.retryable and limited.retry_after == 7.0 and not limited.outcome_unknown
    fake.add_fault(Fault("status", path="/rest/posts", status=500))
    broken = failure(lambda: adapter.publish(post()))
    assert broken.retryable and not broken.outcome_unknown
    assert fake.post_count == 0
    adapter.publish(post())
    assert fake.post_count == 1


@pytest.mark.parametrize("kind", ["hang", "drop"])
def test_no_answer_after_the_post_was_sent_is_unknown_never_retried(
    fake: FakeLinkedIn, kind: str
) -> None:
    adapter = adapter_for(fake, {"access_token": fake.add_token()})
    fake.add_fault(Fault(kind, path="/rest/posts", after_processing=True, seconds=5))
    error = failure(lambda: adapter.publish(post()))
    assert error.outcome_unknown and not error.retryable
    assert "check your linkedin feed" in error.message.lower() and "--retry" in error.message
    assert fake.post_count == 1  # it is live, exactly once


def test_a_connection_refused_before_sending_is_retryable(fake: FakeLinkedIn) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    credentials = AccountCredentials(
        "linkedin", f"http://127.0.0.1:{closed_port}", fake.member.urn, {"access_token": "t"}
    )
    error = failure(lambda: linkedin.build(credentials, Saved(), settings=SETTINGS).publish(post()))
    assert error.retryable and not error.outcome_unknown


def test_an_upload_cut_mid_way_is_retryable_and_posts_nothing(fake: FakeLinkedIn) -> None:
    adapter = adapter_for(fake, {"access_token": fake.add_token()})
    fake.add_fault(Fault("cut", path="/uploads/document/"))
    deck = MediaItem("document", PDF * 20, "application/pdf", title="Deck")
    error = failure(lambda: adapter.publish(post("Deck", deck)))
    assert error.retryable and not error.outcome_unknown
    assert fake.post_count == 0
    adapter.publish(post("Deck", deck))
    assert fake.post_count == 1


# --- tokens -----------------------------------------------------------------------------


def test_a_revoked_token_is_refreshed_once_and_the_new_secret_saved(fake: FakeLinkedIn) -> None:
    fake.register_app("app-1", "app-secret-1", "http://127.0.0.1:1/callback")
    fake.oauth.issue_refresh_tokens = True
    fake.oauth.refresh_tokens["refresh-token-1"] = {
        "client_id": "app-1",
        "sub": fake.member.sub,
        "scope": " ".join(DEFAULT_SCOPES),
    }
    old = fake.add_token()
    fake.revoke(old)
    secret = {
        "access_token": old,
        "refresh_token": "refresh-token-1",
        "client_id": "app-1",
        "client_secret": "app-secret-1",
    }
    saved = Saved()
    adapter = adapter_for(fake, secret, saved)
    adapter.publish(post())
    assert fake.post_count == 1
    (new_secret,) = saved
    assert new_secret["access_token"] != old
    assert new_secret["refresh_token"] == "refresh-token-1"
    assert (
        fake.requests_to("/rest/posts")[-1]
        .headers["authorization"]
        .endswith(new_secret["access_token"])
    )
    adapter.publish(post())  # the adapter keeps the new token: no second refresh
    assert len(saved) == 1 and len(fake.oauth.token_requests) == 1


def test_a_revoked_token_without_refresh_asks_to_reconnect(fake: FakeLinkedIn) -> None:
    token = fake.add_token()
    fake.revoke(token)
    error = failure(lambda: adapter_for(fake, {"access_token": token}).publish(post()))
    assert error.reconnect and not error.retryable
    assert "socialgen accounts add linkedin" in error.message
    assert token not in error.message
    assert fake.post_count == 0


def test_check_and_connect_read_the_member_from_userinfo(fake: FakeLinkedIn) -> None:
    token = fake.add_token()
    who = adapter_for(fake, {"access_token": token}).check()
    assert (who.handle, who.display_name, who.email) == (
        fake.member.urn,
        "Ada Lovelace",
        "ada@example.com",
    )
    connected = linkedin.connect(fake.base_url + "/", "", token, settings=SETTINGS)
    assert connected.service_url == fake.base_url
    assert connected.identity == who and connected.secret == {"access_token": token}
    posting_only = fake.add_token(scopes=frozenset({"w_member_social"}))
    error = failure(lambda: linkedin.connect(fake.base_url, "", posting_only, settings=SETTINGS))
    assert "openid and profile" in error.message and posting_only not in error.message


# --- metrics ----------------------------------------------------------------------------


def test_metrics_come_from_social_actions_or_say_why_not(fake: FakeLinkedIn) -> None:
    reader = adapter_for(
        fake, {"access_token": fake.add_token(scopes=DEFAULT_SCOPES | {"r_member_social"})}
    )
    published = reader.publish(post())
    fake.set_social(published.remote_id, likes=5, comments=2)
    counts = reader.metrics(published)
    assert (counts.likes, counts.comments, counts.note) == (5, 2, "")
    writer_only = adapter_for(fake, {"access_token": fake.add_token()})
    note = writer_only.metrics(published)
    assert (note.likes, note.comments) == (0, 0)
    assert "r_member_social" in note.note


# --- the browser sign-in ----------------------------------------------------------------


def test_the_oauth_host_is_a_setting_read_once_with_the_runtime(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from socialgen.app.runtime import Runtime

    assert oauth_url(NetworkSettings()) == DEFAULT_OAUTH_URL
    monkeypatch.setenv("SOCIALGEN_LINKEDIN_OAUTH_URL", "http://127.0.0.1:9/")
    runtime = Runtime()
    settings = NetworkSettings.of(runtime.settings)
    assert oauth_url(settings) == "http://127.0.0.1:9"
    monkeypatch.setenv("SOCIALGEN_LINKEDIN_OAUTH_URL", "http://127.0.0.1:10")
    assert oauth_url(NetworkSettings.of(runtime.settings)) == "http://127.0.0.1:9"  # kept


def test_authorize_signs_in_through_the_loopback_redirect(fake: FakeLinkedIn) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    redirect_uri = f"http://127.0.0.1:{port}/callback"
    fake.register_app("app-1", "app-secret-1", redirect_uri)
    fake.oauth.issue_refresh_tokens = True
    browser_pages: list[int] = []

    def browser(url: str) -> None:  # the member's browser: approve, follow the redirect
        browser_pages.append(httpx.get(url, follow_redirects=True, timeout=5).status_code)

    def announce(message: str) -> None:
        for line in message.splitlines():
            if line.startswith(f"{fake.base_url}/oauth/v2/authorization?"):
                threading.Thread(target=browser, args=(line,), daemon=True).start()

    options = {"client_id": "app-1", "client_secret": "app-secret-1", "port": str(port)}
    connected = linkedin.authorize(
        fake.base_url,
        {**options, "timeout": "10"},
        open_browser=False,
        announce=announce,
        settings=on_fake(fake),
    )
    assert connected.identity.handle == fake.member.urn
    assert set(connected.secret) == {
        "access_token", "refresh_token", "client_id", "client_secret", "scope"
    }  # fmt: skip
    assert connected.secret["scope"] == " ".join(sorted(SCOPES.split()))  # granted, as asked
    (asked,) = fake.oauth.authorizations
    assert (asked["redirect_uri"], asked["scope"]) == (redirect_uri, SCOPES)
    (exchange,) = fake.oauth.token_requests
    assert exchange["client_secret"] == "app-secret-1" and exchange["redirect_uri"] == redirect_uri
    assert browser_pages == [200]
    token = connected.secret["access_token"]
    published = adapter_for(fake, connected.secret).publish(post("Signed in"))
    assert fake.requests_to("/rest/posts")[-1].headers["authorization"] == f"Bearer {token}"
    assert published.remote_id == fake.posts[0].urn


def test_authorize_without_the_app_credentials_is_a_bad_request(fake: FakeLinkedIn) -> None:
    from socialgen.kit.errors import BadRequest

    with pytest.raises(BadRequest, match="client id and client secret"):
        linkedin.authorize(fake.base_url, {}, open_browser=False, announce=lambda _: None)
