"""A follow-up is posted exactly once, with faults, and its failure never touches the
post: the claim's store side on SQLite and PostgreSQL (a scripted network that can
reply), then the real faults on the local servers (SQLite only, as every network's
tests): a lost answer on LinkedIn's fake is `unknown` and never sent again, on
mastodon-mock it is retried under the same Idempotency-Key and makes one reply, and
on X's fake the reply is found on the timeline instead of sent twice."""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import update
from sqlmodel import select
from typer.testing import CliRunner

from socialgen.app.runtime import Runtime
from socialgen.cli.main import app
from socialgen.kit.clock import utcnow
from socialgen.kit.errors import SocialgenError
from socialgen.publishing.followups.claim import claim_followups
from socialgen.publishing.followups.service import (
    remove_followup,
    retry_followup,
    set_first_comment,
)
from socialgen.publishing.followups.worker import followup_key
from socialgen.publishing.outbox.claim import worker_name
from socialgen.publishing.outbox.runner import THREADS, publish_pass
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import FollowupPublication, Post, PostStatus
from tests.conftest import BACKEND, Store
from tests.fakes.linkedin_server import FakeLinkedIn, Fault
from tests.fakes.scripted_network import ScriptedNetwork
from tests.fakes.x_server import FakeX
from tests.fakes.x_server import Fault as XFault
from tests.hang_proxy import HangProxy
from tests.mastodon_support import MastodonMock
from tests.mastodon_support import mastodon_mock as mastodon_mock  # the fixture
from tests.outbox_support import add_account, due_publication, publication, terms_of

COMMENT = "The long version: https://example.com/notes"
HANDLES = itertools.count(1)
network_only = pytest.mark.skipif(
    BACKEND == "postgresql", reason="a network's tests run on SQLite only"
)


class Replying(ScriptedNetwork):
    """A scripted network whose module says it can reply under a post."""

    CAN_REPLY = True


@pytest.fixture
def replying(store: Store, networks: dict[str, Any]) -> Replying:
    net = networks["bluesky"] = Replying("bluesky")  # idempotent, as Bluesky's rkeys
    return net


@pytest.fixture
def no_key(store: Store, networks: dict[str, Any]) -> Replying:
    net = networks["linkedin"] = Replying("linkedin", idempotent=False)
    return net


def a_pass(store: Store, networks: dict[str, Any], name: str = "due") -> dict[str, int]:
    """One pass as the scheduler and publish-due run it; the follow-ups' counts."""
    with ThreadPoolExecutor(THREADS) as executor:
        report = publish_pass(store.engine, worker_name(name), executor, terms=terms_of(networks))
    return report.followups.counts()


def commented_post(store: Store, network: str = "bluesky", **kw: Any) -> tuple[str, str]:
    """A due post to one account of `network`, with a first comment: (post, publication)."""
    account = add_account(store, f"@{network}{next(HANDLES)}.example", network)
    post_id, publication_id = due_publication(store, account)
    with transaction(store.engine) as session:
        set_first_comment(session, store.workspace_id, post_id, COMMENT, **kw)
    return post_id, publication_id


def live(store: Store, networks: dict[str, Any], *publication_ids: str) -> None:
    """Publish these publications only (`posts publish` does so): their posts go live
    and their first comments are queued, not sent."""
    with ThreadPoolExecutor(THREADS) as executor:
        publish_pass(
            store.engine, "now", executor, terms=terms_of(networks), only_ids=publication_ids
        )
    for publication_id in publication_ids:
        assert publication(store, publication_id).state == "published"


def rows(store: Store) -> list[FollowupPublication]:
    with read_session(store.engine) as session:
        return list(session.exec(select(FollowupPublication)))


def sent_comments(net: ScriptedNetwork) -> list[str]:
    return [record.idempotency_key for record in net.published if record.text == COMMENT]


# --- the store side: SQLite and PostgreSQL -------------------------------------------------


