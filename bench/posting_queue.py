#!/usr/bin/env python3
"""Posting queue benchmark: adding a post to deep queues, and the scheduler's idle cost.

1. Builds a store per database: 20 accounts, each with its own queue (slots daily
   08:30, 12:30 and 17:30, Europe/Berlin), holding 10,000 queued posts between them
   (500 each, about 24 weeks ahead). Each is what `posts queue` writes: a scheduled
   post, its publication queued in the outbox for the slot, its slot entry.
2. Times adding one more post to a random account's queue, as the CLI, the API and MCP
   run it (queue_post and its answer, queued_data, in one transaction), --adds times:
   p50/p95/max; each must land in the first free slot after its queue's last post.
   Exits 1 when the p95 reaches 50 ms. Also: listing one queue (50 posts), and taking
   the first post out of a 500-deep queue with --close-gap (every later post moves up).
3. The scheduler's idle cost: `socialgen serve` (its scheduler looks for due
   publications every second) idling for --idle-seconds on a store of 10,000 posts
   scheduled by hand (bench/publish.py's case 3), then on the store of 1 with its
   10,000 queued posts: the CPU share of one core of each. The scheduler reads the
   publication rows only (ix_publication_state_due), which are the same in both.

Run from the repository root (PostgreSQL: a database the bench may make a schema in):

    .venv/bin/python bench/posting_queue.py
    .venv/bin/python bench/posting_queue.py --postgres postgresql://postgres@127.0.0.1:5432/test
    .venv/bin/python bench/posting_queue.py --skip-sqlite --postgres URL --idle-seconds 10
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import Engine

from harness import Report, Samples, bench_env, bench_home, cpu_seconds, machine_line, ms, serve
from socialgen.app.runtime import Runtime
from socialgen.config import normalise_database_url
from socialgen.kit.clock import parse_iso, utcnow
from socialgen.posts.service import create_draft
from socialgen.publishing.queue.listing import queue_listing
from socialgen.publishing.queue.moves import remove
from socialgen.publishing.queue.placement import free_slots, placing
from socialgen.publishing.queue.service import queue_post, set_slots
from socialgen.publishing.queue.views import queued_data
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import Post, PostStatus, Publication, SocialAccount
from socialgen.store.tables.queue import QueueEntry
from socialgen.workspaces.service import default_workspace

TARGET_SECONDS = 0.05  # issue 41: adding one to the queue (p95)
SLOTS = "daily 08:30 12:30 17:30"
ZONE = "Europe/Berlin"
PG_SCHEMA = "socialgen_bench_queue"


def build(engine: Engine, accounts: int, posts: int, *, queued: bool) -> tuple[str, list[str]]:
    """The workspace's id and its accounts' ids; `posts` spread over the accounts, in
    each account's queue (`queued`) or scheduled by hand at the same moments."""
    with transaction(engine) as session:
        workspace = default_workspace(session)
        assert workspace is not None, "open_store() creates the default workspace"
        workspace_id = workspace.id
        ids = []
        for number in range(accounts):
            account = SocialAccount(
                workspace_id=workspace_id,
                network="bluesky",
                handle=f"@bench{number}.bsky.social",
                service_url="http://127.0.0.1:9",
                secret_ciphertext="not used: nothing is due",
            )
            session.add(account)
            session.flush()
            ids.append(account.id)
    now = utcnow()
    per_account = posts // accounts
    for number, account_id in enumerate(ids):
        with transaction(engine) as session:
            queue = set_slots(session, workspace_id, SLOTS, zone=ZONE, account_ref=account_id)
            moments = free_slots(session, placing(session, queue), now, per_account)
            for index, moment in enumerate(moments):
                post = Post(
                    workspace_id=workspace_id,
                    content=f"Queued post {index} of account {number}: shipping weekly",
                    status=PostStatus.SCHEDULED,
                    scheduled_at=moment,
                )
                post.place_on_timeline()
                session.add(post)
                session.add(
                    Publication(
                        workspace_id=workspace_id,
                        post_id=post.id,
                        account_id=account_id,
                        due_at=moment,
                        options={"position": 0, "number_parts": False},
                    )
                )
                if queued:
                    session.add(QueueEntry(post_id=post.id, queue_id=queue.id, due_at=moment))
            if not queued:  # posts scheduled by hand: no queue at all
                session.delete(queue)
    with engine.connect() as connection:
        connection.exec_driver_sql("ANALYZE")
        connection.commit()
    return workspace_id, ids


def adds(engine: Engine, workspace_id: str, accounts: list[str], count: int) -> Samples:
    rng = random.Random(41)
    seconds = []
    for number in range(count):
        account_id = rng.choice(accounts)
        with transaction(engine) as session:
            draft = create_draft(session, workspace_id, f"One more post, number {number}")
            expected = _after_last(session, workspace_id, account_id)
        started = time.perf_counter()
        with transaction(engine) as session:  # as `posts queue`, the API and MCP do it
            placed = parse_iso(
                queued_data(
                    session, queue_post(session, workspace_id, draft.id, [account_id])
                ).scheduledAt
            )
        seconds.append(time.perf_counter() - started)
        assert placed == expected, (placed, expected)
    return Samples(seconds)


def _after_last(session: Any, workspace_id: str, account_id: str) -> datetime:
    """The slot after the account's last queued post (the queue has no gap)."""
    from socialgen.publishing.queue import repository

    queue = repository.queue_of(session, workspace_id, account_id)
    assert queue is not None
    last = repository.standing_entries(session, queue.id)[-1][0].due_at
    return free_slots(session, placing(session, queue), last - timedelta(seconds=10))[0]


