"""The X account against the fake X: tokens that expire and refresh with rotation,
connect and check, metrics, history (bounded by its Pull), the browser sign-in with
PKCE through the loopback redirect."""

from __future__ import annotations

import socket
import threading
import time
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from socialgen.publishing.networks.pull import Pull, PullLimits
from socialgen.publishing.networks.x import adapter as x
from socialgen.publishing.networks.x.oauth import SCOPES
from tests.conftest import BACKEND
from tests.fakes.x_server import FakeX
from tests.fakes.x_support import (
    SETTINGS,
    Saved,
    adapter_for,
    failure,
    post,
    secret_for,
)
from tests.fakes.x_support import _quick_second_look as _quick_second_look  # autouse
from tests.fakes.x_support import fake as fake  # the fixture

pytestmark = pytest.mark.skipif(
    BACKEND == "postgresql", reason="a network's tests run on one database (SQLite)"
)


def test_an_expired_token_is_refreshed_and_the_rotated_secret_saved_at_once(
    fake: FakeX,
) -> None:
    fake.register_app("app-1", None, "http://127.0.0.1:1/callback")  # a public client
    old_refresh = fake.add_refresh_token("app-1")
    expired = fake.add_token(lifetime=timedelta(seconds=-1))
    secret = {**secret_for(fake, expired), "refresh_token": old_refresh, "client_id": "app-1"}
    saved = Saved()
    adapter = adapter_for(fake, secret, saved)
    adapter.publish(post("After a refresh."))
    (new,) = saved
    assert new["access_token"] != expired and new["refresh_token"] != old_refresh
    assert float(new["expires_at"]) > time.time() + 7000  # two hours from now
    (exchange,) = fake.oauth.token_requests
    assert exchange["client_id"] == "app-1" and exchange["authorization"] == ""
    # Rotation: the old refresh token is dead; only the saved one works.
    dead = httpx.post(
        f"{fake.base_url}/2/oauth2/token",
        data={"grant_type": "refresh_token", "refresh_token": old_refresh, "client_id": "app-1"},
    )
    assert dead.status_code == 400
    adapter.publish(post("Still the new token."))  # kept by the adapter: no second refresh
    assert len(saved) == 1 and len(fake.posts) == 2


def test_a_token_about_to_expire_is_refreshed_before_the_call(fake: FakeX) -> None:
    """A confidential client authenticates with HTTP Basic, no 401 is needed first."""
    fake.register_app("app-2", "app-secret-2", "http://127.0.0.1:1/callback")
    secret = {
        **secret_for(fake),
        "refresh_token": fake.add_refresh_token("app-2"),
        "client_id": "app-2",
        "client_secret": "app-secret-2",
        "expires_at": str(int(time.time()) + 30),
    }
    saved = Saved()
    adapter_for(fake, secret, saved).check()
    assert len(saved) == 1 and fake.oauth.token_requests[0]["authorization"].startswith("Basic ")
    assert "client_id" not in fake.oauth.token_requests[0]
    assert [r.path for r in fake.requests] == ["/2/oauth2/token", "/2/users/me"]


def test_a_refresh_token_x_no_longer_takes_asks_to_reconnect(fake: FakeX) -> None:
    fake.register_app("app-4", None, "http://127.0.0.1:1/callback")
    used = fake.add_refresh_token("app-4")
    fake.oauth.refresh_tokens.pop(used)  # rotated away by an earlier refresh
    expired = fake.add_token(lifetime=timedelta(seconds=-1))
    secret = {**secret_for(fake, expired), "refresh_token": used, "client_id": "app-4"}
    saved = Saved()
    error = failure(lambda: adapter_for(fake, secret, saved).publish(post()))
    assert error.reconnect and "refreshing the access token" in error.message
    assert used not in error.message and saved == [] and fake.posts == []


def test_a_refused_token_without_refresh_asks_to_reconnect(fake: FakeX) -> None:
    expired = fake.add_token(lifetime=timedelta(seconds=-1))
    error = failure(lambda: adapter_for(fake, secret_for(fake, expired)).publish(post()))
    assert error.reconnect and "socialgen accounts add x" in error.message
    assert expired not in error.message and fake.posts == []


def test_check_and_connect_read_the_account_from_users_me(fake: FakeX) -> None:
    token = fake.add_token()
    who = adapter_for(fake, {"access_token": token}).check()
    assert (who.handle, who.display_name, who.profile_url) == (
        "@ada_ships",
        "Ada Lovelace",
        "https://x.com/ada_ships",
    )
    connected = x.connect(fake.base_url + "/", "", token, settings=SETTINGS)
    assert connected.service_url == fake.base_url and connected.identity == who
    assert connected.secret == {"access_token": token, "user_id": fake.state.user_id}
    assert x.connect(fake.base_url, "@ADA_ships", token, settings=SETTINGS).identity == who
    other = failure(lambda: x.connect(fake.base_url, "@someone", token, settings=SETTINGS))
    assert "belongs to @ada_ships" in other.message and token not in other.message
    writer = fake.add_token(frozenset({"tweet.write"}))
    refused = failure(lambda: x.connect(fake.base_url, "", writer, settings=SETTINGS))
    assert refused.reconnect and "users.read" in refused.message