def test_a_first_comment_goes_out_once_after_the_post_and_never_again(
    store: Store, networks: dict[str, Any], replying: Replying
) -> None:
    _, publication_id = commented_post(store)
    assert rows(store) == []  # not live yet: nothing queued
    assert a_pass(store, networks)["published"] == 1
    (row,) = rows(store)
    assert row.state == "published" and row.publication_id == publication_id
    assert row.remote_id == f"scripted:{followup_key(row.id)}" and row.attempts == 1
    assert a_pass(store, networks)["published"] == 0
    assert sent_comments(replying) == [followup_key(row.id)]


def test_a_delay_keeps_it_queued_until_due(
    store: Store, networks: dict[str, Any], replying: Replying
) -> None:
    commented_post(store, delay_seconds=600)
    assert a_pass(store, networks)["published"] == 0
    (row,) = rows(store)
    assert row.state == "queued"
    assert timedelta(seconds=590) < row.due_at - utcnow() <= timedelta(seconds=600)
    with transaction(store.engine) as session:
        session.connection().execute(
            update(FollowupPublication).values(due_at=utcnow() - timedelta(seconds=1))
        )
    assert a_pass(store, networks)["published"] == 1
    assert len(sent_comments(replying)) == 1


def test_a_refusal_fails_the_comment_and_leaves_the_post_published(
    store: Store, networks: dict[str, Any], replying: Replying
) -> None:
    post_id, publication_id = commented_post(store)
    live(store, networks, publication_id)
    replying.fail_next("Record is invalid: text too long")
    assert a_pass(store, networks)["failed"] == 1
    (row,) = rows(store)
    assert row.state == "failed" and "text too long" in row.message
    assert publication(store, publication_id).state == "published"
    with read_session(store.engine) as session:
        post = session.get(Post, post_id)
        assert post is not None and post.status == PostStatus.PUBLISHED
    assert sent_comments(replying) == []


def test_a_lost_answer_is_retried_under_the_same_key_and_posts_once(
    store: Store, networks: dict[str, Any], replying: Replying
) -> None:
    _, publication_id = commented_post(store)
    live(store, networks, publication_id)
    replying.fail_next("connection reset", retryable=True, retry_after=0, after_sending=True)
    assert a_pass(store, networks)["published"] == 1  # retried at once, under its key
    (row,) = rows(store)
    assert row.state == "published" and row.attempts == 2
    assert replying.count(followup_key(row.id)) == 1  # the network took it once


def test_a_lost_answer_without_a_key_is_unknown_and_only_retry_sends_it_again(
    store: Store, networks: dict[str, Any], no_key: Replying
) -> None:
    post_id, publication_id = commented_post(store, "linkedin")
    live(store, networks, publication_id)
    no_key.fail_next("LinkedIn did not answer", outcome_unknown=True)  # sent, then silence
    assert a_pass(store, networks)["unknown"] == 1
    (row,) = rows(store)
    assert row.state == "unknown" and row.maybe_live_since is not None
    assert f"socialgen posts first-comment {post_id} --retry" in row.message
    assert a_pass(store, networks)["published"] == 0  # never sent again by itself
    assert len(sent_comments(no_key)) == 1
    with transaction(store.engine) as session:
        assert retry_followup(session, store.workspace_id, post_id, "first_comment") == 1
    assert a_pass(store, networks)["published"] == 1  # the creator checked, and asked
    assert len(sent_comments(no_key)) == 2
    assert publication(store, publication_id).state == "published"


def test_a_dead_worker_s_claim_is_resent_with_its_key_or_becomes_unknown(
    store: Store, networks: dict[str, Any], replying: Replying, no_key: Replying
) -> None:
    ids = [commented_post(store, network)[1] for network in ("bluesky", "linkedin")]
    live(store, networks, *ids)
    # A worker claims both comments, sends them (the networks take them) and dies
    # before it records an answer; its lease ends.
    found = claim_followups(store.engine, "dead-worker", terms=terms_of(networks))
    assert len(found.claims) == 2
    for claim in found.claims:
        net = replying if claim.account.network == "bluesky" else no_key
        net.build(_credentials(claim), lambda _: None).publish(_outgoing(claim))
    with transaction(store.engine) as session:
        session.connection().execute(
            update(FollowupPublication).values(claimed_until=utcnow() - timedelta(seconds=1))
        )
    counts = a_pass(store, networks)
    assert counts["published"] == 1 and counts["unknown"] == 1
    states = {row.id: row for row in rows(store)}
    by_network = {c.account.network: states[c.row.id].state for c in found.claims}
    assert by_network == {"bluesky": "published", "linkedin": "unknown"}
    # Resent under its key on the network that dedupes: still one reply on each.
    assert len(sent_comments(replying)) == 1 and len(sent_comments(no_key)) == 1
    assert a_pass(store, networks) == dict.fromkeys(counts, 0)


