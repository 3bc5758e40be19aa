"""The Threads adapter against the fake Threads API, the account's side: the daily
quota, rate limits and refusals, the token's refresh, counts, past posts (bounded by
a Pull), the SSRF guard, connecting with a token and the browser sign-in through the
loopback redirect."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from dataclasses import replace
from datetime import timedelta

import httpx
import pytest

from socialgen.kit.clock import iso, parse_iso, utcnow
from socialgen.kit.errors import BadRequest
from socialgen.publishing.networks.base import Connected, Published
from socialgen.publishing.networks.guarded_http import GuardRefused
from socialgen.publishing.networks.pull import Pull, PullLimits
from socialgen.publishing.networks.threads import adapter as threads
from socialgen.publishing.networks.threads.oauth import SCOPES
from tests.conftest import BACKEND
from tests.fakes.threads_routes import USER_ID, USERNAME
from tests.fakes.threads_server import ALL_SCOPES, FakeThreads, Fault
from tests.fakes.threads_support import SETTINGS, Saved, adapter_for, failure, post

pytestmark = pytest.mark.skipif(
    BACKEND == "postgresql", reason="a network's tests run on one database (SQLite)"
)


@pytest.fixture
def fake() -> Iterator[FakeThreads]:
    with FakeThreads() as server:
        yield server


# --- quota, rate limits, refusals -------------------------------------------------------


def test_at_the_daily_quota_the_post_waits_without_a_call_that_counts(
    fake: FakeThreads,
) -> None:
    fake.state.quota_used = 250
    error = failure(lambda: adapter_for(fake).publish(post()))
    assert error.retryable and error.retry_after == threads.LIMIT_WAIT_SECONDS
    assert "250 of 250 posts" in error.message
    assert fake.requests_to(f"{USER_ID}/threads", "POST") == []  # no container either
    fake.state.quota_used = 249
    adapter_for(fake).publish(post())
    assert len(fake.live_texts()) == 1


def test_rate_limits_are_retryable_after_the_time_meta_names(fake: FakeThreads) -> None:
    usage = {USER_ID: [{"type": "threads", "estimated_time_to_regain_access": 7}]}
    headers = {"x-business-use-case-usage": json.dumps(usage)}
    fake.add_fault(Fault("status", path="/me", status=400, code=17, headers=headers))
    error = failure(lambda: adapter_for(fake).publish(post()))
    assert error.retryable and error.retry_after == 420.0 and "(code 17)" in error.message
    fake.add_fault(Fault("status", path="/me", status=429, headers={"Retry-After": "30"}))
    error = failure(lambda: adapter_for(fake).publish(post()))
    assert error.retryable and error.retry_after == 30.0
    fake.add_fault(Fault("status", path="/threads_publish", status=400, code=9))
    error = failure(lambda: adapter_for(fake).publish(post()))  # Meta's own quota word
    assert error.retryable and error.retry_after == threads.LIMIT_WAIT_SECONDS
    assert fake.live_texts() == []


def test_a_dead_token_or_a_missing_permission_asks_to_reconnect(fake: FakeThreads) -> None:
    error = failure(lambda: adapter_for(fake, "THAA-not-a-token").publish(post()))
    assert error.reconnect and "socialgen accounts add threads" in error.message
    assert "THAA-not-a-token" not in error.message
    reader = fake.add_token(scopes=frozenset({"threads_basic"}))
    error = failure(lambda: adapter_for(fake, reader).publish(post()))
    assert error.reconnect and "permission" in error.message and reader not in error.message
    assert fake.live_texts() == []


def test_a_server_error_while_preparing_is_retryable_not_unknown(fake: FakeThreads) -> None:
    fake.add_fault(Fault("status", path=f"{USER_ID}/threads", method="POST", status=500))
    error = failure(lambda: adapter_for(fake).publish(post()))
    assert error.retryable and not error.outcome_unknown
    fake.add_fault(Fault("drop", path=f"{USER_ID}/threads", method="POST"))
    assert failure(lambda: adapter_for(fake).publish(post())).retryable
    assert fake.live_texts() == []


def test_an_unreachable_api_is_retryable(fake: FakeThreads) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    adapter = adapter_for(fake)
    adapter._credentials = replace(adapter._credentials, service_url=f"http://127.0.0.1:{port}")
    error = failure(lambda: adapter.publish(post()))
    assert error.retryable and not error.outcome_unknown


# --- the token's refresh ----------------------------------------------------------------


def test_a_token_near_its_end_is_refreshed_and_saved_before_the_call(fake: FakeThreads) -> None:
    old = fake.add_token()
    now = utcnow()
    saved = Saved()
    adapter = adapter_for(
        fake,
        old,
        saved=saved,
        issued_at=iso(now - timedelta(days=55)) or "",
        expires_at=iso(now + timedelta(days=5)) or "",
    )
    adapter.publish(post())
    (secret,) = saved
    assert fake.state.refreshed == [old] and secret["access_token"] != old
    assert parse_iso(secret["expires_at"]) - now > timedelta(days=59)
    assert fake.requests[-1].headers["authorization"] == f"Bearer {secret['access_token']}"
    adapter.check()  # the new token serves the adapter's next calls
    assert fake.state.refreshed == [old] and len(saved) == 1


def test_a_young_token_is_not_refreshed(fake: FakeThreads) -> None:
    saved = Saved()
    fresh = iso(utcnow() - timedelta(hours=2)) or ""
    adapter_for(fake, saved=saved, issued_at=fresh).publish(post())
    assert saved == [] and fake.state.refreshed == []


# --- counts and past posts --------------------------------------------------------------


def test_metrics_map_meta_insights_and_say_why_when_refused(fake: FakeThreads) -> None:
    published = adapter_for(fake).publish(post())
    fake.set_insights(published.remote_id, views=90, likes=7, replies=3, reposts=2, quotes=1)
    counts = adapter_for(fake).metrics(published)
    assert (counts.likes, counts.reposts, counts.comments, counts.impressions) == (7, 3, 3, 90)
    (call,) = fake.requests_to("/insights")
    assert call.params["metric"] == "views,likes,replies,reposts,quotes"
    no_insights = fake.add_token(scopes=ALL_SCOPES - {"threads_manage_insights"})
    note = adapter_for(fake, no_insights).metrics(Published(published.remote_id, ""))
    assert (note.likes, note.impressions) == (0, None) and "threads_manage_insights" in note.note


def test_history_reads_own_posts_newest_first_with_counts(fake: FakeThreads) -> None:
    now = utcnow()
    for day in range(1, 121):  # 120 posts: three pages of 50
        fake.add_past_post(f"Post from {day} days ago", now - timedelta(days=day), likes=day)
    fake.add_past_post("", now - timedelta(hours=1), media_type="REPOST_FACADE")
    posts = list(adapter_for(fake).history(None, Pull()))
    assert len(posts) == 120 and posts[0].text == "Post from 1 days ago"
    assert [p.metrics.likes for p in posts] == list(range(1, 121))
    assert posts[0].url.startswith(f"https://www.threads.com/@{USERNAME}/post/")
    assert len(fake.requests_to(f"{USER_ID}/threads", "GET")) == 3
    recent = list(adapter_for(fake).history(now - timedelta(days=10, hours=1), Pull()))
    assert [p.text for p in recent][-1] == "Post from 10 days ago" and len(recent) == 10


def test_history_stops_where_its_pull_says(fake: FakeThreads) -> None:
    now = utcnow()
    for day in range(1, 80):
        fake.add_past_post(f"Post {day}", now - timedelta(days=day))
    pull = Pull(PullLimits(seconds=60, pages=12))  # a page, then ten posts' counts
    posts = list(adapter_for(fake).history(None, pull))
    assert len(posts) == 11 and pull.stopped is not None and "pages" in pull.stopped
    assert len(fake.requests_to("/insights")) == 11


# --- the guard, connecting, signing in --------------------------------------------------


def test_a_private_host_is_refused_when_private_urls_are_not_allowed(fake: FakeThreads) -> None:
    strict = replace(SETTINGS, allow_private_urls=False)
    adapter = adapter_for(fake, settings=strict)
    assert isinstance(failure(lambda: adapter.publish(post())), GuardRefused)
    assert isinstance(failure(lambda: adapter.prepare(post())), GuardRefused)
    token = fake.add_token()
    refused = failure(lambda: threads.connect(fake.api_url, "", token, settings=strict))
    assert isinstance(refused, GuardRefused)
    assert fake.requests == []


def test_connect_takes_a_token_and_checks_whose_it_is(fake: FakeThreads) -> None:
    token = fake.add_token()
    connected = threads.connect(fake.api_url + "/", "@Ada.Codes", token, settings=SETTINGS)
    assert connected.service_url == fake.api_url
    assert connected.identity.handle == f"@{USERNAME}"
    assert connected.identity.profile_url == f"https://www.threads.com/@{USERNAME}"
    assert connected.secret["access_token"] == token and connected.secret["user_id"] == USER_ID
    error = failure(lambda: threads.connect(fake.api_url, "someone", token, settings=SETTINGS))
    assert "@ada.codes, not @someone" in error.message and token not in error.message
    adapter = adapter_for(fake, token, user_id=USER_ID)
    assert adapter.check() == connected.identity
    adapter.publish(post())
    assert fake.requests_to("/me") != [] and len(fake.requests_to("/me")) == 3  # no lookup


def sign_in(fake: FakeThreads, app_secret: str = "app-secret-1") -> tuple[Connected, str]:
    """A browser sign-in against the fake, the app registered with its loopback
    redirect; (what connecting gave, the redirect URI)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    redirect_uri = f"http://127.0.0.1:{port}/callback"
    fake.register_app("1234567890", "app-secret-1", redirect_uri)

    def browser(url: str) -> None:  # the user approves; Threads redirects back here
        httpx.get(url, follow_redirects=True, timeout=5)

    def announce(message: str) -> None:
        for line in message.splitlines():
            if line.startswith(f"{fake.base_url}/oauth/authorize?"):
                threading.Thread(target=browser, args=(line,), daemon=True).start()

    options = {"client_id": "1234567890", "client_secret": app_secret, "port": str(port)}
    connected = threads.authorize(
        fake.api_url,
        {**options, "timeout": "10", "authorize_url": fake.base_url},
        open_browser=False,
        announce=announce,
        settings=SETTINGS,
    )
    return connected, redirect_uri


