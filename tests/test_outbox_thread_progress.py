"""Exactly once for a thread on a network without idempotency keys (X, Threads,
Telegram, Discord): the parts that went live are recorded as they go
(outbox/progress.py) and never sent again; an attempt that may be live is looked for
before anything is resent, where the network can look (FINDS_ITS_POSTS); a network
that cannot look leaves it `unknown` and resends only on the user's word (--retry).
The network is tests/fakes/thread_network.py, in this process."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from socialgen.kit.clock import utcnow
from socialgen.publishing.outbox.claim import claim_due
from socialgen.publishing.outbox.runner import publish_now
from socialgen.publishing.outbox.service import MAYBE_LIVE_SINCE, POSTED_PARTS
from socialgen.publishing.outbox.worker import run_claim
from socialgen.store.engine import transaction
from socialgen.store.tables import Publication
from tests.conftest import BACKEND, Store
from tests.fakes.thread_network import ThreadNetwork
from tests.outbox_support import add_account, due_publication, publication, terms_of

pytestmark = pytest.mark.skipif(
    BACKEND == "postgresql", reason="a network's tests run on one database (SQLite)"
)

THREAD = "First part.\n\nSecond part.\n\nThird part."


def _publish(store: Store, networks: dict[str, Any], post_id: str, account: str, **kw: Any) -> Any:
    return publish_now(
        store.engine, store.workspace_id, post_id, [account], terms=terms_of(networks), **kw
    )


def _setup(
    store: Store, networks: dict[str, Any], *, finds: bool
) -> tuple[ThreadNetwork, str, str]:
    net = networks["x"] = ThreadNetwork("x", finds_its_posts=finds)
    account = add_account(store, "@thread.test", "x")
    post = store.post(THREAD)
    return net, account, post.id


def _chained(net: ThreadNetwork) -> bool:
    """Each live part replies to the one before it, the first to nothing."""
    parents = [part.reply_to for part in net.live]
    return parents == [None, *[part.remote_id for part in net.live[:-1]]]


def test_a_part_refused_before_sending_resumes_after_the_parts_already_live(
    store: Store, networks: dict[str, Any]
) -> None:
    net, account, post_id = _setup(store, networks, finds=False)
    net.fail_at(1, after_sending=False)
    (view,) = _publish(store, networks, post_id, account, wait_seconds=5)
    assert view.state == "published"
    assert [part.text for part in net.live] == THREAD.split("\n\n")
    assert net.sent == THREAD.split("\n\n")  # the first part went out once
    assert _chained(net)
    row = publication(store, view.id)
    assert row.part_ids == [part.remote_id for part in net.live]
    assert POSTED_PARTS not in (row.options or {}) and MAYBE_LIVE_SINCE not in (row.options or {})


def test_an_answer_lost_mid_thread_is_unknown_and_the_parts_before_it_are_kept(
    store: Store, networks: dict[str, Any]
) -> None:
    net, account, post_id = _setup(store, networks, finds=False)
    net.fail_at(1, after_sending=True)
    (view,) = _publish(store, networks, post_id, account, wait_seconds=5)
    assert view.state == "unknown" and "--retry" in view.message
    row = publication(store, view.id)
    assert (row.options or {})[POSTED_PARTS] == [net.live[0].remote_id]
    assert len(net.live) == 2  # part 2 is live, though its answer never came
    # The user checked and says go: only the part whose answer was lost is at risk,
    # never the first one, which was recorded when it went live.
    (again,) = _publish(store, networks, post_id, account, retry=True)
    assert again.state == "published"
    assert net.sent.count("First part.") == 1 and net.sent.count("Third part.") == 1
    assert net.looked == 0  # this network cannot look: it resent on the user's word


def test_a_network_that_finds_its_posts_looks_before_resending(
    store: Store, networks: dict[str, Any]
) -> None:
    net, account, post_id = _setup(store, networks, finds=True)
    net.fail_at(1, after_sending=True)
    (view,) = _publish(store, networks, post_id, account)
    assert view.state == "unknown"
    assert (publication(store, view.id).options or {}).get(MAYBE_LIVE_SINCE)
    (again,) = _publish(store, networks, post_id, account, retry=True)
    assert again.state == "published"
    assert net.sent == THREAD.split("\n\n")  # every part once: part 2 was found
    assert net.looked >= 1 and _chained(net)
    assert publication(store, view.id).part_ids == [part.remote_id for part in net.live]


def _die_after_two_parts(store: Store, net: ThreadNetwork, pid: str) -> None:
    """What a worker leaves when it dies mid-thread: part 1 live and recorded
    (PartRecorder), part 2 live but not recorded, its claim left to lapse."""
    first = net._post("First part.", None)
    net._post("Second part.", first)
    with transaction(store.engine) as session:
        row = session.get(Publication, pid)
        assert row is not None and row.state == "publishing"
        row.options = {**(row.options or {}), POSTED_PARTS: [first]}
        session.add(row)


@pytest.mark.parametrize("finds", [True, False], ids=["finds-its-posts", "cannot-look"])
def test_a_worker_that_died_mid_thread_is_taken_over_only_where_the_network_can_look(
    store: Store, networks: dict[str, Any], finds: bool
) -> None:
    net = networks["x"] = ThreadNetwork("x", finds_its_posts=finds)
    _, pid = due_publication(store, add_account(store, "@dying.test", "x"), content=THREAD)
    terms = terms_of(networks)
    claim_due(store.engine, "doomed-worker", terms=terms)
    _die_after_two_parts(store, net, pid)
    later = utcnow() + timedelta(minutes=6)  # past the claim (5 min by default)
    found = claim_due(store.engine, "next-worker", now=later, terms=terms)
    if not finds:
        assert found.claims == [] and found.unknown == [pid]
        row = publication(store, pid)
        assert row.state == "unknown" and (row.options or {})[POSTED_PARTS] == [
            net.live[0].remote_id
        ]
        return
    (claim,) = found.claims
    outcome = run_claim(
        store.engine, claim, length=terms.claim, networks=terms.networks, files=terms.files
    )
    assert outcome.state == "published"
    assert net.sent == THREAD.split("\n\n") and _chained(net)  # part 2 found, not resent
