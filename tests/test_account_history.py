"""`socialgen accounts history` and POST social-accounts/{id}/history against real
servers: mastodon-mock as its own process (tests/mastodon_support.py). The Bluesky
half, on the real PDS and AppView, is test_account_history_bluesky.py; LinkedIn's,
on the fake LinkedIn, test_account_history_linkedin.py. What the network holds is
written and read with the servers' own API, never through socialgen; every test ends
with the secrets check of tests/publish_e2e_support.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from socialgen.insights.history import load_published
from socialgen.kit.clock import parse_iso
from socialgen.store.engine import read_session
from socialgen.store.tables import MetricSnapshot, Post, Publication
from tests.conftest import Store
from tests.mastodon_support import MastodonMock, MockUser
from tests.mastodon_support import mastodon_mock as mastodon_mock  # the fixture
from tests.publish_e2e_support import Witness
from tests.publish_e2e_support import witness as witness  # the fixture

DONE = {"complete": True, "stopped": None}  # the pull ran to its end, within its bounds

BASE = "/api/v1/social-accounts"


@pytest.fixture(autouse=True)
def _private_urls(monkeypatch: pytest.MonkeyPatch) -> None:
    """The servers live on 127.0.0.1: let socialgen's SSRF guard through."""
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")
    monkeypatch.setenv("COLUMNS", "200")


@pytest.fixture
def mastodon(mastodon_mock: MastodonMock) -> Iterator[MastodonMock]:
    yield mastodon_mock
    mastodon_mock.clear_faults()


def toot(server: MastodonMock, user: MockUser, text: str, **fields: str) -> dict[str, Any]:
    """A status written by the user straight on the server (not through socialgen)."""
    answer = httpx.post(
        f"{server.base_url}/api/v1/statuses",
        data={"status": text, **fields},
        headers={"Authorization": f"Bearer {user.token}"},
    )
    answer.raise_for_status()
    status: dict[str, Any] = answer.json()
    return status


def boost(server: MastodonMock, user: MockUser, status_id: str) -> None:
    answer = httpx.post(
        f"{server.base_url}/api/v1/statuses/{status_id}/reblog",
        headers={"Authorization": f"Bearer {user.token}"},
    )
    answer.raise_for_status()


def add_mastodon(w: Witness, server: MastodonMock, user: MockUser, store: Store) -> str:
    w.secret(user.token)
    added = w.cli_json(
        "accounts", "add", "mastodon", "--instance", server.base_url, "--token-stdin",
        stdin=user.token + "\n",
    )  # fmt: skip
    w.stored_secrets(store)
    return str(added["id"])


def pulled(store: Store) -> dict[str, dict[str, Any]]:
    """Every publication's remote id -> its post and latest counts, read from the store."""
    found: dict[str, dict[str, Any]] = {}
    with read_session(store.engine) as session:
        rows = session.execute(
            select(Publication, Post).join(Post, Post.id == Publication.post_id)  # type: ignore[arg-type]
        ).all()
        for publication, post in rows:
            snapshots = session.scalars(
                select(MetricSnapshot)
                .where(MetricSnapshot.publication_id == publication.id)  # type: ignore[arg-type]
                .order_by(MetricSnapshot.taken_at)  # type: ignore[arg-type]
            ).all()
            last = snapshots[-1] if snapshots else None
            found[str(publication.remote_id)] = {
                "post": post.id,
                "content": post.content,
                "status": post.status,
                "url": post.post_url,
                "state": publication.state,
                "snapshots": len(snapshots),
                "counts": (last.likes, last.reposts, last.comments) if last else None,
            }
    return found


def count(store: Store, table: Any) -> int:
    return int(store.scalar(select(func.count()).select_from(table)))


# --- Mastodon ---------------------------------------------------------------------------


