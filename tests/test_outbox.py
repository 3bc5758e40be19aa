"""The outbox on a real store (SQLite file, or PostgreSQL): exclusive claims, retries
with Retry-After, bounded attempts, unknown outcomes, the grace period, a worker that
died after the network accepted, and metrics read back. The network is the scripted
one (tests/fakes/scripted_network.py), which dedupes on the idempotency key as
Mastodon and Bluesky do, and records every call."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from socialgen.files.backends import file_store
from socialgen.files.local_copy import LocalCopies
from socialgen.kit.clock import utcnow
from socialgen.kit.errors import BadRequest
from socialgen.posts.listing import recent_posts
from socialgen.publishing.adapters import build_adapter
from socialgen.publishing.networks.base import Metrics, OutgoingPost, PublishError
from socialgen.publishing.outbox.claim import WINDOW_MARGIN_SECONDS, claim_due
from socialgen.publishing.outbox.runner import publish_now, publish_pass
from socialgen.publishing.outbox.service import idempotency_key, queue_publications
from socialgen.publishing.outbox.worker import run_claim, verdict_for
from socialgen.publishing.registry import Networks
from socialgen.publishing.settings import MAX_ATTEMPTS, PublishTerms, parse_duration
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import MetricSnapshot, Post, PostStatus, SocialAccount
from tests.conftest import Store
from tests.fakes.scripted_network import ScriptedNetwork
from tests.keys_support import keys_now
from tests.outbox_support import (
    add_account,
    due_publication,
    publication,
    terms_of,
)

pytest_plugins = ["tests.outbox_support"]  # the network fixtures


NETWORKS: dict[str, Any] = {}  # this test's (conftest's `networks`): _this_tests_networks


@pytest.fixture(autouse=True)
def _this_tests_networks(networks: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(f"{__name__}.NETWORKS", networks)


def _networks() -> Networks:
    return Networks(NETWORKS, keys=keys_now())


def _run_claim(store: Store, claim: Any) -> Any:
    """One claim published outside a pass, as the runner's threads do."""
    terms = _terms()
    return run_claim(
        store.engine, claim, length=terms.claim, networks=_networks(), files=terms.files
    )


def _terms() -> PublishTerms:
    """The publishing settings as a face reads them (the environment of the test),
    with the test's scripted networks."""
    return terms_of(NETWORKS)


def one_pass(store: Store, **kwargs: object) -> dict[str, int]:
    with ThreadPoolExecutor(4) as executor:
        return publish_pass(
            store.engine, "test-worker", executor, terms=_terms(), **kwargs
        ).counts()  # type: ignore[arg-type]