def test_two_workers_at_once_post_each_comment_once(
    store: Store, networks: dict[str, Any], replying: Replying
) -> None:
    replying.delay = 0.05
    ids = [commented_post(store)[1] for _ in range(6)]
    live(store, networks, *ids)
    barrier = threading.Barrier(3)

    def worker(name: str) -> None:
        barrier.wait()
        a_pass(store, networks, name)

    threads = [threading.Thread(target=worker, args=(f"w{n}",)) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    a_pass(store, networks)
    assert {row.state for row in rows(store)} == {"published"}
    keys = sent_comments(replying)
    assert len(keys) == 6 == len(set(keys))


def test_removing_a_comment_being_posted_is_refused(
    store: Store, networks: dict[str, Any], replying: Replying
) -> None:
    post_id, publication_id = commented_post(store)
    live(store, networks, publication_id)
    with transaction(store.engine) as session:  # the comment claimed by a worker now
        session.connection().execute(
            update(FollowupPublication).values(
                state="publishing", claimed_by="w", claimed_until=utcnow() + timedelta(minutes=5)
            )
        )
    with pytest.raises(SocialgenError) as refused, transaction(store.engine) as session:
        remove_followup(session, store.workspace_id, post_id, "first_comment")
    assert refused.value.status_code == 409 and "being posted" in refused.value.message
    assert len(rows(store)) == 1


def _credentials(claim: Any) -> Any:
    from socialgen.publishing.accounts.service import credentials_for
    from tests.keys_support import keys_now

    return credentials_for(claim.account, keys_now())


def _outgoing(claim: Any) -> Any:
    from socialgen.publishing.networks.base import OutgoingPost

    return OutgoingPost(
        claim.row.id, followup_key(claim.row.id), claim.text, reply_to=claim.publication.remote_id
    )


# --- the real servers' faults (SQLite only) -----------------------------------------------

runner = CliRunner()


def cli(*args: str, stdin: str | None = None, code: int | None = 0) -> Any:
    result = runner.invoke(app, [*args, "--json"], input=stdin, obj=Runtime())
    assert code is None or result.exit_code == code, result.output
    return json.loads(result.stdout)


@pytest.fixture
def loopback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")
    monkeypatch.setenv("SOCIALGEN_LINKEDIN_TIMEOUT", "1")
    monkeypatch.setenv("SOCIALGEN_NETWORK_TIMEOUT", "1")


@pytest.fixture
def linkedin(monkeypatch: pytest.MonkeyPatch, loopback: None) -> Iterator[FakeLinkedIn]:
    with FakeLinkedIn() as fake:
        monkeypatch.setattr(
            "socialgen.publishing.networks.linkedin.adapter.DEFAULT_SERVICE_URL", fake.base_url
        )
        monkeypatch.setenv("SOCIALGEN_LINKEDIN_OAUTH_URL", fake.base_url)
        monkeypatch.delenv("SOCIALGEN_LINKEDIN_VERSION", raising=False)
        yield fake


@network_only
def test_linkedin_comment_whose_answer_is_lost_is_unknown_and_not_sent_again(
    store: Store, linkedin: FakeLinkedIn
) -> None:
    added = cli("accounts", "add", "linkedin", "--token-stdin", stdin=linkedin.add_token() + "\n")
    post = store.post("A post on LinkedIn with a first comment.")
    cli("posts", "first-comment", post.id, COMMENT)
    linkedin.add_fault(
        Fault("drop", path="/rest/socialActions/", method="POST", after_processing=True)
    )
    (row,) = cli("posts", "publish", post.id, "--to", added["id"])["publications"]
    assert row["state"] == "published"  # the comment's trouble is not the post's
    (comment,) = row["followups"]
    assert comment["state"] == "unknown", comment
    assert f"socialgen posts first-comment {post.id} --retry" in comment["message"]
    assert len(linkedin.rest.comments) == 1  # it went through: LinkedIn has it
    assert cli("publish-due")["followups"] == {
        "published": 0, "retrying": 0, "failed": 0, "unknown": 0, "skipped": 0
    }  # fmt: skip
    assert len(linkedin.rest.comments) == 1


@network_only
def test_mastodon_reply_whose_answer_is_lost_is_retried_with_its_key_once(
    store: Store, mastodon_mock: MastodonMock, loopback: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("socialgen.publishing.networks.mastodon.adapter.REQUEST_TIMEOUT", 1.0)
    user = mastodon_mock.new_user("lost")
    with HangProxy(mastodon_mock.base_url, hang_on=None) as proxy:
        added = cli("accounts", "add", "mastodon", "--instance", proxy.base_url,
                    "--token-stdin", stdin=user.token + "\n")  # fmt: skip
        post = store.post("A toot with a first comment.")
        cli("posts", "publish", post.id, "--to", added["id"])
        proxy.hang_on = ("POST", "/api/v1/statuses")  # the reply is made, then silence
        cli("posts", "first-comment", post.id, COMMENT)
        assert cli("publish-due")["followups"]["retrying"] == 1
        assert proxy.hung == 1 and mastodon_mock.status_count(user) == 2  # it is live
        (row,) = cli("posts", "publications", post.id)["publications"]
        assert "the status may be live" in row["followups"][0]["message"]
        proxy.hang_on = None  # the instance answers again; the retry is due now
        with transaction(store.engine) as session:
            session.connection().execute(
                update(FollowupPublication).values(next_attempt_at=utcnow())
            )
        assert cli("publish-due")["followups"]["published"] == 1
    (row,) = cli("posts", "publications", post.id)["publications"]
    assert row["followups"][0]["state"] == "published"
    replies = [s for s in mastodon_mock.statuses(user) if s["in_reply_to_id"]]
    assert len(replies) == 1 and replies[0]["id"] == row["followups"][0]["remoteId"]


@network_only
def test_x_reply_whose_answer_is_lost_is_found_on_the_timeline(
    store: Store, loopback: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from socialgen.publishing.networks.x import adapter as x

    monkeypatch.setattr(x, "LOOK_AGAIN_AFTER", 0.01)
    with FakeX() as fake:
        added = cli("accounts", "add", "x", "--token-stdin", "--service", fake.base_url,
                    stdin=fake.add_token() + "\n")  # fmt: skip
        post = store.post("Shipping weekly, on X.")
        cli("posts", "publish", post.id, "--to", added["id"])
        fake.add_fault(XFault("drop", path="/2/tweets", method="POST", after_processing=True))
        cli("posts", "first-comment", post.id, COMMENT)
        cli("publish-due", code=None)
        (row,) = cli("posts", "publications", post.id)["publications"]
        (comment,) = row["followups"]
        assert comment["state"] == "published", comment
        root, reply = fake.posts
        assert reply.id == comment["remoteId"] and reply.reply_to == root.id
        assert len(fake.requests_to("/2/tweets", "POST")) == 2  # the post, the reply once


def test_the_scheduler_in_serve_posts_a_due_comment_by_itself(
    store: Store, networks: dict[str, Any], replying: Replying, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing but `serve` runs: its scheduler's one look sees the due comment."""
    import time

    from socialgen.http.server import create_app
    from tests.conftest import serving

    monkeypatch.setenv("SOCIALGEN_SCHEDULER_POLL", "0.05")
    _, publication_id = commented_post(store)
    live(store, networks, publication_id)
    assert [row.state for row in rows(store)] == ["queued"]
    with serving(create_app(Runtime(networks=networks))):
        deadline = time.monotonic() + 60  # a bound for a stuck scheduler, not a timing
        while rows(store)[0].state != "published" and time.monotonic() < deadline:
            time.sleep(0.05)
    assert rows(store)[0].state == "published"
    assert len(sent_comments(replying)) == 1