def test_mastodon_history_pulls_own_statuses_with_counts_once(
    store: Store, mastodon: MastodonMock, witness: Witness
) -> None:
    user, fan = mastodon.new_user("hist"), mastodon.new_user("fan")
    witness.secret(fan.token)
    account = add_mastodon(witness, mastodon, user, store)
    ours = store.post("Published by socialgen, pulled back as itself.")
    (row,) = witness.cli_json("posts", "publish", ours.id, "--to", account)["publications"]
    first = toot(mastodon, user, "Ship <b>weekly</b> & learn.\n\nSecond paragraph.")
    second = toot(mastodon, user, "Questions beat statements?")
    toot(mastodon, user, "My own reply, not a post", in_reply_to_id=second["id"])
    boost(mastodon, user, toot(mastodon, fan, "Someone else's post")["id"])
    mastodon.favourite(fan.token, first["id"])
    boost(mastodon, fan, first["id"])
    mastodon.reply(fan.token, first["id"], "Agreed")
    mastodon.favourite(fan.token, row["remoteId"])

    summary = witness.cli_json("accounts", "history", account)
    assert summary == {
        "accountId": account,
        "fetched": 3,
        "created": 2,
        "updated": 1,
        "skipped": 0,
        **DONE,
    }
    held = pulled(store)
    assert set(held) == {row["remoteId"], first["id"], second["id"]}
    # Typed markup is text: the HTML the instance made of it reads back as typed.
    assert held[first["id"]]["content"] == "Ship <b>weekly</b> & learn.\n\nSecond paragraph."
    assert held[first["id"]]["counts"] == (1, 1, 1)
    assert held[first["id"]]["url"] == mastodon.status(first["id"])["url"]
    assert held[first["id"]]["status"] == "published" and held[first["id"]]["state"] == "published"
    # The network's reply count holds the author's own reply too (docs/publishing.md).
    assert held[second["id"]]["counts"] == (0, 0, 1)
    assert held[row["remoteId"]]["post"] == ours.id  # socialgen's own: no second post
    assert held[row["remoteId"]]["counts"] == (1, 0, 0)
    assert count(store, Post) == 3

    again = witness.cli_json("accounts", "history", account)
    assert (again["fetched"], again["created"], again["updated"], again["skipped"]) == (3, 0, 0, 3)
    mastodon.favourite(user.token, second["id"])
    host = mastodon.base_url.removeprefix("http://")
    moved = witness.cli_json("accounts", "history", f"mastodon:{user.username}@{host}")
    assert (moved["created"], moved["updated"], moved["skipped"]) == (0, 1, 2)
    held = pulled(store)
    assert held[second["id"]]["counts"] == (1, 0, 1) and held[second["id"]]["snapshots"] == 2
    assert count(store, Post) == 3 and count(store, Publication) == 3

    with read_session(store.engine) as session:
        measured = load_published(session, store.workspace_id)
    by_content = {p.content: p for p in measured}
    assert by_content["Ship <b>weekly</b> & learn.\n\nSecond paragraph."].engagement == 3
    assert by_content["Questions beat statements?"].likes == 1
    assert ours.id in {p.post_id for p in measured}
    stored_at = by_content["Questions beat statements?"].published_at
    assert stored_at == parse_iso(mastodon.status(second["id"])["created_at"])


def test_since_leaves_older_statuses_out_and_bad_dates_are_refused(
    store: Store, mastodon: MastodonMock, witness: Witness
) -> None:
    user = mastodon.new_user("since")
    account = add_mastodon(witness, mastodon, user, store)
    toot(mastodon, user, "Older one")
    newer = toot(mastodon, user, "Newer one")
    # From the newer status's own moment on (the server keeps microseconds): it is in.
    since = newer["created_at"]
    summary = witness.cli_json("accounts", "history", account, "--since", since)
    assert (summary["fetched"], summary["created"]) == (1, 1)
    assert [v["content"] for v in pulled(store).values()] == ["Newer one"]
    everything = witness.cli_json("accounts", "history", account)
    assert (everything["fetched"], everything["created"], everything["skipped"]) == (2, 1, 1)

    for bad, words in (
        ("yesterday", "ISO 8601"),
        ("2150-01-01", "future"),
        ("2999-01-01", "outside the dates socialgen keeps"),
    ):
        failed = witness.cli("accounts", "history", account, "--since", bad, code=1)
        assert words in failed.stderr and "Traceback" not in failed.output
    failed = witness.cli("accounts", "history", "@nobody@nowhere", code=1)
    assert "not found" in failed.stderr
    assert count(store, Post) == 2