def test_claims_are_exclusive_across_threads(store: Store, network: ScriptedNetwork) -> None:
    account = add_account(store, "@racer.test")
    ids = {due_publication(store, account, content=f"post {n}")[1] for n in range(40)}
    claimed: dict[str, list[str]] = {}
    start = threading.Barrier(4)

    def claimer(name: str) -> None:
        start.wait()
        taken = claimed.setdefault(name, [])
        while found := claim_due(store.engine, name, limit=3, terms=_terms()).claims:
            taken += [claim.publication_id for claim in found]

    threads = [threading.Thread(target=claimer, args=(f"w{n}",)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    everything = [pid for taken in claimed.values() for pid in taken]
    assert sorted(everything) == sorted(ids)  # each claimed, and by one worker only
    assert sum(1 for taken in claimed.values() if taken) >= 2  # they really competed
    for pid in ids:
        row = publication(store, pid)
        assert row.state == "publishing" and row.attempts == 1 and row.claimed_until is not None


def test_a_pass_publishes_and_the_post_follows(store: Store, network: ScriptedNetwork) -> None:
    first = add_account(store, "@first.test", email="first@example.com")
    second = add_account(store, "@second.test")
    post = store.post("Shipping weekly, a thread", status=PostStatus.SCHEDULED, when=utcnow())
    with transaction(store.engine) as session:
        rows = queue_publications(
            session, store.workspace_id, post.id, [first, "@second.test"], utcnow()
        )
        ids = [p.id for p, _ in rows]
    assert one_pass(store)["published"] == 2
    assert sorted((p.handle, p.idempotency_key) for p in network.published) == [
        ("@first.test", idempotency_key(ids[0])),
        ("@second.test", idempotency_key(ids[1])),
    ]
    with read_session(store.engine) as session:
        stored = session.get(Post, post.id)
        assert stored is not None
        assert stored.status == "published" and stored.published_at is not None
        assert stored.post_url == f"https://scripted.example/post/{idempotency_key(ids[0])}"
        assert (stored.social_account_name, stored.social_account_email) == (
            "Name of @first.test",
            "first@example.com",
        )
        assert stored.timeline_at == stored.published_at
    assert second  # both accounts took part
    assert one_pass(store)["published"] == 0  # nothing is published twice


def test_retry_after_is_honoured(store: Store, network: ScriptedNetwork) -> None:
    _, pid = due_publication(store, add_account(store, "@slow.test"))
    network.fail_next("429 Too Many Requests", retryable=True, retry_after=120)
    before = utcnow()
    assert one_pass(store)["retrying"] == 1
    row = publication(store, pid)
    assert row.state == "queued" and row.attempts == 1 and "429" in row.message
    assert row.next_attempt_at is not None
    waited = (row.next_attempt_at - before).total_seconds()
    assert 119 <= waited <= 125
    assert one_pass(store, now=utcnow() + timedelta(seconds=100)) == one_pass(store)
    assert len(network.attempts) == 1  # not before the time the network named
    assert one_pass(store, now=utcnow() + timedelta(seconds=125))["published"] == 1
    assert publication(store, pid).state == "published" and len(network.published) == 1


def test_attempts_are_bounded_then_failed(store: Store, network: ScriptedNetwork) -> None:
    _, pid = due_publication(store, add_account(store, "@down.test"))
    network.fail_next("503 Service Unavailable", times=10, retryable=True, retry_after=0)
    counts = one_pass(store)
    row = publication(store, pid)
    assert counts["failed"] == 1 and row.state == "failed"
    assert row.attempts == MAX_ATTEMPTS == len(network.attempts)
    assert "503 Service Unavailable" in row.message and "gave up" in row.message
    assert not network.published


def test_reconnect_fails_with_the_way_back(store: Store, network: ScriptedNetwork) -> None:
    _, pid = due_publication(store, add_account(store, "@revoked.test"))
    network.fail_next("Token has been revoked", reconnect=True)
    assert one_pass(store)["failed"] == 1
    message = publication(store, pid).message
    assert "Token has been revoked" in message
    assert "reconnect the account: socialgen accounts add bluesky" in message


def test_the_reconnect_hint_is_said_once(store: Store, network: ScriptedNetwork) -> None:
    """An adapter whose message already tells the way back is not told it again."""
    _, pid = due_publication(store, add_account(store, "@expired.test"))
    said = "Session expired: reconnect the account: socialgen accounts add bluesky @expired.test"
    network.fail_next(said, reconnect=True)
    assert one_pass(store)["failed"] == 1
    message = publication(store, pid).message
    assert message.endswith(said) and message.lower().count("reconnect the account") == 1
    assert "accounts add bluesky ..." not in message


def test_unknown_is_never_retried_without_asking(store: Store, linkedin: ScriptedNetwork) -> None:
    account = add_account(store, "urn:li:person:abc", "linkedin")
    post_id, pid = due_publication(store, account)
    linkedin.fail_next("timed out after sending", outcome_unknown=True)
    assert one_pass(store)["unknown"] == 1
    row = publication(store, pid)
    assert row.state == "unknown" and "Check the account" in row.message
    assert one_pass(store, now=utcnow() + timedelta(days=1)) == one_pass(store)
    assert len(linkedin.attempts) == 1 and len(linkedin.published) == 1  # it did go out
    with transaction(store.engine) as session, pytest.raises(BadRequest, match="--retry"):
        queue_publications(session, store.workspace_id, post_id, [account], utcnow())
    # The user checked, and asks again: --retry sends it (LinkedIn posts it again).
    rows = publish_now(
        store.engine, store.workspace_id, post_id, [account], retry=True, terms=_terms()
    )
    assert [r.state for r in rows] == ["published"] and len(linkedin.published) == 2


def test_missed_after_the_grace(
    store: Store, network: ScriptedNetwork, monkeypatch: pytest.MonkeyPatch
) -> None:
    account = add_account(store, "@late.test")
    _, late = due_publication(store, account, due=utcnow() - timedelta(hours=7))
    _, fine = due_publication(store, account, due=utcnow() - timedelta(hours=5))
    counts = one_pass(store)
    assert (counts["missed"], counts["published"]) == (1, 1)
    row = publication(store, late)
    assert row.state == "missed" and "SOCIALGEN_PUBLISH_GRACE" in row.message
    assert publication(store, fine).state == "published" and len(network.published) == 1
    monkeypatch.setenv("SOCIALGEN_PUBLISH_GRACE", "30m")
    _, later = due_publication(store, account, due=utcnow() - timedelta(minutes=31))
    assert one_pass(store)["missed"] == 1 and publication(store, later).state == "missed"


def test_durations(tmp_path: Path) -> None:
    assert parse_duration("6h") == timedelta(hours=6)
    assert parse_duration("30m") == timedelta(minutes=30)
    assert parse_duration("90") == timedelta(seconds=90)
    with pytest.raises(ValueError):
        parse_duration("soon")
    # The fields without a default are the Runtime's.
    files = file_store(tmp_path, None, copies=LocalCopies.under(tmp_path, 500))
    terms = PublishTerms(networks=Networks(keys=keys_now()), files=files)
    assert terms.grace == timedelta(hours=6)  # the setting's default


def test_worker_killed_after_sending_is_resent_with_the_same_key(
    store: Store, network: ScriptedNetwork
) -> None:
    post_id, pid = due_publication(store, add_account(store, "@crash.test"))
    # A worker claims the row and the network accepts the post; the worker dies
    # before it records the answer (its claim stays behind, state `publishing`).
    (claim,) = claim_due(store.engine, "doomed-worker", terms=_terms()).claims
    network.fail_next("connection reset", outcome_unknown=True, after_sending=True)
    with read_session(store.engine) as session:
        account = session.exec(select(SocialAccount)).one()
    with pytest.raises(PublishError):  # what the dead worker would have seen
        build_adapter(_networks(), store.engine, account).publish(
            OutgoingPost(pid, idempotency_key(pid), "A post going out")
        )
    assert len(network.published) == 1 and publication(store, pid).state == "publishing"
    assert one_pass(store)["published"] == 0  # the claim still stands: hands off
    later = utcnow() + timedelta(minutes=6)  # past the claim (5 min by default)
    (again,) = claim_due(store.engine, "next-worker", now=later, terms=_terms()).claims
    assert again.attempt == 2
    outcome = _run_claim(store, again)
    assert outcome.state == "published"
    assert network.attempts == [idempotency_key(pid)] * 2  # the same key both times
    assert network.count(idempotency_key(pid)) == 1  # and one post on the network
    assert claim.worker_id == "doomed-worker"
    with read_session(store.engine) as session:
        stored = session.get(Post, post_id)
        assert stored is not None and stored.status == "published"


def test_killed_worker_on_a_network_without_idempotency_becomes_unknown(
    store: Store, linkedin: ScriptedNetwork
) -> None:
    _, pid = due_publication(store, add_account(store, "urn:li:person:x", "linkedin"))
    claim_due(store.engine, "doomed-worker", terms=_terms())
    found = claim_due(
        store.engine, "next-worker", now=utcnow() + timedelta(minutes=6), terms=_terms()
    )
    assert found.claims == [] and found.unknown == [pid]
    row = publication(store, pid)
    assert row.state == "unknown" and "linkedin cannot tell" in row.message
    assert "--retry" in row.message and not linkedin.attempts


def test_a_claim_older_than_the_networks_idempotency_window_becomes_unknown(
    store: Store, network: ScriptedNetwork
) -> None:
    """Mastodon forgets an Idempotency-Key after about an hour: a worker that died
    with the post in flight and is found later than that is not sent again."""
    network.IDEMPOTENCY_WINDOW_SECONDS = 3600.0  # type: ignore[attr-defined]
    _, recent = due_publication(store, add_account(store, "@soon.test"))
    claim_due(store.engine, "doomed-worker", terms=_terms())
    found = claim_due(
        store.engine, "next-worker", now=utcnow() + timedelta(minutes=30), terms=_terms()
    )
    assert [claim.publication_id for claim in found.claims] == [recent]  # within the window
    _, late = due_publication(store, add_account(store, "@late.test"))
    claim_due(store.engine, "doomed-worker", only_ids=[late], terms=_terms())
    found = claim_due(
        store.engine,
        "next-worker",
        now=utcnow() + timedelta(minutes=61),
        only_ids=[late],
        terms=_terms(),
    )
    assert found.claims == [] and found.unknown == [late]
    assert publication(store, late).state == "unknown"


def test_a_retry_on_a_network_that_forgets_keys_starts_inside_its_window(
    store: Store, network: ScriptedNetwork
) -> None:
    """Part 1 of a Mastodon thread got a 429 asking for two hours: the retry comes
    earlier, while the network still knows the key (or part 0 would be posted again)."""
    network.IDEMPOTENCY_WINDOW_SECONDS = 3600.0  # type: ignore[attr-defined]
    _, pid = due_publication(store, add_account(store, "@window.test"))
    network.fail_next("429 Too Many Requests", retryable=True, retry_after=7200)
    before = utcnow()
    assert one_pass(store)["retrying"] == 1
    row = publication(store, pid)
    assert row.next_attempt_at is not None and row.options["first_attempt_at"]
    waited = (row.next_attempt_at - before).total_seconds()
    assert 3600 - WINDOW_MARGIN_SECONDS - 5 <= waited <= 3600 - WINDOW_MARGIN_SECONDS + 1
    assert one_pass(store, now=row.next_attempt_at + timedelta(seconds=1))["published"] == 1
    assert (
        network.attempts == [idempotency_key(pid)] * 2 and network.count(idempotency_key(pid)) == 1
    )
    # A later retry is planned from the first attempt, not from the latest one.
    first = utcnow()
    error = PublishError("429", retryable=True, retry_after=7200)
    nets = _networks()
    capped = verdict_for(
        error, 2, "bluesky", first + timedelta(seconds=1000), networks=nets, first_attempt_at=first
    )
    assert capped.state == "queued"
    assert capped.next_attempt_at == first + timedelta(seconds=3600 - WINDOW_MARGIN_SECONDS)
    late = verdict_for(
        error, 3, "bluesky", first + timedelta(seconds=3400), networks=nets, first_attempt_at=first
    )
    assert late.state == "unknown" and "forgets" in late.message and "--retry" in late.message
    network.IDEMPOTENCY_WINDOW_SECONDS = None  # type: ignore[attr-defined]
    forever = verdict_for(
        error, 3, "bluesky", first + timedelta(seconds=3400), networks=nets, first_attempt_at=first
    )
    assert forever.state == "queued"  # Bluesky's record keys do not expire


def test_a_retry_found_after_the_window_becomes_unknown(
    store: Store, network: ScriptedNetwork
) -> None:
    """Nothing ran for two hours after a retry was planned: the key is forgotten, so
    the publication is not sent again blind."""
    network.IDEMPOTENCY_WINDOW_SECONDS = 3600.0  # type: ignore[attr-defined]
    _, pid = due_publication(store, add_account(store, "@asleep.test"))
    network.fail_next("503 Service Unavailable", retryable=True, retry_after=60)
    assert one_pass(store)["retrying"] == 1
    counts = one_pass(store, now=utcnow() + timedelta(hours=2))
    assert (counts["unknown"], counts["published"]) == (1, 0)
    row = publication(store, pid)
    assert row.state == "unknown" and "forgets" in row.message and "--retry" in row.message
    assert network.attempts == [idempotency_key(pid)]  # not sent a second time


@pytest.mark.parametrize("path", ["pass", "alone"])
def test_a_slow_publish_keeps_its_claim(
    store: Store, network: ScriptedNetwork, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    """The network takes longer than a claim lasts: the claim is kept alive (by the
    pass, or by run_claim alone), so a second worker looking all the while never
    takes the rows, and each goes out once. A pass also keeps the claims of rows
    waiting behind its busy thread."""
    # A claim of 1.5 s beats every 0.5 s: room for a busy machine to run the keeper's
    # thread late (0.6 s was lost once on two loaded cores), still shorter than a send.
    monkeypatch.setenv("SOCIALGEN_PUBLISH_CLAIM", "1.5")
    network.delay = 2.0
    account = add_account(store, "@slow-upload.test")
    count = 2 if path == "pass" else 1  # a pass also keeps the row waiting its turn
    ids = [due_publication(store, account, content=f"slow {n}")[1] for n in range(count)]
    with ThreadPoolExecutor(1) as executor:  # one thread: the second row waits its turn
        if path == "pass":
            running = threading.Thread(target=one_pass_on, args=(store, executor))
        else:
            claims = claim_due(store.engine, "slow-worker", terms=_terms()).claims
            running = threading.Thread(
                target=lambda: [_run_claim(store, claim) for claim in claims]
            )
        running.start()
        while running.is_alive() and not network.attempts:  # the pass has claimed
            time.sleep(0.01)
        stolen = []
        while running.is_alive():
            stolen += claim_due(store.engine, "other-worker", terms=_terms()).claims
            time.sleep(0.05)
    assert stolen == []
    assert sorted(network.attempts) == sorted(idempotency_key(pid) for pid in ids)
    for pid in ids:
        row = publication(store, pid)
        assert row.state == "published" and row.attempts == 1 and row.claimed_by is None
    # A dead worker keeps nothing: its claim ends and the row is taken over.
    network.delay = 0.0
    _, dead = due_publication(store, account)
    claim_due(store.engine, "dead-worker", only_ids=[dead], terms=_terms())
    time.sleep(1.6)
    assert [
        c.publication_id for c in claim_due(store.engine, "other-worker", terms=_terms()).claims
    ] == [dead]


def one_pass_on(store: Store, executor: ThreadPoolExecutor) -> None:
    publish_pass(store.engine, "slow-worker", executor, capacity=1, terms=_terms())


def test_metrics_are_a_series_and_the_post_shows_the_latest(
    store: Store, network: ScriptedNetwork
) -> None:
    from socialgen.publishing.outbox.metrics import post_stats, refresh_metrics

    post_id, pid = due_publication(store, add_account(store, "@liked.test"))
    one_pass(store)
    remote = publication(store, pid).remote_id
    assert remote is not None
    network.metrics_for[remote] = Metrics(likes=3, reposts=1, comments=2)
    assert refresh_metrics(store.engine, interval=timedelta(hours=1), networks=_networks()) == 1
    assert (
        refresh_metrics(store.engine, interval=timedelta(hours=1), networks=_networks()) == 0
    )  # not again before the interval
    network.metrics_for[remote] = Metrics(likes=5, reposts=1, comments=4)
    assert refresh_metrics(store.engine, post_id=post_id, force=True, networks=_networks()) == 1
    with read_session(store.engine) as session:
        snapshots = session.exec(__import__("sqlmodel").select(MetricSnapshot)).all()
        assert sorted(s.likes for s in snapshots) == [3, 5]
        listed = {p["id"]: p for p in recent_posts(session, store.workspace_id)["posts"]}
        assert listed[post_id]["metrics"] == {"likes": 5, "comments": 4}
        stats = post_stats(session, store.workspace_id, post_id).model_dump()["posts"][0]
        assert [point["likes"] for point in stats["publications"][0]["series"]] == [3, 5]
    # The JSON `posts stats --json` and the post_stats tool print: these names exactly.
    assert list(stats) == [
        "postId",
        "status",
        "postUrl",
        "likes",
        "comments",
        "reposts",
        "publications",
        "impressions",
        "publishedAt",
        "imported",
    ]
    assert list(stats["publications"][0]) == [
        "publicationId",
        "network",
        "account",
        "state",
        "url",
        "likes",
        "reposts",
        "comments",
        "takenAt",
        "note",
        "series",
    ]
    assert list(stats["publications"][0]["series"][0]) == [
        "takenAt",
        "likes",
        "reposts",
        "comments",
    ]
    assert (stats["status"], stats["likes"], stats["reposts"]) == ("published", 5, 1)
