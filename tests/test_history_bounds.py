"""A history pull ends, whatever the server does (networks/pull.py): against a Mastodon
look-alike on 127.0.0.1 (tests/hostile_mastodon.py) that pages forever, sends the
same page again, answers 40 MB with or without saying so, or trickles its answer, the
pull stops at its bound, keeps what it read, and says why it stopped. Over HTTP it
stops when its client leaves, and one pull per account runs at a time."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from socialgen.app.runtime import Runtime
from socialgen.http.server import create_app
from socialgen.publishing.accounts.history import pull_history
from socialgen.publishing.accounts.pull_watch import PULL_RUNNING, PullsRunning
from socialgen.publishing.networks.answers import count_from, web_address
from socialgen.publishing.networks.base import PublishError
from socialgen.publishing.networks.pull import ANSWER_BYTES, Pull, PullLimits
from socialgen.publishing.registry import Networks
from socialgen.store.engine import read_session
from socialgen.store.tables import Post, Publication, SocialAccount
from tests.conftest import Store, serving
from tests.hostile_mastodon import PAGE, HostileMastodon, hostile_mastodon
from tests.publish_e2e_support import Witness
from tests.publish_e2e_support import witness as witness  # the fixture

TOKEN = "hostile-token-0123456789"


@pytest.fixture(autouse=True)
def _loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")


def add_account(w: Witness, server: HostileMastodon) -> str:
    w.secret(TOKEN)
    added = w.cli_json(
        "accounts", "add", "mastodon", "--instance", server.base_url, "--token-stdin",
        stdin=TOKEN + "\n",
    )  # fmt: skip
    return str(added["id"])


def posts(store: Store) -> int:
    return int(store.scalar(select(func.count()).select_from(Post)))


def test_a_server_that_pages_forever_stops_at_the_page_cap(
    store: Store, witness: Witness, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALGEN_HISTORY_PAGES", "5")
    with hostile_mastodon("endless") as server:
        account = add_account(witness, server)
        summary = witness.cli_json("accounts", "history", account)
    assert server.pages == 5
    assert summary["complete"] is False and "5 pages" in summary["stopped"]
    assert summary["fetched"] == summary["created"] == 5 * PAGE == posts(store)  # all kept


def test_a_cursor_that_does_not_move_stops_the_pull(store: Store, witness: Witness) -> None:
    with hostile_mastodon("same") as server:
        account = add_account(witness, server)
        shown = witness.cli("accounts", "history", account)
    assert server.pages == 2  # the page, then the same page once: no third ask
    assert "Stopped early:" in shown.stdout and "did not move" in shown.stdout
    assert posts(store) == PAGE


@pytest.mark.parametrize("declared", [True, False])
def test_an_answer_past_the_cap_is_refused_as_it_streams(
    store: Store, witness: Witness, declared: bool
) -> None:
    """40 MB: refused by its Content-Length before a byte is read, or, sent without
    one, cut off once 16 MB have come in (not read whole, then measured)."""
    with hostile_mastodon("huge", declare_length=declared) as server:
        account = add_account(witness, server)
        summary = witness.cli_json("accounts", "history", account)
    assert summary["complete"] is False and "larger than 16 MB" in summary["stopped"]
    assert summary["fetched"] == 0 and posts(store) == 0
    if not declared:  # what left the server: the cap, plus what sat in the buffers
        assert ANSWER_BYTES <= server.sent < ANSWER_BYTES + 8 * 1024 * 1024


def test_a_trickling_answer_is_cut_at_the_deadline(
    store: Store, witness: Witness, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALGEN_HISTORY_DEADLINE", "2")
    with hostile_mastodon("slow", trickle_seconds=0.01) as server:
        account = add_account(witness, server)
        started = time.monotonic()
        summary = witness.cli_json("accounts", "history", account)
        took = time.monotonic() - started
    assert summary["complete"] is False and "2 s" in summary["stopped"]
    assert took < 30  # the page alone would trickle for minutes
    assert 0 < server.sent < 20_000  # cut off mid-answer


def test_a_fine_server_runs_to_its_end(store: Store, witness: Witness) -> None:
    with hostile_mastodon("fine") as server:
        account = add_account(witness, server)
        summary = witness.cli_json("accounts", "history", account)
    assert summary["complete"] is True and summary["stopped"] is None
    assert server.pages == 3 and summary["created"] == 2 * PAGE


def test_a_pull_stops_when_its_caller_leaves(store: Store, witness: Witness) -> None:
    """`left` set from another thread (the HTTP client gone): the pull stops at the
    next chunk, and what it read is stored."""
    with hostile_mastodon("endless") as server:
        account_id = add_account(witness, server)
        with read_session(store.engine) as session:
            account = session.get(SocialAccount, account_id)
        assert account is not None
        pull = Pull(PullLimits(seconds=60, pages=10_000))
        threading.Timer(1.0, pull.left.set).start()
        summary = pull_history(Networks.of(Runtime()), store.engine, account, None, pull)
    assert summary.complete is False and "client left" in (summary.stopped or "")
    assert 0 < summary.created == posts(store) < 10_000 * PAGE


def test_over_http_one_pull_per_account_and_it_ends_when_the_client_leaves(
    store: Store, witness: Witness, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALGEN_HISTORY_DEADLINE", "60")
    headers = {"x-api-key": store.api_key(), "Authorization": f"Bearer {store.token()}"}
    with hostile_mastodon("slow", trickle_seconds=0.05) as server:
        account = add_account(witness, server)
        app = create_app(Runtime())
        url = f"/api/v1/social-accounts/{store.workspace_id}/{account}/history"
        with serving(app) as live:

            async def leave_early() -> tuple[int, dict[str, Any]]:
                async with httpx.AsyncClient(base_url=live.base_url, headers=headers) as client:
                    first = asyncio.create_task(client.post(url, json={}))
                    for _ in range(300):  # until the first pull is reading its page
                        if server.pages:
                            break
                        await asyncio.sleep(0.05)
                    second = await client.post(url, json={})
                    first.cancel()  # the client leaves: its connection closes
                    return second.status_code, second.json()

            status, body = asyncio.run(leave_early())
            assert server.pages == 1
            assert status == 409 and body == {"success": False, "message": PULL_RUNNING}
            # The first pull stops once it sees its client gone (its page alone would
            # trickle for minutes): the account is free again and the next pull runs.
            server.mode = "fine"
            with httpx.Client(base_url=live.base_url, headers=headers, timeout=30) as client:
                for _ in range(150):
                    again = client.post(url, json={})
                    if again.status_code != 409:
                        break
                    time.sleep(0.1)
    assert again.status_code == 200, again.text
    assert again.json()["data"]["complete"] is True


def test_the_running_set_frees_the_account_when_the_pull_fails() -> None:
    running = PullsRunning()
    with pytest.raises(RuntimeError), running.only_one("a"):
        raise RuntimeError("the network fell over")
    with running.only_one("a"):  # free again
        pass


# ("many" and true never reach us from Mastodon: Mastodon.py reads them as None and 1.)
@pytest.mark.parametrize("likes", [-5, 10**30])
def test_a_count_that_is_not_a_count_is_refused_and_nothing_is_stored(
    store: Store, witness: Witness, likes: object
) -> None:
    with hostile_mastodon("fine", fields={"favourites_count": likes}) as server:
        account = add_account(witness, server)
        failed = witness.cli("accounts", "history", account, code=1)
    assert "not understood" in failed.stderr and "the likes of status" in failed.stderr
    assert "Traceback" not in failed.output and posts(store) == 0


def test_a_post_address_that_is_not_http_is_dropped(store: Store, witness: Witness) -> None:
    fields = {"url": "javascript:alert(1)", "uri": "data:text/html,<b>hi</b>"}
    with hostile_mastodon("fine", fields=fields) as server:
        account = add_account(witness, server)
        summary = witness.cli_json("accounts", "history", account)
    assert summary["created"] == 2 * PAGE
    with read_session(store.engine) as session:
        rows = session.execute(select(Publication.remote_url)).all()  # type: ignore[call-overload]
    addresses = {row[0] for row in rows}
    assert len(rows) == 2 * PAGE and addresses == {None}


@pytest.mark.parametrize("value", [-1, 2**31, True, "many", "1" * 5000, 1.5, "١٢"])
def test_count_from_takes_whole_numbers_in_range_only(value: object) -> None:
    with pytest.raises(PublishError, match="not understood"):
        count_from("Bluesky", value, "the likes of post x")


def test_count_from_reads_absent_as_zero_and_digits_as_a_count() -> None:
    assert count_from("Bluesky", None, "likes") == 0
    assert count_from("Bluesky", "42", "likes") == 42
    assert count_from("Bluesky", 2**31 - 1, "likes") == 2**31 - 1


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("https://example.org/@a/1", "https://example.org/@a/1"),
        ("javascript:alert(1)", ""),
        ("data:text/html,x", ""),
        ("https:///nohost", ""),
        ("http://" + "a" * 3000, ""),
        (None, ""),
    ],
)
def test_web_address_keeps_http_urls_only(given: object, kept: str) -> None:
    assert web_address(given) == kept


def test_a_metrics_read_that_trickles_is_cut(
    store: Store, witness: Witness, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The scheduler's metrics pass reads one status per publication: a server that
    trickles it is cut at METRICS_READ_SECONDS, and the pass goes on."""
    from socialgen.publishing.outbox import metrics

    monkeypatch.setattr(metrics, "METRICS_READ_SECONDS", 1.0)
    with hostile_mastodon("slow", trickle_seconds=0.01) as server:
        account_id = add_account(witness, server)
        with read_session(store.engine) as session:
            account = session.get(SocialAccount, account_id)
        assert account is not None
        publication = Publication(
            post_id="p", account_id=account_id, state="published", remote_id="12345"
        )
        started = time.monotonic()
        counts, note = metrics._read(Networks.of(Runtime()), store.engine, {}, publication, account)
        took = time.monotonic() - started
    assert counts is None and "1 s" in note
    assert took < 10 and 0 < server.sent < 2_000