def listing_and_closing(
    engine: Engine, workspace_id: str, account_id: str
) -> tuple[float, float, int]:
    started = time.perf_counter()
    with read_session(engine) as session:
        (queue,) = queue_listing(session, workspace_id, account_ref=account_id, limit=50)
    listed = time.perf_counter() - started
    first = queue.posts[0].postId
    started = time.perf_counter()
    with transaction(engine) as session:
        moved = len(remove(session, workspace_id, first, close_gap=True).moved)
    return listed, time.perf_counter() - started, moved


def idle_share(env: dict[str, str], home: Path, seconds: float, name: str) -> float:
    with serve(env, home / f"serve-idle-{name}.log") as server:
        time.sleep(3)  # start-up and the first metrics look are not idling
        before, began = cpu_seconds(server.pid), time.monotonic()
        time.sleep(seconds)
        used, wall = cpu_seconds(server.pid) - before, time.monotonic() - began
    return 100 * used / wall


def run_on(
    label: str, database_url: str | None, home: Path, args: argparse.Namespace
) -> dict[str, Any]:
    figures: dict[str, Any] = {}
    shares = {}
    for case, queued in (("by hand", False), ("queued", True)):
        store_home = home / f"{label}-{case.replace(' ', '-')}"
        store_home.mkdir()
        os.environ["SOCIALGEN_HOME"] = str(store_home)
        runtime = Runtime()
        engine = runtime.open_store()
        started = time.perf_counter()
        workspace_id, accounts = build(engine, args.accounts, args.posts, queued=queued)
        built = time.perf_counter() - started
        print(
            f"\n{label}: {args.posts:,} posts {case} over {args.accounts} accounts, "
            f"built in {built:.1f} s"
        )
        if queued:
            samples = adds(engine, workspace_id, accounts, args.adds)
            verdict = "met" if samples.p95 < TARGET_SECONDS else "MISSED"
            print(
                f"  add one to a queue of {args.posts // args.accounts} ({args.adds} adds): "
                f"p50 {ms(samples.median)}  p95 {ms(samples.p95)}  max {ms(max(samples.values))}"
                f"  (target p95 < {TARGET_SECONDS * 1000:.0f} ms: {verdict})"
            )
            listed, closed, moved = listing_and_closing(engine, workspace_id, accounts[0])
            print(f"  list one queue (50 posts): {ms(listed)}")
            print(
                f"  remove the first post with --close-gap: {moved} posts moved up "
                f"in {closed:.2f} s"
            )
            figures.update(
                add_p50=samples.median, add_p95=samples.p95, add_max=max(samples.values),
                list_seconds=listed, close_gap_seconds=closed, close_gap_moved=moved,
            )  # fmt: skip
        runtime.close()
        env = bench_env(store_home, database_url)
        shares[case] = idle_share(env, store_home, args.idle_seconds, case.replace(" ", "-"))
        print(f"  idle scheduler, {args.posts:,} posts {case}: {shares[case]:.2f}% of one core")
        if database_url is not None:  # the next case starts from an empty schema
            _reset_schema(database_url)
    figures["idle_percent_by_hand"] = shares["by hand"]
    figures["idle_percent_queued"] = shares["queued"]
    return figures


@contextmanager
def postgres_schema(url: str) -> Iterator[str]:
    """A fresh schema of the bench in `url`'s database, dropped at the end."""
    admin = sa.create_engine(normalise_database_url(url), isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f"DROP SCHEMA IF EXISTS {PG_SCHEMA} CASCADE")
        connection.exec_driver_sql(f"CREATE SCHEMA {PG_SCHEMA}")
    separator = "&" if "?" in url else "?"
    try:
        yield f"{url}{separator}options=-csearch_path%3D{PG_SCHEMA}"
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f"DROP SCHEMA IF EXISTS {PG_SCHEMA} CASCADE")
        admin.dispose()


def _reset_schema(url: str) -> None:
    admin = sa.create_engine(
        normalise_database_url(url.split("?")[0]), isolation_level="AUTOCOMMIT"
    )
    with admin.connect() as connection:
        connection.exec_driver_sql(f"DROP SCHEMA IF EXISTS {PG_SCHEMA} CASCADE")
        connection.exec_driver_sql(f"CREATE SCHEMA {PG_SCHEMA}")
    admin.dispose()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--posts", type=int, default=10_000, help="queued posts in all")
    parser.add_argument("--accounts", type=int, default=20, help="accounts, a queue each")
    parser.add_argument("--adds", type=int, default=200, help="posts added, one at a time")
    parser.add_argument("--idle-seconds", type=float, default=20.0, help="idle window")
    parser.add_argument("--postgres", metavar="URL", help="also on this PostgreSQL database")
    parser.add_argument("--skip-sqlite", action="store_true", help="PostgreSQL only")
    Report.add_option(parser)
    args = parser.parse_args()
    print(machine_line())
    report = Report("queue")
    figures = {}
    with bench_home("socialgen-bench-queue-") as home:
        os.environ.pop("SOCIALGEN_WORKSPACE", None)
        if not args.skip_sqlite:
            os.environ.pop("SOCIALGEN_DATABASE_URL", None)
            figures["sqlite"] = run_on("SQLite", None, home, args)
        if args.postgres:
            with postgres_schema(args.postgres) as url:
                os.environ["SOCIALGEN_DATABASE_URL"] = url
                figures["postgresql"] = run_on("PostgreSQL", url, home, args)
    for name, values in figures.items():
        report.add(name, values)
    report.write(args.json)
    missed = any(values["add_p95"] >= TARGET_SECONDS for values in figures.values())
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
