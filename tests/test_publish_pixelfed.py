"""Pixelfed publishing against mastodon-mock behind Pixelfed's rules (tests/pixelfed_support.py):
a real Mastodon API server as its own process, a proxy that answers as Pixelfed's
controller does. What arrived is read on the server's side (the mock's statuses, the
requests the proxy saw), never from what the adapter says about itself."""

from __future__ import annotations

from functools import partial

import pytest

from socialgen.kit.errors import BadRequest
from socialgen.publishing.networks.base import (
    AccountCredentials,
    MediaItem,
    PublishError,
)
from socialgen.publishing.networks.guarded_http import GuardRefused
from socialgen.publishing.networks.pixelfed import adapter as pixelfed
from socialgen.publishing.networks.pixelfed.text import (
    NO_IMAGE,
    as_kept,
    connect_command,
    unconnected_parts,
)
from tests.conftest import BACKEND
from tests.mastodon_support import MastodonMock, MockUser, free_port
from tests.mastodon_support import mastodon_mock as mastodon_mock  # the fixture
from tests.pixelfed_support import (
    ALLOWED,
    CAPTION,
    PDF,
    STATUSES,
    PixelfedProxy,
    adapter,
    failure,
    photo,
    slides,
)
from tests.pixelfed_support import proxy as proxy  # the fixtures
from tests.pixelfed_support import server as server

pytestmark = pytest.mark.skipif(
    BACKEND == "postgresql", reason="a network's tests run on one database (SQLite)"
)

# --- the text rules (no server) -------------------------------------------------------


def test_the_caption_is_kept_as_pixelfed_keeps_it_and_counted_in_code_points() -> None:
    assert as_kept("Shot on <b>film</b> today") == ("Shot on film today", ["<b>", "</b>"])
    assert as_kept("I <3 this view") == ("I", ["<3 this view"])  # strip_tags takes the rest
    assert as_kept("a < b and c > d") == ("a < b and c > d", [])
    url = "https://example.com/" + "a" * 600
    with pytest.raises(PublishError, match="620 characters and Pixelfed takes 500"):
        unconnected_parts(url, False, images=1)  # a URL counts in full, not 23


def test_the_dry_run_of_a_handle_not_connected_says_an_image_is_needed() -> None:
    [(caption, details)] = unconnected_parts("Shot <i>today</i>", True)
    assert caption == "Shot today" and details["limit"] == 500
    assert details["image_note"] == NO_IMAGE and "<i>" in details["leftOut"][0]
    with pytest.raises(PublishError, match="Pixelfed needs an image"):
        unconnected_parts(CAPTION, False, images=0)
    assert connect_command("@ana@pixel.example") == (
        "socialgen accounts add pixelfed --instance https://pixel.example"
    )
    assert connect_command("ana").endswith("--instance https://SERVER")


# --- connecting -----------------------------------------------------------------------


def test_connect_verifies_the_token_and_names_the_account(
    server: PixelfedProxy, mastodon_mock: MastodonMock
) -> None:
    user = mastodon_mock.new_user("pf")
    connected = pixelfed.connect(server.base_url + "/", "", user.token, settings=ALLOWED)
    host = server.base_url.removeprefix("http://")
    assert connected.service_url == server.base_url
    assert connected.identity.handle == f"@{user.username}@{host}"
    assert connected.secret["access_token"] == user.token
    assert adapter(server, user).check().handle == connected.identity.handle

    with pytest.raises(BadRequest, match="refused the access token") as refused:
        pixelfed.connect(server.base_url, "", "not-a-token-" + user.token, settings=ALLOWED)
    assert user.token not in refused.value.message
    assert "socialgen accounts add pixelfed" in refused.value.message
    with pytest.raises(BadRequest, match="belongs to"):
        pixelfed.connect(server.base_url, "@someone_else", user.token, settings=ALLOWED)
    with pytest.raises(BadRequest, match="name the Pixelfed instance"):
        pixelfed.connect(" ", "", user.token, settings=ALLOWED)


def test_a_private_host_is_refused_unless_allowed(
    server: PixelfedProxy, mastodon_mock: MastodonMock
) -> None:
    user = mastodon_mock.new_user("pf")
    closed = adapter(server, user, private=False)
    for call in (closed.check, lambda: closed.publish(photo("ssrf"))):
        error = failure(call, user.token)
        assert isinstance(error, GuardRefused) and not error.retryable
    assert server.requests == []  # refused before it was sent
    with pytest.raises(BadRequest, match=r"127\.0\.0\.1 is a loopback address"):
        pixelfed.connect(server.base_url, "", user.token)  # the default settings: refused
    assert server.requests == []


def test_a_refused_connection_is_retryable() -> None:
    credentials = AccountCredentials(
        "pixelfed", f"http://127.0.0.1:{free_port()}", "", {"access_token": "secret-token"}
    )
    gone = pixelfed.PixelfedAdapter(credentials, lambda _: None, allow_private=True)
    error = failure(lambda: gone.publish(photo("gone")), "secret-token")
    assert error.retryable and "could not reach" in error.message


def test_a_revoked_token_asks_to_reconnect(
    server: PixelfedProxy, mastodon_mock: MastodonMock
) -> None:
    user = mastodon_mock.new_user("pf")
    token = mastodon_mock.token(user.username)
    mastodon_mock.revoke(token)
    revoked = MockUser(user.username, token, user.account_id)
    error = failure(lambda: adapter(server, revoked).publish(photo("revoked")), token)
    assert error.reconnect and not error.retryable
    assert f"socialgen accounts add pixelfed --instance {server.base_url}" in error.message
    # A token without the write scope: Pixelfed answers 403.
    mastodon_mock.fault(STATUSES, status=403, body={"error": "This action is unauthorized."})
    error = failure(lambda: adapter(server, user).publish(photo("scope")), user.token)
    assert error.reconnect and "This action is unauthorized." in error.message


