"""An evergreen run goes out through the outbox, exactly once, to a real Mastodon API
server (PyPI's mastodon-mock, its own process: tests/mastodon_support.py), from the
product's own CLI on the scripted model: the original published, marked evergreen,
its first run written ahead (`posts evergreen prepare`), published by `publish-due`
(once, a 429 of the instance waited out in between), its likes read back apart from
the original's. What the server holds is read on its side. No secret in any output."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlalchemy import update
from sqlmodel import col

from socialgen.kit.clock import iso, parse_iso, utcnow
from socialgen.store.engine import transaction
from socialgen.store.tables import Publication
from tests.conftest import Store
from tests.evergreen_replies import PURPOSE, fresh_variation
from tests.evergreen_support import ORIGINAL
from tests.mastodon_support import MastodonMock
from tests.mastodon_support import mastodon_mock as mastodon_mock  # the fixture
from tests.publish_e2e_support import Witness
from tests.publish_e2e_support import witness as witness  # the fixture
from tests.scripted_support import ScriptedAI
from tests.test_publish_end_to_end import add_mastodon, mock_texts, wait_until


@pytest.fixture(autouse=True)
def _private_urls(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server lives on 127.0.0.1: let socialgen's SSRF guard through."""
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")
    monkeypatch.setenv("COLUMNS", "200")


def squeezed(text: str) -> str:
    return "".join(text.split())


@pytest.fixture
def mastodon(mastodon_mock: MastodonMock) -> Iterator[MastodonMock]:
    yield mastodon_mock
    mastodon_mock.clear_faults()


def test_an_evergreen_run_goes_out_once_and_keeps_its_own_numbers(
    store: Store, mastodon: MastodonMock, witness: Witness, scripted_ai: ScriptedAI
) -> None:
    witness.runtime = scripted_ai.runtime()
    user = mastodon.new_user("evergreen")
    account = add_mastodon(witness, store, mastodon, user)
    original = store.post(ORIGINAL)
    (sent,) = witness.cli_json("posts", "publish", original.id, "--to", account)["publications"]
    assert sent["state"] == "published"

    first = iso(utcnow() + timedelta(hours=2))
    assert first is not None
    plan = witness.cli_json(
        "posts", "evergreen", original.id, "--every", "7d", "--times", "2", "--first", first
    )
    assert plan["state"] == "active" and plan["nextAt"] == first
    assert [a["id"] for a in plan["accounts"]] == [account]  # where the original went
    prepared = witness.cli_json("posts", "evergreen", "prepare")
    assert (prepared["written"], prepared["refused"]) == (1, 0), prepared
    run_post = prepared["runs"][0]["runPostId"]
    (call,) = scripted_ai.calls_for(PURPOSE)
    variation = witness.cli_json("posts", "show", run_post)["postContent"]
    assert variation == fresh_variation(call) != ORIGINAL

    # Its time comes; the instance asks to wait once; publish-due sends it once.
    with transaction(store.engine) as session:
        session.connection().execute(
            update(Publication)
            .where(col(Publication.post_id) == run_post)
            .values(due_at=utcnow() - timedelta(seconds=1))
        )
    mastodon.fault("/api/v1/statuses", status=429, headers={"Retry-After": "1"})
    busy = witness.cli_json("publish-due")
    assert (busy["published"], busy["retrying"]) == (0, 1), busy
    assert busy["evergreen"]["written"] == 0  # the next run is a week away
    (row,) = witness.cli_json("posts", "publications", run_post)["publications"]
    wait_until(row["nextAttemptAt"])
    done = witness.cli_json("publish-due")
    assert done["published"] == 1, done
    assert witness.cli_json("publish-due")["published"] == 0
    # Newest first, once each (the server keeps paragraphs as HTML: spacing aside).
    assert [squeezed(t) for t in mock_texts(mastodon, user)] == [
        squeezed(variation),
        squeezed(ORIGINAL),
    ]

    # A fan likes the repost: its numbers are its own, the original's stay 0.
    (published,) = witness.cli_json("posts", "publications", run_post)["publications"]
    fan = mastodon.new_user("fan")
    witness.secret(fan.token)
    mastodon.favourite(fan.token, published["remoteId"])
    witness.cli_json("posts", "stats", run_post, "--refresh")
    witness.cli_json("posts", "stats", original.id, "--refresh")
    shown = witness.cli_json("posts", "evergreen", original.id)
    (run,) = shown["runs"]
    assert (run["number"], run["state"], run["postStatus"]) == (1, "scheduled", "published")
    assert run["metrics"]["likes"] == 1 and shown["metrics"]["likes"] == 0
    assert run["publications"][0]["url"] == published["url"]
    assert shown["runsWritten"] == 1 and shown["nextNumber"] == 2
    assert parse_iso(shown["nextAt"]) == parse_iso(first) + timedelta(days=7)
    versions = witness.cli_json("posts", "show", original.id)["versions"]
    assert versions[-1]["source"] == "evergreen" and versions[-1]["content"] == variation
    people = witness.cli("posts", "evergreen", original.id).stdout
    assert "likes 1" in people and "run 1" in people and "UTC" in people
