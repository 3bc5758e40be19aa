"""Pixelfed exactly once, metrics and history, against mastodon-mock behind Pixelfed's
rules (tests/pixelfed_support.py). Pixelfed refuses a repeated Idempotency-Key (400)
instead of answering with the post it made: the adapter looks for the post on the
account. Every count is read on the server's side."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from datetime import timedelta

import pytest

from socialgen.kit.clock import utcnow
from socialgen.publishing.networks.base import AccountCredentials, Published
from socialgen.publishing.networks.pixelfed import adapter as pixelfed
from socialgen.publishing.networks.pull import Pull, PullLimits
from tests.conftest import BACKEND
from tests.mastodon_support import MastodonMock
from tests.mastodon_support import mastodon_mock as mastodon_mock  # the fixture
from tests.pixelfed_support import ALLOWED, STATUSES, PixelfedProxy, adapter, failure, photo
from tests.pixelfed_support import proxy as proxy  # the fixtures
from tests.pixelfed_support import server as server

pytestmark = pytest.mark.skipif(
    BACKEND == "postgresql", reason="a network's tests run on one database (SQLite)"
)


def test_the_same_publication_twice_is_one_post(
    server: PixelfedProxy, mastodon_mock: MastodonMock
) -> None:
    """A worker died after the post went live, before it was recorded: the retry's
    key is refused as a repeat, and the post is found on the account."""
    user = mastodon_mock.new_user("pf")
    post = photo("twice")
    first = adapter(server, user).publish(post)
    again = adapter(server, user).publish(post)

    assert again == first and mastodon_mock.status_count(user) == 1
    assert server.sent("POST", STATUSES) == 2  # the second one was refused (400)


def test_an_answer_lost_after_sending_is_found_on_the_account(
    server: PixelfedProxy, mastodon_mock: MastodonMock
) -> None:
    user = mastodon_mock.new_user("pf")
    server.lose_answers = 1
    noted: list[tuple[int, str]] = []
    published = adapter(server, user).publish(
        photo("lost", part_posted=lambda i, remote: noted.append((i, remote)))
    )
    [status] = mastodon_mock.statuses(user)
    assert published.remote_id == status["id"] and noted == [(0, status["id"])]
    assert server.sent("POST", STATUSES) == 1


def test_no_answer_in_time_is_found_on_the_account(
    server: PixelfedProxy, mastodon_mock: MastodonMock
) -> None:
    user = mastodon_mock.new_user("pf")
    server.hold_seconds = 2.0
    published = adapter(server, user, request_timeout=1.0).publish(photo("slow"))
    [status] = mastodon_mock.statuses(user)
    assert published.remote_id == status["id"] and server.sent("POST", STATUSES) == 1


def test_a_post_made_later_than_the_answer_is_never_made_twice(
    server: PixelfedProxy, mastodon_mock: MastodonMock
) -> None:
    """Sent, no answer, not on the account yet: retryable, saying so. The retry looks
    first (the post is there by then) and sends nothing."""
    user = mastodon_mock.new_user("pf")
    server.late, server.late_seconds = 1, 1.0
    started = utcnow()
    error = failure(lambda: adapter(server, user).publish(photo("late")), user.token)
    assert error.retryable and not error.outcome_unknown
    assert "closed the connection after the request was sent" in error.message
    assert "the post may be live" in error.message and "looks for it" in error.message

    _wait_for(lambda: mastodon_mock.status_count(user) == 1)
    retry = photo("late", earlier_attempt_at=started)
    published = adapter(server, user).publish(retry)
    assert published.remote_id == mastodon_mock.statuses(user)[0]["id"]
    assert server.sent("POST", STATUSES) == 1 and mastodon_mock.status_count(user) == 1


def test_a_key_taken_with_no_post_to_show_is_unknown_never_sent_again(
    server: PixelfedProxy, mastodon_mock: MastodonMock
) -> None:
    """Pixelfed took the key and made nothing (it failed after): the retry is refused
    as a repeat and nothing is on the account, so the user must check."""
    user = mastodon_mock.new_user("pf")
    server.swallow = 1
    started = utcnow()
    error = failure(lambda: adapter(server, user).publish(photo("swallowed")), user.token)
    assert error.retryable and mastodon_mock.status_count(user) == 0

    error = failure(
        lambda: adapter(server, user).publish(photo("swallowed", earlier_attempt_at=started)),
        user.token,
    )
    assert error.outcome_unknown and not error.retryable
    assert "Duplicate idempotency key." in error.message and "for an hour" in error.message
    assert mastodon_mock.status_count(user) == 0


def test_an_empty_answer_with_no_post_to_show_is_unknown(
    server: PixelfedProxy, mastodon_mock: MastodonMock
) -> None:
    """Pixelfed answers `[]` to an account never active on the web, having taken the key."""
    user = mastodon_mock.new_user("pf")
    mastodon_mock.fault(STATUSES, status=200, body=[])
    error = failure(lambda: adapter(server, user).publish(photo("empty")), user.token)
    assert error.outcome_unknown and "answered the post with nothing" in error.message
    assert "sign in there once" in error.message and mastodon_mock.status_count(user) == 0


def test_a_500_on_the_create_call_is_looked_for_then_retried(
    server: PixelfedProxy, mastodon_mock: MastodonMock
) -> None:
    user = mastodon_mock.new_user("pf")
    mastodon_mock.fault(STATUSES, status=503, headers={"Retry-After": "3"})
    error = failure(lambda: adapter(server, user).publish(photo("down")), user.token)
    assert error.retryable and error.retry_after == 3 and "may be live" in error.message
    assert mastodon_mock.status_count(user) == 0


def test_a_post_already_live_is_never_sent_again(
    server: PixelfedProxy, mastodon_mock: MastodonMock
) -> None:
    user = mastodon_mock.new_user("pf")
    first = adapter(server, user).publish(photo("once"))
    server.requests.clear()

    recorded = photo("once", posted_parts=(first.remote_id,))
    assert adapter(server, user).publish(recorded) == first
    found = photo("once-found", earlier_attempt_at=utcnow() - timedelta(minutes=1))
    assert adapter(server, user).publish(found).remote_id == first.remote_id
    assert server.sent("POST", STATUSES) == 0 and mastodon_mock.status_count(user) == 1

    # Another caption since then is another post: sent.
    other = photo("other", "Another caption", earlier_attempt_at=utcnow() - timedelta(minutes=1))
    assert adapter(server, user).publish(other).remote_id != first.remote_id
    assert mastodon_mock.status_count(user) == 2


# --- what comes back ----------------------------------------------------------------


def test_metrics_count_likes_and_comments(
    server: PixelfedProxy, mastodon_mock: MastodonMock
) -> None:
    author, reader = mastodon_mock.new_user("pf"), mastodon_mock.new_user("reader")
    publisher = adapter(server, author)
    published = publisher.publish(photo("liked"))
    mastodon_mock.favourite(reader.token, published.remote_id)
    mastodon_mock.reply(reader.token, published.remote_id, "Lovely light!")

    metrics = publisher.metrics(published)
    assert (metrics.likes, metrics.reposts, metrics.comments) == (1, 0, 1)
    error = failure(lambda: publisher.metrics(Published("999999999", "", ("999999999",))))
    assert "gone" in error.message and not error.retryable


def test_history_reads_the_accounts_posts_within_the_pulls_bounds(
    server: PixelfedProxy, mastodon_mock: MastodonMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    user = mastodon_mock.new_user("pf")
    publisher = adapter(server, user)
    made = [publisher.publish(photo(f"h{i}", f"Photo number {i}")) for i in range(3)]

    past = list(publisher.history(None, Pull()))
    assert [p.remote_id for p in past] == [m.remote_id for m in reversed(made)]
    assert past[0].text == "Photo number 2" and past[0].url == made[2].url

    monkeypatch.setattr("socialgen.publishing.networks.mastodon.history.PAGE_SIZE", 2)
    bounded = Pull(PullLimits(pages=1))
    assert len(list(publisher.history(None, bounded))) == 2
    assert bounded.stopped is not None and "1 pages" in bounded.stopped
    assert server.sent("GET", f"/api/v1/accounts/{user.account_id}/statuses") == 3


def test_the_browser_sign_in_asks_for_pixelfeds_scopes(
    server: PixelfedProxy, mastodon_mock: MastodonMock
) -> None:
    from tests.test_publish_mastodon import _sign_in_as

    user = mastodon_mock.new_user("pf")
    announced: list[str] = []
    seen: dict[str, str] = {}
    browser = threading.Thread(
        target=_sign_in_as, args=(user.username, announced, seen), daemon=True
    )
    browser.start()
    connected = pixelfed.authorize(
        server.base_url,
        {"timeout": "20"},
        open_browser=False,
        announce=announced.append,
        settings=ALLOWED,
    )
    browser.join(timeout=10)
    assert "scope=read+write&" in seen["authorize_url"]
    assert connected.identity.handle.startswith(f"@{user.username}@")
    assert connected.service_url == server.base_url
    pixelfed.build(
        AccountCredentials("pixelfed", connected.service_url, "", connected.secret),
        lambda _: None,
        settings=ALLOWED,
    ).publish(photo("via-oauth"))
    assert mastodon_mock.status_count(user) == 1


def _wait_for(condition: Callable[[], bool], seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the server never got there"
        time.sleep(0.05)
