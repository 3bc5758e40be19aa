"""Follow-ups benchmark: how soon a first comment follows its post, and what the
follow-ups' look adds to the idle scheduler.

    .venv/bin/python bench/followups.py
    .venv/bin/python bench/followups.py --database-url postgresql://postgres@127.0.0.1:5432/test
    .venv/bin/python bench/followups.py --posts 50 --latency-ms 50 --idle-posts 10000

In this process, on a store of its own (SQLite in a temporary home, or a PostgreSQL
schema of its own, dropped at the end), with a network module here that answers after
`--latency-ms` (each call, a post or a reply, takes that long) and can reply:

1. live -> first comment, `posts publish`: one post with a first comment (no delay)
   published as `posts publish` does (outbox/runner.py publish_now): the comment's
   posted_at minus the publication's published_at, over `--runs` runs;
2. live -> first comment, the scheduler: `--posts` posts due now, each with a first
   comment, taken by the scheduler's own tick (outbox/scheduler.py `_tick`, the 1 s
   poll) in a thread: per post, comment posted_at minus published_at, p50/p95/max;
3. idle: `--idle-posts` scheduled posts (queued in 3 days), a fifth as many published
   posts whose first comments wait 7 days and whose plugs wait for likes: one idle
   tick's look before (the outbox's two statements, as the scheduler had them) and
   after (outbox/claim.py anything_due: one statement, publications' and follow-ups'
   EXISTS), interleaved, CPU microseconds a tick and the share of one core at the
   default 1 s poll.
"""

from __future__ import annotations

import argparse
import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta
from typing import Any

# isort: off
from harness import Samples, bench_home, machine_line  # puts the repository on sys.path

# isort: on
from sqlalchemy import Engine

from socialgen.app.runtime import Runtime
from socialgen.files.backends import files_of
from socialgen.kit.clock import utcnow
from socialgen.publishing.networks.base import (
    AccountCredentials,
    AccountIdentity,
    Metrics,
    OutgoingPost,
    PreparedPart,
    PreparedPost,
    Published,
)
from socialgen.publishing.registry import Networks
from socialgen.publishing.secrets import SecretKeys
from socialgen.publishing.settings import PublishTerms

SCHEMA = "socialgen_bench_followups"
NETWORK = "benchnet"


class BenchNetwork:
    """A network module: every call answers after `latency` seconds; it can reply."""

    IDEMPOTENT = True
    CAN_REPLY = True
    DEFAULT_SERVICE_URL = "http://127.0.0.1:9"

    def __init__(self, latency: float) -> None:
        self.latency = latency
        self.calls = 0
        self._lock = threading.Lock()

    def build(self, credentials: AccountCredentials, save_secret: Any, **_: Any) -> Any:
        return _Adapter(self)


class _Adapter:
    network = NETWORK

    def __init__(self, net: BenchNetwork) -> None:
        self._net = net

    def check(self) -> AccountIdentity:
        return AccountIdentity(handle="@bench", display_name="Bench")

    def prepare(self, post: OutgoingPost) -> PreparedPost:
        return PreparedPost(NETWORK, (PreparedPart(post.text),))

    def publish(self, post: OutgoingPost) -> Published:
        time.sleep(self._net.latency)
        with self._net._lock:
            self._net.calls += 1
        remote = f"bench:{post.idempotency_key}"
        return Published(remote, f"https://bench.example/{remote}", (remote,))

    def metrics(self, published: Published) -> Metrics:
        return Metrics()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--database-url", default=None, help="PostgreSQL (default: SQLite)")
    parser.add_argument("--posts", type=int, default=50, help="2. posts due at once")
    parser.add_argument("--runs", type=int, default=20, help="1. posts published one by one")
    parser.add_argument("--latency-ms", type=float, default=50.0, help="each network call")
    parser.add_argument("--idle-posts", type=int, default=10_000, help="3. scheduled posts")
    parser.add_argument("--ticks", type=int, default=2000, help="3. idle ticks per round")
    args = parser.parse_args()
    print(machine_line())
    with bench_home("socialgen-bench-followups-") as home:
        os.environ["SOCIALGEN_HOME"] = str(home)
        for name in [k for k in os.environ if k.startswith("SOCIALGEN_") and k != "SOCIALGEN_HOME"]:
            del os.environ[name]
        if args.database_url:
            separator = "&" if "?" in args.database_url else "?"
            os.environ["SOCIALGEN_DATABASE_URL"] = (
                f"{args.database_url}{separator}options=-csearch_path%3D{SCHEMA}"
            )
            _schema(args.database_url, create=True)
        try:
            _run(args)
        finally:
            if args.database_url:
                _schema(args.database_url, create=False)


