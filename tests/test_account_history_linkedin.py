"""`socialgen accounts history` and POST social-accounts/{id}/history for LinkedIn,
against the fake LinkedIn (tests/fakes/linkedin_server.py) over real sockets.

The account is connected as a user would: `accounts add linkedin --client-id …`
through the browser sign-in (the loopback redirect and LinkedIn's OAuth host are
real; only the browser is a thread that follows the link). LinkedIn's answer names
the scopes it granted, and that decides: with r_member_social and
r_member_postAnalytics the member's posts come in with their counts; without them,
or when they are unknown (a token given by hand), a refusal naming what is missing.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from socialgen.publishing import loopback
from socialgen.publishing.secrets import decrypt_secret
from socialgen.store.engine import read_session
from socialgen.store.tables import MetricSnapshot, Post, Publication, SocialAccount
from tests.conftest import Store
from tests.fakes.linkedin_server import DEFAULT_SCOPES, FakeLinkedIn, Fault
from tests.keys_support import keys_now
from tests.publish_e2e_support import Witness
from tests.publish_e2e_support import witness as witness  # the fixture

DONE = {"complete": True, "stopped": None}  # the pull ran to its end, within its bounds

BASE = "/api/v1/social-accounts"
HISTORY = frozenset({"r_member_social", "r_member_postAnalytics"})
REFUSED = (
    "LinkedIn does not let socialgen read your past posts and their counts: that needs "
    "the r_member_postAnalytics permission"
)
DAY_MS = 86_400_000
NOW_MS = int(datetime.now(UTC).timestamp() * 1000)


@pytest.fixture(autouse=True)
def _private_urls(monkeypatch: pytest.MonkeyPatch) -> None:
    """The servers live on 127.0.0.1: let socialgen's SSRF guard through."""
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")
    monkeypatch.setenv("COLUMNS", "200")


@pytest.fixture
def linkedin(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeLinkedIn]:
    with FakeLinkedIn() as server:
        monkeypatch.setattr(
            "socialgen.publishing.networks.linkedin.adapter.DEFAULT_SERVICE_URL", server.base_url
        )
        monkeypatch.setenv("SOCIALGEN_LINKEDIN_OAUTH_URL", server.base_url)
        monkeypatch.delenv("SOCIALGEN_LINKEDIN_VERSION", raising=False)
        monkeypatch.delenv("SOCIALGEN_LINKEDIN_CLIENT_SECRET", raising=False)
        yield server


def sign_in(
    witness: Witness,
    linkedin: FakeLinkedIn,
    store: Store,
    monkeypatch: pytest.MonkeyPatch,
    *extra: str,
    code: int = 0,
) -> Any:
    """`accounts add linkedin --client-id app-1 … EXTRA` with a browser that approves."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    linkedin.register_app("app-1", "app-secret-1", f"http://127.0.0.1:{port}/callback")

    def browser(url: str) -> bool:  # the member approves and the redirect is followed
        follow = lambda: httpx.get(url, follow_redirects=True, timeout=5)  # noqa: E731
        threading.Thread(target=follow, daemon=True).start()
        return True

    monkeypatch.setattr(loopback, "_can_open_browser", lambda: True)
    monkeypatch.setattr(loopback, "_open", browser)
    witness.secret("app-secret-1")
    args = ["accounts", "add", "linkedin", "--client-id", "app-1", "--client-secret-stdin"]
    args += ["--port", str(port), *extra]
    if code:
        return witness.cli(*args, stdin="app-secret-1\n", code=code)
    added = witness.cli_json(*args, stdin="app-secret-1\n")
    witness.stored_secrets(store)
    return added


def snapshots(store: Store) -> dict[str, dict[str, Any]]:
    """Every publication's remote id -> its post and snapshots, read from the store."""
    found: dict[str, dict[str, Any]] = {}
    with read_session(store.engine) as session:
        rows = session.execute(
            select(Publication, Post).join(Post, Post.id == Publication.post_id)  # type: ignore[arg-type]
        ).all()
        for publication, post in rows:
            taken = session.scalars(
                select(MetricSnapshot)
                .where(MetricSnapshot.publication_id == publication.id)  # type: ignore[arg-type]
                .order_by(MetricSnapshot.taken_at)  # type: ignore[arg-type]
            ).all()
            found[str(publication.remote_id)] = {
                "post": post.id,
                "content": post.content,
                "status": post.status,
                "published": post.published_at,
                "url": post.post_url,
                "snapshots": [(s.likes, s.reposts, s.comments, s.impressions) for s in taken],
            }
    return found


