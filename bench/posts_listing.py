#!/usr/bin/env python3
"""Recent posts and the posts timeline on a large SQLite store, in-process and over HTTP.

1. Builds (or reuses, with `--db PATH`) a store holding 100,000 posts in the
   default workspace, of which 1,000 fall in the 90-day window (drafts,
   published, scheduled - some of them in the future) and the rest are older,
   plus a second workspace with posts of its own. Rows go in with SQLAlchemy
   Core executemany on the `conversation` and `post` tables (every required
   column, timeline_at included), in creation order as a real store grows; a
   subset of posts has a conversation so titles join.
2. Shows the EXPLAIN QUERY PLAN of both listing queries (the SQL captured as it
   runs inside socialgen.posts.listing), to show the index is used.
3. Times `socialgen.posts.listing.recent_posts` and `posts_timeline` in-process
   with a read session (p50/p99/mean over --calls calls; target p50 < 10 ms),
   and splits one call into SQL, row fetching and view building.
4. Starts the real app (`socialgen serve --port N` on 127.0.0.1, in a
   subprocess, on that store), creates an API key bound to the workspace and a
   bearer token for the local owner, and drives
   GET /api/v1/ai-conversation/recent-posts/{ws} and /posts-timeline/{ws} with
   httpx threads at concurrency 1 and 8, each run bounded by a request count
   and a time limit. Reports p50/p99 latency and requests/s, then stops the server.

The store and its SQL capture live in posts_listing_store.py; the server, the key and
token, timing and tables come from the bench harness (bench/harness/).

Prints: the store's counts, the EXPLAIN QUERY PLAN of both listings, the in-process
p50/p99/mean/min per listing with the target, where one call goes (median and min per
part), then per endpoint the status and size and a row per concurrency (requests,
seconds, req/s, p50/p99/mean/min, errors); exits 1 when a target is missed.

Run from the repository root:

    .venv/bin/python bench/posts_listing.py
    .venv/bin/python bench/posts_listing.py --db /tmp/sg-bench.db   # build once, reuse
    .venv/bin/python bench/posts_listing.py --skip-http --profile   # in-process + cProfile
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import sqlite3
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy as sa
from sqlalchemy import Engine

from harness import (
    Report,
    Samples,
    Table,
    bench_home,
    create_key,
    create_token,
    machine_line,
    repeat_calls,
    serve,
)
from posts_listing_store import (
    CapturedQuery,
    Listing,
    Workspaces,
    build_store,
    capture_listing_query,
    explain,
    find_workspaces,
    plan_for,
    window_counts,
)
from socialgen.app.runtime import Runtime
from socialgen.config import get_settings
from socialgen.posts.listing import posts_timeline, recent_posts
from socialgen.posts.views import post_views
from socialgen.store.engine import read_session
from socialgen.store.types import UTCDateTime

TARGET_P50_MS = 10.0
API_PREFIX = "/api/v1/ai-conversation"
LISTINGS: dict[str, Listing] = {"recent_posts": recent_posts, "posts_timeline": posts_timeline}
ENDPOINTS: dict[str, str] = {"recent-posts": "recent_posts", "posts-timeline": "posts_timeline"}


PAGE_LIMIT = 50  # the table's default page


def summary_ms(samples: Samples) -> str:
    """p50 and p99 by nearest rank, as this bench has always reported them."""
    return (
        f"p50 {samples.percentile(50) * 1000:7.2f} ms  p99 {samples.percentile(99) * 1000:7.2f} "
        f"ms  mean {samples.mean * 1000:7.2f} ms  min {samples.min * 1000:6.2f} ms"
    )


# --------------------------------------------------------------------------- in-process


def breakdown(engine: Engine, database: Path, query: CapturedQuery, calls: int) -> list[str]:
    """Where one listing call spends its time, part by part (median and min of `calls`)."""
    raw = sqlite3.connect(database)
    try:
        raw_rows = raw.execute(query.sql, query.parameters).fetchall()
        sqlite_only = repeat_calls(
            lambda: raw.execute(query.sql, query.parameters).fetchall(), calls
        )
    finally:
        raw.close()
    with read_session(engine) as session:
        connection = session.connection()
        rows = connection.execute(query.statement).all()
        fetch = repeat_calls(lambda: connection.execute(query.statement).all(), calls)
        views = repeat_calls(lambda: post_views(rows), calls)
    session_open = repeat_calls(lambda: read_session(engine).connection().close(), calls)
    parts: list[tuple[str, Samples, str]] = [
        ("sqlite3 alone, execute + fetchall", sqlite_only, f"{len(raw_rows)} rows x 18 columns"),
        ("SQLAlchemy execute + all()", fetch, "the above + result processing"),
    ]
    # The result processors SQLAlchemy applies, timed alone on the raw rows.
    for kind_name, kind in (("JSON", sa.JSON), ("timestamp", UTCDateTime)):
        columns = [
            (index, column.type.result_processor(engine.dialect, None))
            for index, column in enumerate(query.statement.selected_columns)
            if isinstance(column.type, kind)
        ]
        processors = [(index, fn) for index, fn in columns if fn is not None]

        def process(processors: list[tuple[int, Any]] = processors) -> None:
            for row in raw_rows:
                for index, fn in processors:
                    fn(row[index])

        decoded = f"{len(processors) * len(raw_rows)} values decoded"
        label = f"  of which {len(processors)} {kind_name} columns"
        parts.append((label, repeat_calls(process, calls), decoded))
    parts.append((f"post_views x {len(rows)}", views, "dicts to SPEC.md shapes"))
    parts.append(("read_session + connection checkout", session_open, "per call"))
    table = Table("", "median", "min", "", indent="  ", notes=True)
    for label, samples, note in parts:
        table.add(label, f"{samples.median * 1000:.2f} ms", f"{samples.min * 1000:.2f} ms", note)
    return table.render().splitlines()


def profile_listing(engine: Engine, listing: Listing, workspace_id: str, calls: int) -> str:
    profiler = cProfile.Profile()
    with read_session(engine) as session:
        profiler.enable()
        for _ in range(calls):
            listing(session, workspace_id)
        profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(15)
    lines = [line for line in out.getvalue().splitlines() if line.strip()]
    start = next(i for i, line in enumerate(lines) if "ncalls" in line)
    return "\n".join(lines[start : start + 16])


# --------------------------------------------------------------------------- HTTP


@dataclass
class LoadResult:
    latencies: list[float] = field(default_factory=list)
    errors: int = 0
    bytes: int = 0
    elapsed: float = 0.0
    statuses: dict[int, int] = field(default_factory=dict)


def drive(
    url: str, headers: dict[str, str], concurrency: int, max_requests: int, max_seconds: float
) -> LoadResult:
    """`concurrency` threads, each with its own keep-alive client, share a request budget."""
    result = LoadResult()
    lock = threading.Lock()
    issued = 0
    deadline = time.perf_counter() + max_seconds

    def worker() -> None:
        nonlocal issued
        with httpx.Client(headers=headers, timeout=60) as client:
            while True:
                with lock:
                    if issued >= max_requests or time.perf_counter() >= deadline:
                        return
                    issued += 1
                start = time.perf_counter()
                try:
                    response = client.get(url)
                    status, size = response.status_code, len(response.content)
                except httpx.HTTPError:
                    status, size = 0, 0
                latency = time.perf_counter() - start
                with lock:
                    result.latencies.append(latency)
                    result.statuses[status] = result.statuses.get(status, 0) + 1
                    result.bytes += size
                    if status != 200:
                        result.errors += 1

    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    result.elapsed = time.perf_counter() - began
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--db", type=Path, help="SQLite file to build, or reuse when built")
    parser.add_argument("--posts", type=int, default=100_000, help="posts in the workspace")
    parser.add_argument("--window", type=int, default=1_000, help="of which in the window")
    parser.add_argument("--other-posts", type=int, default=5_000, help="second workspace")
    parser.add_argument("--calls", type=int, default=200, help="in-process calls per listing")
    parser.add_argument("--requests", type=int, default=2_000, help="max requests per run")
    parser.add_argument("--seconds", type=float, default=10.0, help="max seconds per run")
    parser.add_argument("--concurrency", default="1,8", help="comma-separated (default 1,8)")
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--skip-http", action="store_true", help="in-process figures only")
    parser.add_argument("--profile", action="store_true", help="cProfile recent_posts too")
    parser.add_argument("--keep", action="store_true", help="keep the temporary home")
    Report.add_option(parser)
    args = parser.parse_args()
    if not 0 < args.window <= args.posts:
        parser.error("--window must be between 1 and --posts")
    concurrencies = [int(part) for part in args.concurrency.split(",") if part.strip()]

    with bench_home("socialgen-bench-listing-", keep=args.keep) as home:
        os.environ["SOCIALGEN_HOME"] = str(home)
        os.environ.pop("SOCIALGEN_WORKSPACE", None)
        if args.db is not None:
            os.environ["SOCIALGEN_DATABASE_URL"] = f"sqlite:///{args.db.expanduser().resolve()}"
        else:
            os.environ.pop("SOCIALGEN_DATABASE_URL", None)
        database = Path(get_settings().database_url.removeprefix("sqlite:///"))
        report = Report("posts_listing")
        failed = run(args, concurrencies, home, database, report)
        report.write(args.json)
        return failed


def run(
    args: argparse.Namespace, concurrencies: list[int], home: Path, database: Path, report: Report
) -> int:
    print(f"store: {database}")
    print(machine_line())
    engine = Runtime().open_store()
    workspaces = find_workspaces(engine)
    if workspaces is None:
        plan = plan_for(args.posts, args.window)
        other_plan = plan_for(args.other_posts, max(1, args.other_posts // 50))
        start = time.perf_counter()
        workspaces = build_store(engine, plan, other_plan, args.seed)
        built = time.perf_counter() - start
        print(
            f"built in {built:.1f} s: {plan.total:,} posts ({plan.in_window:,} in the window: "
            f"{plan.window_drafts} drafts, {plan.window_published} published, "
            f"{plan.window_scheduled_future} scheduled ahead, {plan.window_scheduled_past} "
            f"scheduled earlier) + {other_plan.total:,} posts in a second workspace"
        )
    else:
        print("reusing the store built earlier (window membership drifts with time)")
    total, in_window, shown = window_counts(engine, workspaces.main)
    other_total, other_window, _ = window_counts(engine, workspaces.other)
    print(
        f"workspace {workspaces.main}: {total:,} posts, {in_window:,} in the window "
        f"({shown:,} scheduled/published)"
    )
    print(f"workspace {workspaces.other}: {other_total:,} posts, {other_window:,} in the window")
    print(f"database size: {database.stat().st_size / 1e6:.1f} MB")

    queries = {
        name: capture_listing_query(engine, listing, workspaces.main)
        for name, listing in LISTINGS.items()
    }
    for name, query in queries.items():
        print(f"\nEXPLAIN QUERY PLAN ({name}):")
        print("  " + " ".join(query.sql.split()))
        print("\n".join(explain(database, query)))

    print(f"\nin-process, {args.calls} calls each, one read session per call:")
    failed = False
    for name, listing in LISTINGS.items():
        returned = 0

        def call(listing: Listing = listing) -> None:
            nonlocal returned
            with read_session(engine) as session:
                returned = listing(session, workspaces.main)["total"]

        samples = repeat_calls(call, args.calls)
        p50 = samples.percentile(50) * 1000
        report.add(name, {"p50_ms": p50, "p99_ms": samples.percentile(99) * 1000})
        verdict = "OK" if p50 < TARGET_P50_MS else "MISSED"
        failed |= p50 >= TARGET_P50_MS
        print(
            f"  {name:<15} {returned:>5} posts  {summary_ms(samples)}   "
            f"target p50 < {TARGET_P50_MS:.0f} ms {verdict}"
        )
        expected = in_window if name == "recent_posts" else shown
        if returned != expected:
            print(
                f"  !! {name} returned {returned} posts, the store holds {expected} in the window"
            )

    print(f"\npages of {PAGE_LIMIT} (limit and cursor), {args.calls} calls each:")
    for name, listing in LISTINGS.items():
        with read_session(engine) as session:
            first = listing(session, workspaces.main, limit=PAGE_LIMIT)
        for page, cursor in (("first page", None), ("second page", first.get("nextCursor"))):

            def paged(listing: Listing = listing, cursor: str | None = cursor) -> None:
                with read_session(engine) as session:
                    listing(session, workspaces.main, limit=PAGE_LIMIT, cursor=cursor)

            samples = repeat_calls(paged, args.calls)
            report.add(f"{name} {page}", {"p50_ms": samples.percentile(50) * 1000})
            print(f"  {name:<15} {page:<12} {summary_ms(samples)}")

    for name, query in queries.items():
        print(f"\nwhere one {name} call goes (median and min of {args.calls} runs of each part):")
        print("\n".join(breakdown(engine, database, query, args.calls)))

    if args.profile:
        print("\ncProfile of 50 recent_posts calls (sorted by own time):")
        print(profile_listing(engine, recent_posts, workspaces.main, 50))

    if not args.skip_http:
        failed |= not http_bench(args, concurrencies, home, workspaces, in_window, shown, report)
    return 1 if failed else 0


def http_bench(
    args: argparse.Namespace,
    concurrencies: list[int],
    home: Path,
    workspaces: Workspaces,
    in_window: int,
    shown: int,
    report: Report,
) -> bool:
    env = dict(os.environ)
    # `key create` binds the key to the default workspace, which is workspaces.main.
    api_key, workspace = create_key(env)
    assert workspace == workspaces.main, (workspace, workspaces.main)
    headers = {"x-api-key": api_key, "authorization": f"Bearer {create_token(env)}"}
    log = home / "server.log"
    ok = True
    with serve(env, log) as server:
        print(
            f"\nHTTP: `socialgen serve` on 127.0.0.1:{server.port} "
            f"(1 worker, access log on, log {log})"
        )
        print(
            f"client: httpx, one keep-alive connection per thread, on the same {os.cpu_count()} "
            f"CPUs; each run stops at {args.requests} requests or {args.seconds:.0f} s"
        )
        base = f"{server.url}{API_PREFIX}"
        for endpoint, listing_name in ENDPOINTS.items():
            url = f"{base}/{endpoint}/{workspaces.main}"
            first = httpx.get(url, headers=headers, timeout=60)
            expected = in_window if listing_name == "recent_posts" else shown
            total = first.json().get("data", {}).get("total") if first.status_code == 200 else None
            print(
                f"\nGET {API_PREFIX}/{endpoint}/{{ws}}: status {first.status_code}, "
                f"{total} posts, {len(first.content) / 1e6:.2f} MB per response"
            )
            if first.status_code != 200 or total != expected:
                print(f"  !! expected 200 with {expected} posts: {first.text[:300]}")
                ok = False
                continue
            drive(url, headers, 1, 5, args.seconds)  # warm-up
            table = Table("", "requests", "in", "req/s", "p50", "p99", "mean", "min", "errors")
            table.indent = "  "
            for concurrency in concurrencies:
                result = drive(url, headers, concurrency, args.requests, args.seconds)
                rate = len(result.latencies) / result.elapsed
                latencies = Samples(result.latencies)
                table.add(
                    f"c={concurrency}",
                    len(result.latencies),
                    f"{result.elapsed:.1f} s",
                    f"{rate:.1f}",
                    *(f"{latencies.percentile(pct) * 1000:.2f} ms" for pct in (50, 99)),
                    f"{latencies.mean * 1000:.2f} ms",
                    f"{latencies.min * 1000:.2f} ms",
                    result.errors,
                )
                report.add(
                    f"{endpoint} c={concurrency}",
                    {"rps": rate, "p50_ms": latencies.percentile(50) * 1000},
                )
                if result.errors:
                    print(f"  !! statuses: {result.statuses}")
                    ok = False
            table.print()
    print(f"\nserver stopped: {server.stopped} (uvicorn re-raises it)")
    return ok


if __name__ == "__main__":
    sys.exit(main())