def test_boosts_and_direct_messages_are_left_out_even_when_the_server_sends_them(
    store: Store, mastodon: MastodonMock, witness: Witness
) -> None:
    user, fan = mastodon.new_user("strict"), mastodon.new_user("friend")
    witness.secret(fan.token)
    account = add_mastodon(witness, mastodon, user, store)
    toot(mastodon, user, f"@{fan.username} just between us", visibility="direct")
    theirs = toot(mastodon, fan, "The friend's post")
    wrapper = httpx.post(
        f"{mastodon.base_url}/api/v1/statuses/{theirs['id']}/reblog",
        headers={"Authorization": f"Bearer {user.token}"},
    ).json()
    mine = toot(mastodon, user, "Mine, in public")
    # A server that ignores exclude_reblogs answers the first page with the boost in it.
    mastodon.fault(
        "/api/v1/accounts/*/statuses", methods=("GET",), status=200, body=[wrapper, mine]
    )
    summary = witness.cli_json("accounts", "history", account)
    assert (summary["fetched"], summary["created"]) == (1, 1), summary
    assert [v["content"] for v in pulled(store).values()] == ["Mine, in public"]


def test_a_post_already_imported_from_a_file_is_not_pulled_twice(
    store: Store, mastodon: MastodonMock, witness: Witness, tmp_path: Path
) -> None:
    user = mastodon.new_user("both")
    account = add_mastodon(witness, mastodon, user, store)
    exported = toot(mastodon, user, "Exported to a spreadsheet first")
    toot(mastodon, user, "Only on the instance")
    csv = tmp_path / "history.csv"
    csv.write_text(
        "status,publishedAt,likes,reposts,comments,postUrl,content\n"
        f"published,{exported['created_at']},4,0,1,{exported['url']},Exported earlier\n",
        encoding="utf-8",
    )
    witness.cli_json("posts", "import", str(csv))

    summary = witness.cli_json("accounts", "history", account)
    assert (summary["fetched"], summary["created"], summary["skipped"]) == (2, 1, 1)
    assert count(store, Post) == 2
    with read_session(store.engine) as session:
        contents = sorted(p.content for p in load_published(session, store.workspace_id))
    assert contents == ["Exported earlier", "Only on the instance"]


def test_a_refused_token_stores_nothing(
    store: Store, mastodon: MastodonMock, witness: Witness
) -> None:
    user = mastodon.new_user("gone")
    account = add_mastodon(witness, mastodon, user, store)
    toot(mastodon, user, "Never pulled")
    mastodon.revoke(user.token)
    failed = witness.cli("accounts", "history", account, code=1)
    assert "refused" in failed.stderr and "accounts add mastodon" in failed.stderr
    assert count(store, Post) == 0 and count(store, MetricSnapshot) == 0


def test_http_history_for_any_member_and_nobody_else(
    client: TestClient, store: Store, mastodon: MastodonMock, witness: Witness
) -> None:
    user = mastodon.new_user("api")
    account = add_mastodon(witness, mastodon, user, store)
    toot(mastodon, user, "Pulled over HTTP")
    store.user("m@example.com", workspace_id=store.workspace_id, role="member")
    other = store.workspace("Elsewhere")
    store.user("o@example.com", workspace_id=other, role="owner")
    key = store.api_key()
    member = {"x-api-key": key, "Authorization": f"Bearer {store.token('m@example.com')}"}
    outsider = {"x-api-key": key, "Authorization": f"Bearer {store.token('o@example.com')}"}
    url = f"{BASE}/{store.workspace_id}/{account}/history"

    refused = witness.http(client.post(url, json={"since": None}, headers=outsider))
    assert refused.status_code == 403 and count(store, Post) == 0
    answer = witness.http(client.post(url, headers=member))  # no body: every post
    assert answer.status_code == 200, answer.text
    assert answer.json() == {
        "success": True,
        "data": {
            "accountId": account,
            "fetched": 1,
            "created": 1,
            "updated": 0,
            "skipped": 0,
            **DONE,
        },
    }
    again = witness.http(client.post(url, json={"since": "2020-01-01"}, headers=member))
    assert again.json()["data"]["skipped"] == 1 and count(store, Post) == 1
    for body, status in (({"since": "soon"}, 400), ({"since": 5}, 400)):
        bad = witness.http(client.post(url, json=body, headers=member))
        assert bad.status_code == status and bad.json()["success"] is False, bad.text
    missing = witness.http(client.post(f"{BASE}/{store.workspace_id}/nope/history", headers=member))
    assert missing.status_code == 404