def test_metrics_are_public_metrics_with_quotes_as_reposts(fake: FakeX) -> None:
    adapter = adapter_for(fake)
    published = adapter.publish(post())
    fake.posts[0].metrics.update(
        like_count=7, retweet_count=2, quote_count=1, reply_count=3, impression_count=410
    )
    counts = adapter.metrics(published)
    assert (counts.likes, counts.reposts, counts.comments, counts.impressions) == (7, 3, 3, 410)
    fake.state.tweets.clear()  # deleted on X
    assert "no longer has this post" in adapter.metrics(published).note


def _past(fake: FakeX, count: int, newest: datetime) -> list[str]:
    return [
        fake.add_past_post(f"Past post {n}", newest - timedelta(hours=n), like_count=n)
        for n in range(count)
    ]


def test_history_pages_newest_first_without_replies_down_to_since(fake: FakeX) -> None:
    newest = datetime.now(UTC) - timedelta(minutes=5)
    ids = _past(fake, 230, newest)
    thread = adapter_for(fake).publish(post(" ".join(f"Week {n} of shipping." for n in range(30))))
    thread_root = thread.remote_id
    assert len(thread.part_ids) == 3
    read = list(adapter_for(fake).history(None, Pull()))
    assert [p.remote_id for p in read] == [thread_root, *ids]  # replies left out
    assert read[1].metrics.likes == 0 and read[5].metrics.likes == 4
    assert read[1].url == f"https://x.com/ada_ships/status/{ids[0]}"
    pages = fake.requests_to("/2/users/2244994945/tweets")
    assert len(pages) == 3 and pages[1].query["pagination_token"]
    assert pages[0].query["exclude"] == "replies,retweets"
    since = newest - timedelta(hours=9, minutes=30)
    recent = list(adapter_for(fake).history(since, Pull()))
    assert [p.remote_id for p in recent] == [thread_root, *ids[:10]]
    assert fake.requests_to("/2/users/2244994945/tweets")[-1].query["start_time"].endswith("Z")


def test_history_stops_at_the_pulls_page_cap_and_keeps_what_it_read(fake: FakeX) -> None:
    _past(fake, 250, datetime.now(UTC))
    pull = Pull(PullLimits(seconds=30, pages=2))
    read = list(adapter_for(fake).history(None, pull))
    assert len(read) == 200 and pull.stopped is not None and "2 pages" in pull.stopped


def test_authorize_signs_in_with_pkce_through_the_loopback_redirect(fake: FakeX) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    redirect_uri = f"http://127.0.0.1:{port}/callback"
    fake.register_app("app-3", "app-secret-3", redirect_uri)
    pages: list[int] = []

    def browser(url: str) -> None:  # the user's browser: approve, follow the redirect
        pages.append(httpx.get(url, follow_redirects=True, timeout=5).status_code)

    def announce(message: str) -> None:
        for line in message.splitlines():
            if line.startswith(f"{fake.base_url}/i/oauth2/authorize?"):
                threading.Thread(target=browser, args=(line,), daemon=True).start()

    options = {
        "client_id": "app-3",
        "client_secret": "app-secret-3",
        "port": str(port),
        "authorize_url": f"{fake.base_url}/i/oauth2/authorize",
        "timeout": "10",
    }
    connected = x.authorize(
        fake.base_url, options, open_browser=False, announce=announce, settings=SETTINGS
    )
    assert pages == [200] and connected.identity.handle == "@ada_ships"
    assert set(connected.secret) == {
        "access_token", "refresh_token", "expires_at", "scope", "client_id",
        "client_secret", "user_id",
    }  # fmt: skip
    (asked,) = fake.oauth.authorizations
    assert asked["scope"] == SCOPES and asked["code_challenge_method"] == "S256"
    assert asked["redirect_uri"] == redirect_uri
    (exchange,) = fake.oauth.token_requests
    assert exchange["code_verifier"] and exchange["authorization"].startswith("Basic ")
    adapter_for(fake, connected.secret).publish(post("Signed in."))
    assert len(fake.posts) == 1


def test_authorize_without_a_client_id_is_a_bad_request(fake: FakeX) -> None:
    from socialgen.kit.errors import BadRequest

    with pytest.raises(BadRequest, match="client id"):
        x.authorize(fake.base_url, {}, open_browser=False, announce=lambda _: None)
