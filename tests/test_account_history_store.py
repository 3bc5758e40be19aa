"""How a pulled history is stored (publishing/account_history.py), on the scripted
network (tests/fakes/scripted_network.py) so the store's side can be pushed where the
real servers cannot go: posts without text, a failure half-way through the read, a
thread socialgen wrote, two pulls of one account at once. SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from socialgen.kit.clock import utcnow
from socialgen.kit.errors import SocialgenError
from socialgen.publishing.accounts.history import pull_history
from socialgen.publishing.accounts.service import add_account
from socialgen.publishing.networks.base import Metrics, NetworkSettings, PastPost, PublishError
from socialgen.publishing.registry import Networks
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import MetricSnapshot, Post, Publication, SocialAccount
from tests.conftest import Store
from tests.fakes.scripted_network import ScriptedNetwork
from tests.keys_support import keys_now


@pytest.fixture
def network() -> ScriptedNetwork:
    return ScriptedNetwork("bluesky")


def through(net: ScriptedNetwork) -> Networks:
    """The networks a Runtime handed `net` as Bluesky has, its 127.0.0.1 allowed (the
    allow_private_urls setting, as the Runtime's settings hand it to the networks)."""
    return Networks({"bluesky": net}, NetworkSettings(allow_private_urls=True), keys=keys_now())


def account(store: Store, net: ScriptedNetwork) -> SocialAccount:
    connected = net.connect("http://127.0.0.1:9", "alice.test", "pw")
    with transaction(store.engine) as session:
        return add_account(session, store.workspace_id, "bluesky", connected, networks=through(net))


def past(number: int, text: str | None = None, likes: int = 0) -> PastPost:
    return PastPost(
        remote_id=f"at://alice/post/{number}",
        url=f"https://scripted.example/{number}",
        text=f"Post number {number}" if text is None else text,
        published_at=utcnow() - timedelta(days=number),
        metrics=Metrics(likes=likes, reposts=1, comments=2),
    )


def rows(store: Store, table: object) -> int:
    return int(store.scalar(select(func.count()).select_from(table)))  # type: ignore[arg-type]


def test_a_post_without_text_too_long_or_shown_twice_is_skipped_and_counted(
    store: Store, network: ScriptedNetwork
) -> None:
    network.past_posts = [past(1), past(2, text="  "), past(3, text="x" * 100_000), past(1)]
    summary = pull_history(through(network), store.engine, account(store, network), None)
    assert (summary.fetched, summary.created, summary.skipped) == (4, 1, 3)
    assert rows(store, Post) == rows(store, Publication) == rows(store, MetricSnapshot) == 1
    network.past_posts = [past(1, likes=5), past(1, likes=5)]  # shown twice, counts moved
    again = pull_history(through(network), store.engine, account(store, network), None)
    assert (again.created, again.updated, again.skipped) == (0, 1, 1)
    assert rows(store, Post) == 1 and rows(store, MetricSnapshot) == 2


def test_a_read_that_fails_half_way_stores_nothing(store: Store, network: ScriptedNetwork) -> None:
    found = account(store, network)

    posts = [past(1), past(2)]

    def failing(since: object, pull: object) -> Iterator[PastPost]:
        yield posts[0]
        raise PublishError("Bluesky reading your posts: 500 Internal Server Error", retryable=True)

    adapter = network.build
    network.build = lambda credentials, save, **settings: _with_history(  # type: ignore[method-assign]
        adapter(credentials, save, **settings), failing
    )
    with pytest.raises(SocialgenError) as caught:
        pull_history(through(network), store.engine, found, None)
    assert caught.value.status_code == 502 and "unavailable" in caught.value.message
    assert rows(store, Post) == 0 and rows(store, MetricSnapshot) == 0


def _with_history(adapter: object, history: object) -> object:
    adapter.history = history  # type: ignore[attr-defined]
    return adapter


def test_a_thread_socialgen_wrote_does_not_count_its_own_part_as_a_comment(
    store: Store, network: ScriptedNetwork
) -> None:
    found = account(store, network)
    post = store.post("A thread of ours")
    with transaction(store.engine) as session:
        session.add(
            Publication(
                workspace_id=store.workspace_id,
                post_id=post.id,
                account_id=found.id,
                state="published",
                remote_id="at://alice/post/1",
                part_ids=["at://alice/post/1", "at://alice/post/1b"],
                published_at=utcnow(),
            )
        )
    network.past_posts = [past(1, likes=4)]
    summary = pull_history(through(network), store.engine, found, None)
    assert (summary.created, summary.updated) == (0, 1)
    with read_session(store.engine) as session:
        (snapshot,) = session.scalars(select(MetricSnapshot)).all()
        kept = session.get(Post, post.id)
    assert (snapshot.likes, snapshot.comments, snapshot.post_id) == (4, 1, post.id)
    assert kept is not None and (kept.likes, kept.comments) == (4, 1)


def test_two_pulls_of_one_account_at_once_create_each_post_once(
    store: Store, network: ScriptedNetwork
) -> None:
    found = account(store, network)
    network.past_posts = [past(number) for number in range(1, 41)]
    start = threading.Barrier(4)
    errors: list[BaseException] = []

    def pull() -> None:
        try:
            start.wait()
            pull_history(through(network), store.engine, found, None)
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=pull) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not errors
    assert rows(store, Post) == rows(store, Publication) == 40
    assert rows(store, MetricSnapshot) == 40  # the later pulls saw the counts unchanged