def count(store: Store, table: Any) -> int:
    return int(store.scalar(select(func.count()).select_from(table)))


def stored_scope(store: Store) -> str:
    with read_session(store.engine) as session:
        account = session.scalars(select(SocialAccount)).one()
        return str(decrypt_secret(account.secret_ciphertext, keys_now()).get("scope"))


def counts(reactions: int, reshares: int, comments: int, impressions: int) -> dict[str, int]:
    return {
        "REACTION": reactions,
        "RESHARE": reshares,
        "COMMENT": comments,
        "IMPRESSION": impressions,
    }


# --- with the scopes ---------------------------------------------------------------------


def test_history_pulls_the_members_posts_with_counts_once(
    store: Store, linkedin: FakeLinkedIn, witness: Witness, monkeypatch: pytest.MonkeyPatch
) -> None:
    linkedin.oauth.app_scopes = DEFAULT_SCOPES | HISTORY  # approved for both products
    added = sign_in(witness, linkedin, store, monkeypatch, "--history")
    account = added["id"]
    assert set(stored_scope(store).split()) == DEFAULT_SCOPES | HISTORY
    ours = store.post("Published by socialgen, pulled back as itself.")
    (row,) = witness.cli_json("posts", "publish", ours.id, "--to", account)["publications"]
    linkedin.set_analytics(row["remoteId"], **counts(4, 0, 1, 300))
    monkeypatch.setattr("socialgen.publishing.networks.linkedin.history.PAGE_SIZE", 2)
    escaped = linkedin.add_past_post(
        # A control character (here ESC and BEL) is dropped, the post kept.
        r"Why I learned \(C\#\) with @[Ada Lovelace](urn:li:person:x1) {hashtag|\#|python}"
        + "\x1b\x07",
        NOW_MS - 3 * DAY_MS,
        counts=counts(12, 2, 5, 1800),
    )
    five_days_ago = NOW_MS - 5 * DAY_MS
    ugc = linkedin.add_past_post(
        "Questions beat statements?", five_days_ago, counts=counts(3, 0, 0, 90), kind="ugcPost"
    )
    linkedin.add_past_post(
        "", NOW_MS - 6 * DAY_MS, reshareContext={"parent": "urn:li:share:1"}, counts={}
    )  # a repost of someone else's post: not the member's
    linkedin.add_past_post("Half written", NOW_MS - 7 * DAY_MS, lifecycleState="DRAFT")
    no_data = linkedin.add_past_post("Too old for analytics", NOW_MS - 400 * DAY_MS)

    summary = witness.cli_json("accounts", "history", account)
    assert summary == {
        "accountId": account,
        "fetched": 4,
        "created": 3,
        "updated": 1,
        "skipped": 0,
        **DONE,
    }
    held = snapshots(store)
    assert set(held) == {row["remoteId"], escaped, ugc, no_data}
    assert held[escaped]["content"] == "Why I learned (C#) with Ada Lovelace #python"
    assert held[escaped]["snapshots"] == [(12, 2, 5, 1800)]
    assert held[escaped]["status"] == "published"
    assert held[escaped]["url"] == f"https://www.linkedin.com/feed/update/{escaped}/"
    assert held[escaped]["published"] == datetime.fromtimestamp((NOW_MS - 3 * DAY_MS) / 1000, UTC)
    assert held[ugc]["snapshots"] == [(3, 0, 0, 90)]
    assert held[no_data]["snapshots"] == [(0, 0, 0, None)]  # no data point: no impressions
    assert held[row["remoteId"]]["post"] == ours.id  # socialgen's own: no second post
    assert held[row["remoteId"]]["snapshots"][-1] == (4, 0, 1, 300)
    finder = linkedin.requests_to("/rest/posts", "GET")
    assert [r.query["start"] for r in finder] == [["0"], ["2"], ["4"]]  # paged, 2 a page
    assert all(r.headers["linkedin-version"] and r.query["sortBy"] == ["CREATED"] for r in finder)

    again = witness.cli_json("accounts", "history", account)
    assert (again["fetched"], again["created"], again["updated"], again["skipped"]) == (4, 0, 0, 4)
    linkedin.set_analytics(ugc, REACTION=7)
    moved = witness.cli_json("accounts", "history", account)
    assert (moved["created"], moved["updated"], moved["skipped"]) == (0, 1, 3)
    assert snapshots(store)[ugc]["snapshots"][-1] == (7, 0, 0, 90)
    assert count(store, Post) == 4 and count(store, Publication) == 4


