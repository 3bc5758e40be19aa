"""Publishing end to end: the product's own faces (the CLI in-process, the HTTP API)
against the real servers the adapters were tested on alone: mastodon-mock as its
own process (tests/mastodon_support.py) and the atproto dev network, PDS and AppView
(tests/bluesky_support.py). What the networks hold is read on their side, with their
own clients, never from what socialgen says it did. Every test ends with the secrets
check of tests/publish_e2e_support.py (no token or app password in any output, HTTP
body or log record). Carousels to LinkedIn and Mastodon, and the race of several
processes, are in test_publish_end_to_end_media.py and ..._race.py.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from socialgen.app.runtime import Runtime
from socialgen.kit.clock import iso, parse_iso, utcnow
from tests.bluesky_support import (
    POSTS,
    BlueskyNetwork,
    bluesky_network_fixture,  # noqa: F401  (the fixture)
    count_posts,
)
from tests.conftest import Store
from tests.mastodon_support import MastodonMock, MockUser
from tests.mastodon_support import mastodon_mock as mastodon_mock  # the fixture
from tests.publish_e2e_support import Witness, find_post
from tests.publish_e2e_support import witness as witness  # the fixture

SENTENCE = "Small teams ship weekly because feedback beats a long plan."
LONG_POST = " ".join([SENTENCE] * 12)  # 719 characters: a Bluesky thread of three


@pytest.fixture(autouse=True)
def _private_urls(monkeypatch: pytest.MonkeyPatch) -> None:
    """The servers live on 127.0.0.1: let socialgen's SSRF guard through."""
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")
    monkeypatch.setenv("COLUMNS", "200")


@pytest.fixture
def mastodon(mastodon_mock: MastodonMock) -> Iterator[MastodonMock]:
    yield mastodon_mock
    mastodon_mock.clear_faults()  # one a test did not use up must not hit the next


def add_mastodon(w: Witness, store: Store, server: MastodonMock, user: MockUser) -> str:
    w.secret(user.token)
    added = w.cli_json(
        "accounts", "add", "mastodon", "--instance", server.base_url, "--token-stdin",
        stdin=user.token + "\n",
    )  # fmt: skip
    w.stored_secrets(store)
    assert added["network"] == "mastodon" and added["handle"].startswith(f"@{user.username}@")
    return str(added["id"])


def mock_texts(server: MastodonMock, user: MockUser) -> list[str]:
    """The user's statuses as the mock holds them, as plain text."""
    return [_plain(s["content"]) for s in server.statuses(user)]


def _plain(html: str) -> str:
    import re

    return re.sub(r"<[^>]+>", "", html).replace("&#39;", "'").strip()


def at(seconds: float) -> str:
    moment = iso(utcnow() + timedelta(seconds=seconds))
    assert moment is not None
    return moment


def wait_until(moment: str) -> None:
    time.sleep(max(0.0, (parse_iso(moment) - utcnow()).total_seconds() + 0.1))


# --- Mastodon -----------------------------------------------------------------------------


def test_mastodon_publish_metrics_and_dry_run_from_the_cli(
    store: Store, mastodon: MastodonMock, witness: Witness
) -> None:
    user = mastodon.new_user("pub")
    account = add_mastodon(witness, store, mastodon, user)
    post = store.post("Shipping weekly, live from the end-to-end test.")

    answer = witness.cli_json("posts", "publish", post.id, "--to", account)
    (row,) = answer["publications"]
    assert row["state"] == "published", row
    assert mock_texts(mastodon, user) == ["Shipping weekly, live from the end-to-end test."]
    status = mastodon.status(row["remoteId"])
    assert row["url"] == status["url"]

    listed = find_post(witness.cli_json("posts", "recent"), post.id)
    assert listed["status"] == "published" and listed["postUrl"] == status["url"]
    assert listed["socialAccount"]["name"] == user.username
    assert listed["metrics"]["likes"] == 0

    fan = mastodon.new_user("fan")
    witness.secret(fan.token)
    mastodon.favourite(fan.token, row["remoteId"])
    stats = witness.cli_json("posts", "stats", post.id, "--refresh")
    (counted,) = stats["posts"]
    assert counted["likes"] == 1 and counted["publications"][0]["likes"] == 1
    assert find_post(witness.cli_json("posts", "recent"), post.id)["metrics"]["likes"] == 1

    again = witness.cli_json("posts", "publish", post.id, "--to", account)
    assert again["publications"][0]["state"] == "published"
    preview = store.post("Only a preview, never sent.")
    dry = witness.cli_json("posts", "publish", preview.id, "--to", account, "--dry-run")
    (network,) = dry["networks"]
    assert [part["text"] for part in network["parts"]] == ["Only a preview, never sent."]
    assert mastodon.status_count(user) == 1  # neither the repeat nor the dry run sent