def test_sign_in_through_the_loopback_gets_a_long_lived_token(fake: FakeThreads) -> None:
    connected, redirect_uri = sign_in(fake)
    assert connected.identity.handle == f"@{USERNAME}"
    assert set(connected.secret) == {"access_token", "issued_at", "expires_at", "user_id"}
    token = connected.secret["access_token"]
    assert fake.state.tokens[token].long_lived  # exchanged: the short-lived one is gone
    (asked,) = fake.requests_to("/oauth/authorize")
    assert asked.params["scope"] == ",".join(SCOPES)
    assert asked.params["redirect_uri"] == redirect_uri
    (exchange,) = fake.requests_to("/oauth/access_token")
    assert exchange.params["redirect_uri"] == redirect_uri and exchange.method == "POST"
    assert all("app-secret-1" not in v for v in connected.secret.values())
    adapter_for(fake, token).publish(post("Signed in"))
    assert fake.live_texts() == ["Signed in"]


def test_a_refused_code_exchange_asks_to_sign_in_again_without_the_secret(
    fake: FakeThreads,
) -> None:
    error = failure(lambda: sign_in(fake, app_secret="wrong-app-secret"))
    assert error.reconnect and "socialgen accounts add threads" in error.message
    assert error.message.count("socialgen accounts add threads") == 1
    assert "wrong-app-secret" not in error.message
    assert [r for r in fake.requests if r.path == "/access_token"] == []  # no exchange


def test_sign_in_needs_the_app_and_an_https_redirect(fake: FakeThreads) -> None:
    with pytest.raises(BadRequest, match="app id and app secret"):
        threads.authorize(fake.api_url, {}, open_browser=False, announce=lambda _: None)
    options = {"client_id": "1", "client_secret": "s", "redirect_uri": "http://x.example/cb"}
    with pytest.raises(BadRequest, match="https address ending in /callback"):
        threads.authorize(fake.api_url, options, open_browser=False, announce=lambda _: None)
    assert fake.requests == []