# --- the post -------------------------------------------------------------------------


def test_an_image_post_with_its_caption_arrives_once(
    server: PixelfedProxy, mastodon_mock: MastodonMock
) -> None:
    user = mastodon_mock.new_user("pf")
    noted: list[tuple[int, str]] = []
    post = photo("one", part_posted=lambda i, remote: noted.append((i, remote)))
    published = adapter(server, user).publish(post)

    [status] = mastodon_mock.statuses(user)
    assert status["id"] == published.remote_id and published.part_ids == (published.remote_id,)
    assert "Morning light over the harbour" in status["content"]
    assert published.url == status["url"] and noted == [(0, published.remote_id)]
    [attachment] = status["media_attachments"]
    assert attachment["type"] == "image" and attachment["description"] == "Slide red"
    assert server.sent("POST", STATUSES) == 1
    assert ("Bearer " + user.token, "pub-one") in server.keys  # the key went along


def test_the_slides_go_as_an_album_and_the_pdf_is_left_out(
    server: PixelfedProxy, mastodon_mock: MastodonMock
) -> None:
    user = mastodon_mock.new_user("pf")
    colours = ("red", "green", "blue", "white", "black")
    webp = MediaItem("image", b"RIFF....WEBP", "image/webp", alt_text="a webp")
    post = photo("album", media=(PDF, *slides(*colours), webp))

    details = adapter(server, user).prepare(post).parts[0].details
    assert [m["description"] for m in details["media"]] == [f"Slide {c}" for c in colours[:4]]
    left_out = " ".join(details["leftOut"])
    assert "PDF" in left_out and "1 more image(s)" in left_out and "image/webp" in left_out
    published = adapter(server, user).publish(post)

    attachments = mastodon_mock.status(published.remote_id)["media_attachments"]
    assert [a["description"] for a in attachments] == [f"Slide {c}" for c in colours[:4]]


def test_a_post_without_an_image_is_refused_before_anything_is_sent(
    server: PixelfedProxy, mastodon_mock: MastodonMock
) -> None:
    user = mastodon_mock.new_user("pf")
    publisher = adapter(server, user)
    for media in ((), (PDF,)):
        post = photo("text-only", media=media)
        for call in (publisher.prepare, publisher.publish):
            error = failure(partial(call, post))
            assert "Pixelfed needs an image" in error.message and not error.retryable
    assert server.requests == [] and mastodon_mock.status_count(user) == 0
    # Only images the instance does not take: refused too, saying which.
    webp = MediaItem("image", b"RIFF....WEBP", "image/webp")
    error = failure(lambda: publisher.publish(photo("webp", media=(webp,))))
    assert "image/webp" in error.message and server.sent("POST", STATUSES) == 0


def test_the_limits_are_the_instances_own(
    server: PixelfedProxy, mastodon_mock: MastodonMock
) -> None:
    user = mastodon_mock.new_user("pf")
    server.max_characters, server.max_media = 150, 2
    long = "A caption that goes on about the light. " * 5  # 200 characters
    details = adapter(server, user).prepare(photo("small", "Short")).parts[0].details
    assert details["limit"] == 150 and "limit_note" not in details
    error = failure(lambda: adapter(server, user).publish(photo("long", long)))
    assert "has 199 characters and Pixelfed takes 150" in error.message
    assert "never split into a thread" in error.message and not error.retryable
    assert server.sent("POST", STATUSES) == 0

    published = adapter(server, user).publish(photo("two", media=slides("red", "green", "blue")))
    assert len(mastodon_mock.status(published.remote_id)["media_attachments"]) == 2

    server.has_v2 = False  # an older Pixelfed: /api/v1/instance says it
    server.max_characters = 90
    assert adapter(server, user).prepare(photo("v1")).parts[0].details["limit"] == 90


def test_a_caption_refused_by_the_instance_is_a_refusal_not_a_retry(
    server: PixelfedProxy, mastodon_mock: MastodonMock
) -> None:
    """The instance's limit fell after the adapter read it: Laravel's validation
    failure (answered 500) carries its words and is not retried."""
    user = mastodon_mock.new_user("pf")
    publisher = adapter(server, user)
    publisher.limits()  # read at 500
    server.max_characters = 20
    error = failure(lambda: publisher.publish(photo("shrunk")), user.token)
    assert "must not be greater than 20 characters" in error.message
    assert not error.retryable and not error.outcome_unknown
    assert mastodon_mock.status_count(user) == 0


def test_429_is_retryable_after_the_servers_time(
    server: PixelfedProxy, mastodon_mock: MastodonMock
) -> None:
    user = mastodon_mock.new_user("pf")
    server.throttle = [{"Retry-After": "7"}, {"X-RateLimit-Reset": "60"}]
    error = failure(lambda: adapter(server, user).publish(photo("busy")), user.token)
    assert error.retryable and error.retry_after == 7 and "429" in error.message
    error = failure(lambda: adapter(server, user).publish(photo("busy")), user.token)
    assert error.retryable and error.retry_after == 60
    assert mastodon_mock.status_count(user) == 0

    adapter(server, user).publish(photo("busy"))
    assert mastodon_mock.status_count(user) == 1