def test_since_stops_at_older_posts_and_http_gives_the_same(
    client: TestClient,
    store: Store,
    linkedin: FakeLinkedIn,
    witness: Witness,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    linkedin.oauth.app_scopes = DEFAULT_SCOPES | HISTORY
    account = sign_in(witness, linkedin, store, monkeypatch, "--history")["id"]
    linkedin.add_past_post("Last week", NOW_MS - 7 * DAY_MS, counts=counts(1, 1, 1, 10))
    linkedin.add_past_post("Last year", NOW_MS - 365 * DAY_MS, counts=counts(2, 2, 2, 20))
    headers = {"x-api-key": store.api_key(), "Authorization": f"Bearer {store.token()}"}
    url = f"{BASE}/{store.workspace_id}/{account}/history"
    since = datetime.fromtimestamp((NOW_MS - 30 * DAY_MS) / 1000, UTC).isoformat()

    answer = witness.http(client.post(url, json={"since": since}, headers=headers))
    assert answer.status_code == 200, answer.text
    assert answer.json()["data"] == {
        "accountId": account, "fetched": 1, "created": 1, "updated": 0, "skipped": 0,
        **DONE,
    }  # fmt: skip
    assert [v["content"] for v in snapshots(store).values()] == ["Last week"]
    everything = witness.http(client.post(url, headers=headers)).json()["data"]
    assert (everything["fetched"], everything["created"], everything["skipped"]) == (2, 1, 1)
    assert count(store, Post) == 2


# --- without them ------------------------------------------------------------------------


def test_a_sign_in_without_the_scopes_is_refused_naming_them_before_any_call(
    client: TestClient,
    store: Store,
    linkedin: FakeLinkedIn,
    witness: Witness,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    account = sign_in(witness, linkedin, store, monkeypatch)["id"]  # no --history
    assert set(stored_scope(store).split()) == DEFAULT_SCOPES
    linkedin.add_past_post("Never read", NOW_MS - DAY_MS, counts=counts(1, 1, 1, 1))
    before = len(linkedin.requests)

    failed = witness.cli("accounts", "history", account, code=1)
    words = " ".join(failed.stderr.split())
    assert REFUSED in words and "Traceback" not in failed.output
    assert "lacks r_member_postAnalytics and r_member_social" in words
    assert "Community Management API" in words and "--history" in words
    headers = {"x-api-key": store.api_key(), "Authorization": f"Bearer {store.token()}"}
    answer = witness.http(
        client.post(f"{BASE}/{store.workspace_id}/{account}/history", headers=headers)
    )
    assert answer.status_code == 403 and answer.json()["message"].startswith(REFUSED)
    assert len(linkedin.requests) == before  # refused before any call
    assert count(store, Post) == 0


def test_a_token_given_by_hand_has_unknown_scopes_and_is_refused(
    client: TestClient, store: Store, linkedin: FakeLinkedIn, witness: Witness
) -> None:
    token = linkedin.add_token(scopes=DEFAULT_SCOPES | HISTORY)
    witness.secret(token)
    added = witness.cli_json("accounts", "add", "linkedin", "--token-stdin", stdin=token + "\n")
    before = len(linkedin.requests)

    failed = witness.cli("accounts", "history", added["id"], code=1)
    words = " ".join(failed.stderr.split())
    assert REFUSED in words and "does not know whether this account's token holds them" in words
    headers = {"x-api-key": store.api_key(), "Authorization": f"Bearer {store.token()}"}
    answer = witness.http(
        client.post(f"{BASE}/{store.workspace_id}/{added['id']}/history", headers=headers)
    )
    assert answer.status_code == 403 and "r_member_postAnalytics" in answer.json()["message"]
    assert len(linkedin.requests) == before
    assert count(store, Post) == 0
    mixed = witness.cli("accounts", "add", "linkedin", "--token-stdin", "--history", code=1)
    assert "--history" in mixed.stderr and "Traceback" not in mixed.output


def test_history_sign_in_on_an_app_linkedin_did_not_approve_says_so(
    store: Store, linkedin: FakeLinkedIn, witness: Witness, monkeypatch: pytest.MonkeyPatch
) -> None:
    linkedin.oauth.app_scopes = DEFAULT_SCOPES  # Share on LinkedIn + Sign In only
    failed = sign_in(witness, linkedin, store, monkeypatch, "--history", code=1)
    assert "r_member_" in failed.stderr and "not authorized" in failed.stderr
    assert count(store, SocialAccount) == 0


def test_a_permission_withdrawn_since_is_the_same_refusal_and_stores_nothing(
    store: Store, linkedin: FakeLinkedIn, witness: Witness, monkeypatch: pytest.MonkeyPatch
) -> None:
    linkedin.oauth.app_scopes = DEFAULT_SCOPES | HISTORY
    account = sign_in(witness, linkedin, store, monkeypatch, "--history")["id"]
    linkedin.add_past_post("Read, then refused", NOW_MS - DAY_MS, counts=counts(1, 1, 1, 1))
    for token in linkedin.rest.tokens.values():
        token.scopes = token.scopes - {"r_member_postAnalytics"}
    failed = witness.cli("accounts", "history", account, code=1)
    words = " ".join(failed.stderr.split())
    assert REFUSED in words and "refused this token while reading the reaction count" in words
    assert "Not enough permissions to access: r_member_postAnalytics" in words
    assert count(store, Post) == 0 and count(store, MetricSnapshot) == 0


# --- bad answers ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fault", "words"),
    [
        (Fault("body", "/rest/posts", "GET", raw=b"<html>Bad gateway</html>"), "is not JSON"),
        (Fault("body", "/rest/memberCreatorPostAnalytics", raw=b"[1, 2]"), "not a JSON object"),
        (Fault("status", "/rest/memberCreatorPostAnalytics", status=429, retry_after="30"), "429"),
        (Fault("status", "/rest/posts", "GET", status=500), "500"),
    ],
)
def test_a_bad_answer_is_a_clear_error_and_nothing_is_half_written(
    client: TestClient,
    store: Store,
    linkedin: FakeLinkedIn,
    witness: Witness,
    monkeypatch: pytest.MonkeyPatch,
    fault: Fault,
    words: str,
) -> None:
    linkedin.oauth.app_scopes = DEFAULT_SCOPES | HISTORY
    account = sign_in(witness, linkedin, store, monkeypatch, "--history")["id"]
    linkedin.add_past_post("First", NOW_MS - DAY_MS, counts=counts(1, 1, 1, 1))
    linkedin.add_past_post("Second", NOW_MS - 2 * DAY_MS, counts=counts(2, 2, 2, 2))
    linkedin.add_fault(replace(fault))  # a fresh copy: a fault counts its uses
    failed = witness.cli("accounts", "history", account, code=1)
    assert words in failed.stderr and "Traceback" not in failed.output
    assert "linkedin is unavailable" in failed.stderr
    assert count(store, Post) == 0 and count(store, MetricSnapshot) == 0
    linkedin.add_fault(replace(fault))  # a fresh copy: a fault counts its uses
    headers = {"x-api-key": store.api_key(), "Authorization": f"Bearer {store.token()}"}
    answer = witness.http(
        client.post(f"{BASE}/{store.workspace_id}/{account}/history", headers=headers)
    )
    assert answer.status_code == 502 and words in answer.json()["message"]
    assert count(store, Post) == 0


@pytest.mark.parametrize("bad", [-3, 2.5, "12", None])
def test_a_count_that_is_not_a_whole_number_stores_nothing(
    store: Store,
    linkedin: FakeLinkedIn,
    witness: Witness,
    monkeypatch: pytest.MonkeyPatch,
    bad: Any,
) -> None:
    linkedin.oauth.app_scopes = DEFAULT_SCOPES | HISTORY
    account = sign_in(witness, linkedin, store, monkeypatch, "--history")["id"]
    linkedin.add_past_post("Fine", NOW_MS - DAY_MS, counts=counts(1, 1, 1, 1))
    broken = linkedin.add_past_post("Broken", NOW_MS - 2 * DAY_MS, counts=counts(1, 1, 1, 1))
    linkedin.set_analytics(broken, COMMENT=bad)
    failed = witness.cli("accounts", "history", account, code=1)
    words = " ".join(failed.stderr.split())
    assert f"{bad!r} is not a count" in words and broken in words
    assert count(store, Post) == 0 and count(store, MetricSnapshot) == 0


def test_a_listed_post_without_a_time_stores_nothing(
    store: Store, linkedin: FakeLinkedIn, witness: Witness, monkeypatch: pytest.MonkeyPatch
) -> None:
    linkedin.oauth.app_scopes = DEFAULT_SCOPES | HISTORY
    account = sign_in(witness, linkedin, store, monkeypatch, "--history")["id"]
    linkedin.add_past_post("Fine", NOW_MS - DAY_MS, counts=counts(1, 1, 1, 1))
    linkedin.add_past_post("No time", NOW_MS - DAY_MS, publishedAt="yesterday", createdAt=None)
    failed = witness.cli("accounts", "history", account, code=1)
    assert "has no publication time" in " ".join(failed.stderr.split())
    assert count(store, Post) == 0
