"""A queued post goes out through the outbox like any scheduled post: `publish-due`
publishes it at its slot to a real Mastodon API server (mastodon-mock, its own
process: tests/mastodon_support.py), once, and leaves the next slot's post waiting.

A slot is a minute of the week, so the test sets one at the next minute boundary and
waits for it: up to a minute, the price of going through the real clock."""

from __future__ import annotations

import json
import re
import time
from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from typer.testing import CliRunner, Result

from socialgen.cli.main import app
from socialgen.kit.clock import parse_iso, utcnow
from socialgen.publishing.queue import placement
from tests.conftest import Store
from tests.mastodon_support import MastodonMock
from tests.mastodon_support import mastodon_mock as mastodon_mock  # the fixture

runner = CliRunner()
BERLIN = ZoneInfo("Europe/Berlin")
SETUP = timedelta(seconds=6)  # what the steps before the slot may take


@pytest.fixture(autouse=True)
def _private_urls(monkeypatch: pytest.MonkeyPatch) -> None:
    """mastodon-mock lives on 127.0.0.1: let socialgen's SSRF guard through. A slot a
    few seconds ahead may be taken (the queue's own lead would add to the wait)."""
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")
    monkeypatch.setattr(placement, "LEAD", timedelta(seconds=1))
    monkeypatch.setenv("COLUMNS", "200")


def ok(*args: str, stdin: str | None = None) -> Any:
    result: Result = runner.invoke(app, [*args, "--json"], input=stdin)
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    return json.loads(result.stdout)


def test_publish_due_publishes_the_queued_post_at_its_slot_once(
    store: Store, mastodon_mock: MastodonMock
) -> None:
    user = mastodon_mock.new_user("queue")
    account = ok(
        "accounts", "add", "mastodon", "--instance", mastodon_mock.base_url, "--token-stdin",
        stdin=user.token + "\n",
    )["id"]  # fmt: skip
    ok("config", "set", "timezone", "Europe/Berlin")
    # The first whole minute far enough ahead, as a weekly slot in Berlin's wall time.
    ahead = utcnow() + SETUP
    slot = ahead.replace(second=0, microsecond=0) + timedelta(minutes=1)
    wall = slot.astimezone(BERLIN).strftime("%a %H:%M")
    ok("queue", "slots", "set", wall, "--to", account)
    first = store.post("Queued, and out at its slot.")
    second = store.post("Queued for the same slot next week.")
    queued = ok("posts", "queue", first.id)
    later = ok("posts", "queue", second.id)
    assert parse_iso(queued["scheduledAt"]) == slot, (queued, slot)
    assert parse_iso(later["scheduledAt"]) == slot + timedelta(weeks=1)
    assert mastodon_mock.status_count(user) == 0

    time.sleep(max(0.0, (slot - utcnow()).total_seconds() + 0.5))
    summary = ok("publish-due")
    assert (summary["published"], summary["failed"], summary["unknown"]) == (1, 0, 0), summary
    (row,) = summary["publications"]
    assert row["postId"] == first.id and row["state"] == "published"

    # On the server's side: one status, the post's text.
    (status,) = mastodon_mock.statuses(user)
    assert re.sub(r"<[^>]+>", "", status["content"]).strip() == "Queued, and out at its slot."
    again = ok("publish-due")  # a second pass finds nothing due: exactly once
    assert again["published"] == 0 and mastodon_mock.status_count(user) == 1

    shown = ok("posts", "show", first.id)
    assert shown["status"] == "published" and shown["postUrl"] == status["url"]
    (queue,) = ok("queue")["queues"]
    assert [post["postId"] for post in queue["posts"]] == [second.id]
    assert queue["posts"][0]["publications"][0]["state"] == "queued"