def _run(args: argparse.Namespace) -> None:
    net = BenchNetwork(args.latency_ms / 1000)
    runtime = Runtime(networks={NETWORK: net})
    engine = runtime.open_store()
    backend = engine.dialect.name
    terms = PublishTerms(networks=Networks.of(runtime), files=files_of(runtime))
    account = _account(engine, SecretKeys.of(runtime))
    print(f"store: {backend}; network latency {args.latency_ms:.0f} ms a call")
    by_publish(engine, terms, account, args.runs)
    by_scheduler(engine, terms, account, args.posts, runtime)
    idle(engine, account, args.idle_posts, args.ticks)
    runtime.close()


def by_publish(engine: Engine, terms: PublishTerms, account: str, runs: int) -> None:
    from socialgen.publishing.outbox.runner import publish_now

    lags = []
    for i in range(runs):
        post_id = _commented_post(engine, account, f"now {i}", due=None)
        publish_now(engine, _workspace(engine), post_id, [account], terms=terms)
        lags += _lags(engine, [post_id])
    samples = Samples(lags)
    print(
        f"1. live -> first comment, posts publish ({runs} posts): p50 {samples.median * 1000:.0f} "
        f"ms, p95 {samples.p95 * 1000:.0f} ms, max {samples.max * 1000:.0f} ms"
    )


def by_scheduler(
    engine: Engine, terms: PublishTerms, account: str, count: int, runtime: Runtime
) -> None:
    from socialgen.publishing.outbox.claim import worker_name
    from socialgen.publishing.outbox.runner import THREADS
    from socialgen.publishing.outbox.scheduler import _tick
    from socialgen.publishing.settings import poll_interval

    due = utcnow()
    posts = [_commented_post(engine, account, f"due {i}", due=due) for i in range(count)]
    stop = threading.Event()
    pause = poll_interval(runtime.settings)
    ticks = 0
    began = time.monotonic()
    with ThreadPoolExecutor(THREADS) as executor:
        while time.monotonic() - began < 120:
            _tick(engine, worker_name("bench"), executor, stop, terms)
            ticks += 1
            if len(_lags(engine, posts)) == count:
                break
            time.sleep(pause)
    samples = Samples(_lags(engine, posts))
    print(
        f"2. live -> first comment, serve's scheduler ({count} posts due at once, "
        f"{pause:g} s poll, {ticks} tick(s)): p50 {samples.median * 1000:.0f} ms, "
        f"p95 {samples.p95 * 1000:.0f} ms, max {samples.max * 1000:.0f} ms"
    )


def idle(engine: Engine, account: str, count: int, ticks: int) -> None:
    from sqlmodel import select

    from socialgen.publishing.outbox import claim as outbox
    from socialgen.publishing.outbox import repository_claim as statements
    from socialgen.store.engine import read_session
    from socialgen.store.tables import Publication

    _bulk(engine, account, count)

    def before() -> None:
        """The look the scheduler had before follow-ups: two statements, one a range."""
        now = utcnow()
        with read_session(engine) as session:
            for condition in (statements._due(now), statements._expired(now)):
                if session.exec(select(Publication.id).where(condition).limit(1)).first():
                    return

    def after() -> None:
        outbox.anything_due(engine)  # one statement: the publications' and follow-ups' look

    costs: dict[str, list[float]] = {"before": [], "after": []}
    for _ in range(5):  # interleaved rounds: machine noise hits both alike
        for name, look in (("before", before), ("after", after)):
            cpu = time.process_time()
            for _ in range(ticks):
                look()
            costs[name].append((time.process_time() - cpu) / ticks)
    first, then = Samples(costs["before"]).median, Samples(costs["after"]).median
    print(
        f"3. idle tick, {count:,} scheduled posts, {count // 5:,} published with a waiting "
        f"first comment and plug: before {first * 1e6:.0f} us CPU a tick "
        f"({first * 100:.3f}% of one core at a 1 s poll), after {then * 1e6:.0f} us "
        f"({then * 100:.3f}%), {(then - first) * 1e6:+.0f} us a tick"
    )


# --- the store -----------------------------------------------------------------------------


def _workspace(engine: Engine) -> str:
    from socialgen.store.engine import read_session
    from socialgen.workspaces.service import default_workspace

    with read_session(engine) as session:
        found = default_workspace(session)
        assert found is not None
        return found.id


