"""A reply when a post takes off: once a publication's likes, as the metrics poll reads
them, reach the plug's threshold, the plug is queued under it once and posted once,
however many readings follow or run at once. The store side on SQLite and
PostgreSQL (a scripted network); then on mastodon-mock, liked by two other accounts,
through `posts plug`, `posts stats --refresh` and `publish-due` (SQLite only)."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from sqlmodel import select
from typer.testing import CliRunner

from socialgen.app.runtime import Runtime
from socialgen.cli.main import app
from socialgen.publishing.followups.service import set_first_comment, set_plug
from socialgen.publishing.networks.base import Metrics
from socialgen.publishing.outbox.claim import worker_name
from socialgen.publishing.outbox.metrics import refresh_metrics
from socialgen.publishing.outbox.runner import THREADS, publish_pass
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import FollowupPublication, PostFollowup
from tests.conftest import BACKEND, Store
from tests.fakes.scripted_network import ScriptedNetwork
from tests.mastodon_support import MastodonMock
from tests.mastodon_support import mastodon_mock as mastodon_mock  # the fixture
from tests.outbox_support import add_account, due_publication, publication, terms_of

PLUG = "If this helped: the newsletter, every Tuesday: https://example.com/news"


class Replying(ScriptedNetwork):
    CAN_REPLY = True


@pytest.fixture
def net(store: Store, networks: dict[str, Any]) -> Replying:
    made = networks["bluesky"] = Replying("bluesky")
    return made


def live_post(store: Store, networks: dict[str, Any]) -> tuple[str, str]:
    account = add_account(store, "@ada.example")
    post_id, publication_id = due_publication(store, account)
    with ThreadPoolExecutor(1) as executor:
        publish_pass(
            store.engine, "now", executor, terms=terms_of(networks), only_ids=[publication_id]
        )
    return post_id, publication_id


def read_metrics(store: Store, networks: dict[str, Any]) -> int:
    return refresh_metrics(store.engine, force=True, networks=terms_of(networks).networks)


def a_pass(store: Store, networks: dict[str, Any]) -> dict[str, int]:
    with ThreadPoolExecutor(THREADS) as executor:
        report = publish_pass(store.engine, worker_name("due"), executor, terms=terms_of(networks))
    return report.followups.counts()


def plug_rows(store: Store) -> list[FollowupPublication]:
    with read_session(store.engine) as session:
        return list(
            session.exec(
                select(FollowupPublication)
                .join(PostFollowup)
                .where(PostFollowup.kind == "takeoff_reply")
            )
        )


def plugs_sent(net: ScriptedNetwork) -> int:
    return sum(1 for record in net.published if record.text == PLUG)


def test_the_plug_waits_for_its_likes_then_goes_out_once(
    store: Store, networks: dict[str, Any], net: Replying
) -> None:
    post_id, publication_id = live_post(store, networks)
    remote = publication(store, publication_id).remote_id or ""
    with transaction(store.engine) as session:
        set_plug(session, store.workspace_id, post_id, PLUG, 5)
    net.metrics_for[remote] = Metrics(likes=4)
    assert read_metrics(store, networks) == 1
    assert plug_rows(store) == [] and a_pass(store, networks)["published"] == 0

    net.metrics_for[remote] = Metrics(likes=5)  # it took off
    read_metrics(store, networks)
    (row,) = plug_rows(store)
    assert row.state == "queued" and row.publication_id == publication_id
    assert a_pass(store, networks)["published"] == 1
    assert plugs_sent(net) == 1

    net.metrics_for[remote] = Metrics(likes=40)  # and goes on: nothing more
    read_metrics(store, networks)
    read_metrics(store, networks)
    assert len(plug_rows(store)) == 1 and a_pass(store, networks)["published"] == 0
    assert plugs_sent(net) == 1
    assert publication(store, publication_id).state == "published"


def test_readings_at_once_queue_the_plug_once(
    store: Store, networks: dict[str, Any], net: Replying
) -> None:
    post_id, publication_id = live_post(store, networks)
    net.metrics_for[publication(store, publication_id).remote_id or ""] = Metrics(likes=12)
    with transaction(store.engine) as session:
        set_plug(session, store.workspace_id, post_id, PLUG, 10)
    barrier = threading.Barrier(4)

    def reader() -> None:
        barrier.wait()
        read_metrics(store, networks)

    threads = [threading.Thread(target=reader) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(plug_rows(store)) == 1
    assert a_pass(store, networks)["published"] == 1 and plugs_sent(net) == 1


def test_a_first_comment_and_a_plug_are_two_replies_under_the_post(
    store: Store, networks: dict[str, Any], net: Replying
) -> None:
    account = add_account(store, "@both.example")
    post_id, publication_id = due_publication(store, account)
    with transaction(store.engine) as session:
        set_first_comment(session, store.workspace_id, post_id, "Sources: https://example.com")
        set_plug(session, store.workspace_id, post_id, PLUG, 1)
    assert a_pass(store, networks)["published"] == 1  # the post, then its first comment
    net.metrics_for[publication(store, publication_id).remote_id or ""] = Metrics(likes=1)
    read_metrics(store, networks)
    assert a_pass(store, networks)["published"] == 1  # the plug
    texts = [record.text for record in net.published]
    assert texts == ["A post going out", "Sources: https://example.com", PLUG]
    keys = [record.idempotency_key for record in net.published]
    assert len(set(keys)) == 3  # each its own key


# --- mastodon-mock ------------------------------------------------------------------------

runner = CliRunner()


def cli(*args: str, stdin: str | None = None, code: int | None = 0) -> Any:
    result = runner.invoke(app, [*args, "--json"], input=stdin, obj=Runtime())
    assert code is None or result.exit_code == code, result.output
    return json.loads(result.stdout)


@pytest.mark.skipif(BACKEND == "postgresql", reason="a network's tests run on SQLite only")
def test_a_toot_liked_twice_gets_its_plug_once(
    store: Store, mastodon_mock: MastodonMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")
    user = mastodon_mock.new_user("takeoff")
    added = cli("accounts", "add", "mastodon", "--instance", mastodon_mock.base_url,
                "--token-stdin", stdin=user.token + "\n")  # fmt: skip
    post = store.post("Why small teams ship weekly.")
    (row,) = cli("posts", "publish", post.id, "--to", added["id"])["publications"]
    data = cli("posts", "plug", post.id, PLUG, "--after-likes", "2")
    assert data["plug"]["afterLikes"] == 2
    (waiting,) = data["plug"]["publications"]
    assert waiting["state"] == "waiting" and "2 likes" in waiting["message"]

    fans = [mastodon_mock.new_user("fan") for _ in range(2)]
    mastodon_mock.favourite(fans[0].token, row["remoteId"])
    cli("posts", "stats", post.id, "--refresh")
    assert cli("publish-due")["followups"]["published"] == 0  # one like: not yet
    mastodon_mock.favourite(fans[1].token, row["remoteId"])
    cli("posts", "stats", post.id, "--refresh")
    assert cli("publish-due")["followups"]["published"] == 1
    cli("posts", "stats", post.id, "--refresh")
    assert cli("publish-due")["followups"]["published"] == 0

    (shown,) = cli("posts", "publications", post.id)["publications"]
    (plug,) = shown["followups"]
    assert plug["kind"] == "plug" and plug["state"] == "published"
    replies = [s for s in mastodon_mock.statuses(user) if s["in_reply_to_id"]]
    assert len(replies) == 1 and replies[0]["in_reply_to_id"] == row["remoteId"]
    assert replies[0]["id"] == plug["remoteId"] and "every Tuesday" in replies[0]["content"]