def test_mastodon_429_is_retried_by_publish_due_once(
    store: Store, mastodon: MastodonMock, witness: Witness
) -> None:
    user = mastodon.new_user("busy")
    account = add_mastodon(witness, store, mastodon, user)
    post = store.post("Sent after the instance asked us to wait.")
    due = at(1)
    scheduled = witness.cli_json("posts", "schedule", post.id, "--at", due, "--to", account)
    assert scheduled["status"] == "scheduled"
    mastodon.fault("/api/v1/statuses", status=429, headers={"Retry-After": "1"})
    wait_until(due)

    first = witness.cli_json("publish-due")
    assert (first["published"], first["retrying"], first["failed"]) == (0, 1, 0), first
    (row,) = witness.cli_json("posts", "publications", post.id)["publications"]
    assert row["state"] == "queued" and row["nextAttemptAt"], row
    wait = (parse_iso(row["nextAttemptAt"]) - utcnow()).total_seconds()
    assert wait < 2.5, row  # Retry-After: 1 was honoured (no header: 30 s)
    assert mastodon.status_count(user) == 0
    assert mastodon.faults_left() == []  # the 429 was met

    wait_until(row["nextAttemptAt"])
    second = witness.cli_json("publish-due")
    assert (second["published"], second["retrying"]) == (1, 0), second
    assert witness.cli_json("publish-due")["published"] == 0
    assert mock_texts(mastodon, user) == ["Sent after the instance asked us to wait."]
    shown = witness.cli_json("posts", "show", post.id)
    assert shown["status"] == "published" and shown["postUrl"]


# --- Bluesky ------------------------------------------------------------------------------


def add_bluesky(w: Witness, store: Store, network: BlueskyNetwork) -> tuple[Any, str]:
    person = network.account("e2e")
    w.secret(person.app_password, person.password)
    added = w.cli_json(
        "accounts", "add", "bluesky", person.handle, "--service", network.pds,
        "--password-stdin", stdin=person.app_password + "\n",
    )  # fmt: skip
    w.stored_secrets(store)  # the session's tokens
    return person, str(added["id"])


def records(network: BlueskyNetwork, person: Any) -> list[Any]:
    reader = person.client(network.pds)
    listed = reader.com.atproto.repo.list_records(
        {"repo": person.did, "collection": POSTS, "limit": 100}
    )
    return list(listed.records)


def test_bluesky_scheduled_post_goes_out_once_through_publish_due(
    store: Store, bluesky_network: BlueskyNetwork, witness: Witness
) -> None:
    person, account = add_bluesky(witness, store, bluesky_network)
    post = store.post("Scheduled for the PDS, published by cron.")
    due = at(2)
    witness.cli_json("posts", "schedule", post.id, "--at", due, "--to", account)
    assert witness.cli_json("publish-due")["published"] == 0  # not due yet
    assert count_posts(bluesky_network, person) == 0
    wait_until(due)

    done = witness.cli_json("publish-due")
    assert done["published"] == 1, done
    assert witness.cli_json("publish-due")["published"] == 0
    (record,) = records(bluesky_network, person)
    assert record.value.text == "Scheduled for the PDS, published by cron."
    (row,) = witness.cli_json("posts", "publications", post.id)["publications"]
    assert row["state"] == "published" and row["remoteId"] == record.uri
    assert row["url"].endswith("/post/" + record.uri.rsplit("/", 1)[-1])


def test_a_long_post_becomes_a_thread_on_bluesky(
    store: Store, bluesky_network: BlueskyNetwork, witness: Witness
) -> None:
    person, account = add_bluesky(witness, store, bluesky_network)
    post = store.post(LONG_POST)
    (row,) = witness.cli_json("posts", "publish", post.id, "--to", account)["publications"]
    assert row["state"] == "published", row

    by_uri = {r.uri: r.value for r in records(bluesky_network, person)}
    assert len(by_uri) == 3
    root = by_uri[row["remoteId"]]
    assert root.reply is None
    parts, uri = [root], row["remoteId"]
    while True:  # follow the replies from the root, each to the one before
        after = [v for v in by_uri.values() if v.reply and v.reply.parent.uri == uri]
        if not after:
            break
        (following,) = after
        assert following.reply.root.uri == row["remoteId"]
        parts.append(following)
        uri = next(u for u, v in by_uri.items() if v is following)
    assert len(parts) == 3 and all(len(p.text) <= 300 for p in parts)
    assert " ".join(p.text for p in parts).split() == LONG_POST.split()


# --- HTTP -------------------------------------------------------------------------------


def test_a_member_publishes_over_http_to_mastodon(
    store: Store, mastodon: MastodonMock, witness: Witness
) -> None:
    from socialgen.http.server import create_app

    user = mastodon.new_user("http")
    account = add_mastodon(witness, store, mastodon, user)
    post = store.post("Published by a member over HTTP.")
    member = "member@example.com"
    store.user(member, workspace_id=store.workspace_id, role="member")
    key, token = store.api_key(None), store.token(member)
    witness.secret(key, token)
    headers = {"x-api-key": key, "Authorization": f"Bearer {token}"}
    base = f"/api/v1/ai-conversation/post/{store.workspace_id}/{post.id}"
    with TestClient(create_app(Runtime())) as client:
        listed = witness.http(
            client.get(f"/api/v1/social-accounts/{store.workspace_id}", headers=headers)
        )
        assert listed.status_code == 200 and account in listed.text
        answer = witness.http(
            client.post(f"{base}/publish", json={"accountIds": [account]}, headers=headers)
        )
        assert answer.status_code == 200, answer.text
        (row,) = answer.json()["data"]["publications"]
        assert row["state"] == "published", row
        shown = witness.http(client.get(f"{base}/publications", headers=headers))
    (listed_row,) = shown.json()["data"]["publications"]
    assert listed_row["state"] == "published" and listed_row["id"] == row["id"]
    (status,) = mastodon.statuses(user)
    assert listed_row["url"] == status["url"] and listed_row["remoteId"] == status["id"]
    assert _plain(status["content"]) == "Published by a member over HTTP."