@pytest.mark.parametrize("declared", [True, False])
def test_httpx_clients_refuse_an_answer_past_the_cap(declared: bool) -> None:
    """The httpx side of the guard (Bluesky's atproto client, LinkedIn's): the same
    16 MB cap, by the length or as the answer streams in."""
    from socialgen.publishing.networks.guarded_http import guarded_httpx
    from socialgen.publishing.networks.pull import AnswerTooLarge

    with (
        hostile_mastodon("huge", declare_length=declared) as server,
        guarded_httpx("Bluesky", allow_private=True) as client,
    ):
        with pytest.raises(AnswerTooLarge, match="larger than 16 MB"):
            client.get(f"{server.base_url}/api/v1/accounts/1/statuses")
        assert server.sent < ANSWER_BYTES + 8 * 1024 * 1024


def test_httpx_clients_cut_a_trickle_at_the_pulls_deadline() -> None:
    from socialgen.publishing.networks.guarded_http import guarded_httpx
    from socialgen.publishing.networks.pull import PullStopped

    pull = Pull(PullLimits(seconds=1.0, pages=10))
    with (
        hostile_mastodon("slow", trickle_seconds=0.01) as server,
        guarded_httpx("Bluesky", allow_private=True) as client,
        pull.active(),
    ):
        started = time.monotonic()
        with pytest.raises(PullStopped, match="1 s"):
            client.get(f"{server.base_url}/api/v1/accounts/1/statuses")
        assert time.monotonic() - started < 10