def _account(engine: Engine, keys: SecretKeys) -> str:
    from socialgen.publishing.secrets import encrypt_secret
    from socialgen.store.engine import transaction
    from socialgen.store.tables import SocialAccount

    workspace_id = _workspace(engine)
    with transaction(engine) as session:
        account = SocialAccount(
            workspace_id=workspace_id,
            network=NETWORK,
            handle="@bench",
            service_url=BenchNetwork.DEFAULT_SERVICE_URL,
            secret_ciphertext=encrypt_secret({"password": "bench-pass"}, session, keys),
        )
        session.add(account)
        session.flush()
        return account.id


def _commented_post(engine: Engine, account: str, text: str, due: datetime | None) -> str:
    """A post with a first comment; with `due`, queued to the account at that time."""
    from socialgen.posts.service import create_draft
    from socialgen.publishing.followups.service import set_first_comment
    from socialgen.store.engine import transaction
    from socialgen.store.tables import Publication

    workspace_id = _workspace(engine)
    with transaction(engine) as session:
        post = create_draft(session, workspace_id, text)
        set_first_comment(session, workspace_id, post.id, f"comment of {text}")
        if due is not None:
            session.add(
                Publication(
                    workspace_id=workspace_id, post_id=post.id, account_id=account, due_at=due
                )
            )
        return post.id


def _lags(engine: Engine, post_ids: list[str]) -> list[float]:
    """Seconds from each live publication of these posts to its posted first comment."""
    from sqlmodel import col, select

    from socialgen.store.engine import read_session
    from socialgen.store.tables import FollowupPublication, Publication

    with read_session(engine) as session:
        rows = session.exec(
            select(Publication.published_at, FollowupPublication.posted_at)
            .join(FollowupPublication, col(FollowupPublication.publication_id) == Publication.id)
            .where(
                col(Publication.post_id).in_(post_ids),
                col(FollowupPublication.state) == "published",
            )
        ).all()
    return [(posted - live).total_seconds() for live, posted in rows if live and posted]


def _bulk(engine: Engine, account: str, count: int) -> None:
    """`count` scheduled posts in 3 days; a fifth as many published, each with a first
    comment queued in 7 days and a plug waiting for likes."""
    from socialgen.store.engine import transaction
    from socialgen.store.tables import (
        FollowupPublication,
        Post,
        PostFollowup,
        Publication,
    )

    workspace_id = _workspace(engine)
    later, much_later = utcnow() + timedelta(days=3), utcnow() + timedelta(days=7)
    with transaction(engine) as session:
        for i in range(count):
            post = Post(workspace_id=workspace_id, content=f"later {i}", status="scheduled")
            post.scheduled_at = later
            post.place_on_timeline()
            session.add(post)
            session.add(
                Publication(
                    workspace_id=workspace_id, post_id=post.id, account_id=account, due_at=later
                )
            )
            if i % 5 == 0:
                live = Post(workspace_id=workspace_id, content=f"live {i}", status="published")
                live.published_at = utcnow()
                live.place_on_timeline()
                session.add(live)
                session.flush()  # the post before the rows that name it
                publication = Publication(
                    workspace_id=workspace_id,
                    post_id=live.id,
                    account_id=account,
                    state="published",
                    remote_id=f"bench:live-{i}",
                    published_at=utcnow(),
                )
                comment = PostFollowup(
                    workspace_id=workspace_id, post_id=live.id, kind="first_comment", text="c"
                )
                plug = PostFollowup(
                    workspace_id=workspace_id,
                    post_id=live.id,
                    kind="takeoff_reply",
                    text="p",
                    like_threshold=1000,
                )
                session.add_all([publication, comment, plug])
                session.flush()
                session.add(
                    FollowupPublication(
                        workspace_id=workspace_id,
                        followup_id=comment.id,
                        publication_id=publication.id,
                        due_at=much_later,
                    )
                )
            if i % 1000 == 999:
                session.flush()


def _schema(database_url: str, *, create: bool) -> None:
    from sqlalchemy import create_engine, text

    admin = create_engine(database_url.replace("postgresql://", "postgresql+psycopg://", 1))
    with admin.begin() as connection:
        connection.execute(text(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE"))
        if create:
            connection.execute(text(f"CREATE SCHEMA {SCHEMA}"))
    admin.dispose()


if __name__ == "__main__":
    main()
