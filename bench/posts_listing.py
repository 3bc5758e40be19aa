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

Run from the repository root:

    .venv/bin/python bench/posts_listing.py
    .venv/bin/python bench/posts_listing.py --db /tmp/sg-bench.db   # build once, reuse
    .venv/bin/python bench/posts_listing.py --skip-http --profile   # in-process + cProfile
"""

from __future__ import annotations

import argparse
import cProfile
import io
import math
import os
import pstats
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, cast

import httpx
import sqlalchemy as sa
from sqlalchemy import Engine, event
from sqlmodel import Session, SQLModel, col, select

from serving import free_port, start_server, stop_server
from socialgen.auth.service import create_api_key, create_token
from socialgen.clock import utcnow
from socialgen.config import get_settings
from socialgen.limits import POST_WINDOW_DAYS
from socialgen.posts.listing import posts_timeline, recent_posts
from socialgen.posts.schemas import PostList
from socialgen.posts.views import post_views, snippet
from socialgen.startup import open_store
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import PostStatus, Workspace
from socialgen.store.types import UTCDateTime
from socialgen.workspaces.bootstrap import LOCAL_OWNER_EMAIL
from socialgen.workspaces.service import create_workspace, default_workspace

OTHER_WORKSPACE_NAME = "bench-other"
TARGET_P50_MS = 10.0
API_PREFIX = "/api/v1/ai-conversation"

Listing = Callable[[Session, str], PostList]
LISTINGS: dict[str, Listing] = {"recent_posts": recent_posts, "posts_timeline": posts_timeline}
ENDPOINTS: dict[str, str] = {"recent-posts": "recent_posts", "posts-timeline": "posts_timeline"}


# --------------------------------------------------------------------------- statistics


def percentile(samples: Sequence[float], pct: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(samples)
    rank = max(1, math.ceil(pct * len(ordered) / 100))
    return ordered[min(rank, len(ordered)) - 1]


def summary_ms(samples_s: Sequence[float]) -> str:
    ms = [sample * 1000 for sample in samples_s]
    return (
        f"p50 {percentile(ms, 50):7.2f} ms  p99 {percentile(ms, 99):7.2f} ms  "
        f"mean {statistics.fmean(ms):7.2f} ms  min {min(ms):6.2f} ms"
    )


# --------------------------------------------------------------------------- the store


@dataclass(frozen=True)
class Plan:
    """How many posts of each kind a workspace gets."""

    total: int
    window_drafts: int
    window_published: int
    window_scheduled_future: int
    window_scheduled_past: int

    @property
    def in_window(self) -> int:
        return (
            self.window_drafts
            + self.window_published
            + self.window_scheduled_future
            + self.window_scheduled_past
        )


@dataclass
class Workspaces:
    main: str
    other: str
    owner_email: str = LOCAL_OWNER_EMAIL


def plan_for(total: int, in_window: int) -> Plan:
    drafts = in_window * 40 // 100
    published = in_window * 40 // 100
    future = in_window * 15 // 100
    return Plan(total, drafts, published, future, in_window - drafts - published - future)


SAMPLE_TEXT = (
    "shipping weekly beats shipping perfect; customers notice momentum, teams feel it, "
    "and the roadmap stops being a wish list. Here is what we learned after a year of "
    "small releases, honest retros, fewer meetings and more writing. Hiring for curiosity "
    "over credentials changed our onboarding, our code reviews and our support queue."
)
WORDS = SAMPLE_TEXT.split()


def content_pool(rng: random.Random, size: int = 400) -> list[str]:
    pool = []
    for index in range(size):
        length = rng.randint(40, 220)
        words = [rng.choice(WORDS) for _ in range(length)]
        first = " ".join(words[:12]).capitalize()
        pool.append(f"Lesson {index}: {first}\n\n" + " ".join(words[12:]))
    return pool


def post_rows(
    rng: random.Random, workspace_id: str, plan: Plan, now: datetime, owner_id: str | None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Conversation rows and post rows for one workspace, timeline_at set as
    Post.place_on_timeline() would (published_at / scheduled_at / updated_at)."""
    pool = content_pool(rng)
    kinds: list[tuple[PostStatus, float, float]] = []  # (status, min age, max age in days)
    kinds += [(PostStatus.DRAFT, 0.01, 80)] * plan.window_drafts
    kinds += [(PostStatus.PUBLISHED, 0.01, 80)] * plan.window_published
    kinds += [(PostStatus.SCHEDULED, -60, -0.5)] * plan.window_scheduled_future
    kinds += [(PostStatus.SCHEDULED, 0.5, 80)] * plan.window_scheduled_past
    for _ in range(plan.total - plan.in_window):
        roll = rng.random()
        status = (
            PostStatus.PUBLISHED
            if roll < 0.6
            else PostStatus.DRAFT
            if roll < 0.9
            else PostStatus.SCHEDULED
        )
        kinds.append((status, 120, 1500))

    conversations: list[dict[str, Any]] = []
    posts: list[dict[str, Any]] = []
    for status, low, high in kinds:
        moment = now - timedelta(days=rng.uniform(low, high))
        created = min(moment, now) - timedelta(days=rng.uniform(0, 5))
        text = rng.choice(pool)
        conversation_id: str | None = None
        if rng.random() < 0.4:
            conversation_id = new_id(rng)
            conversations.append(
                {
                    "id": conversation_id,
                    "workspace_id": workspace_id,
                    "user_id": owner_id,
                    "title": snippet(text)[:300],
                    "status": "active",
                    "metadata": {},
                    "current_content": text,
                    "created_at": created,
                    "updated_at": created,
                }
            )
        published = status == PostStatus.PUBLISHED
        scheduled = status in (PostStatus.SCHEDULED, PostStatus.PUBLISHED)
        has_carousel = rng.random() < 0.05
        posts.append(
            {
                "id": new_id(rng),
                "workspace_id": workspace_id,
                "conversation_id": conversation_id,
                "content": text,
                "post_type": "carousel" if has_carousel else "text",
                "status": str(status),
                "variation_name": None,
                "created_at": created,
                "updated_at": moment,
                "scheduled_at": moment if scheduled else None,
                "published_at": moment if published else None,
                "timeline_at": moment,
                "post_url": f"https://www.linkedin.com/feed/update/{len(posts)}"
                if published
                else None,
                "social_account_name": "Ada Lovelace" if published else None,
                "social_account_email": "ada@example.com" if published else None,
                "likes": rng.randint(0, 500) if published else 0,
                "comments": rng.randint(0, 60) if published else 0,
                "carousel": (
                    {
                        "id": f"car-{len(posts)}",
                        "name": "Deck",
                        "thumbnailUrl": "https://cdn.example.com/t.png",
                        "pdfUrl": "https://cdn.example.com/d.pdf",
                    }
                    if has_carousel
                    else None
                ),
                "infographic": None,
                "generated_headshot": None,
                "custom_image": None,
            }
        )
    # A store grows as posts are written: insert in creation order, as it would.
    conversations.sort(key=lambda row: row["created_at"])
    posts.sort(key=lambda row: row["created_at"])
    return conversations, posts


def new_id(rng: random.Random) -> str:
    return f"{rng.getrandbits(128):032x}"


def insert_bulk(engine: Engine, table_name: str, rows: list[dict[str, Any]]) -> None:
    table = SQLModel.metadata.tables[table_name]
    batch = 10_000
    with engine.begin() as connection:
        for start in range(0, len(rows), batch):
            connection.execute(sa.insert(table), rows[start : start + batch])


def find_workspaces(engine: Engine) -> Workspaces | None:
    with read_session(engine) as session:
        main = default_workspace(session)
        other = session.exec(
            select(Workspace).where(col(Workspace.name) == OTHER_WORKSPACE_NAME)
        ).first()
        if main is None or other is None:
            return None
        return Workspaces(main=main.id, other=other.id)


def build_store(engine: Engine, plan: Plan, other_plan: Plan, seed: int) -> Workspaces:
    from socialgen.store.tables import User

    with transaction(engine) as session:
        main = default_workspace(session)
        assert main is not None, "open_store() creates the default workspace"
        other = create_workspace(session, OTHER_WORKSPACE_NAME)
        owner = session.exec(select(User).where(col(User.email) == LOCAL_OWNER_EMAIL)).one()
        main_id, other_id, owner_id = main.id, other.id, owner.id
    rng = random.Random(seed)
    now = utcnow()
    conversations, posts = post_rows(rng, main_id, plan, now, owner_id)
    more_conversations, more_posts = post_rows(rng, other_id, other_plan, now, None)
    insert_bulk(engine, "conversation", conversations + more_conversations)
    insert_bulk(engine, "post", posts + more_posts)
    with engine.connect() as connection:
        connection.exec_driver_sql("ANALYZE")
        connection.commit()
    return Workspaces(main=main_id, other=other_id)


def window_counts(engine: Engine, workspace_id: str) -> tuple[int, int, int]:
    """(all posts, posts in the 90-day window, scheduled+published in the window)."""
    start = utcnow() - timedelta(days=POST_WINDOW_DAYS)
    post = SQLModel.metadata.tables["post"]
    in_ws = post.c.workspace_id == workspace_id
    in_window = sa.and_(in_ws, post.c.timeline_at >= start)
    shown = sa.and_(in_window, post.c.status.in_([PostStatus.SCHEDULED, PostStatus.PUBLISHED]))
    with engine.connect() as connection:

        def count(where: sa.ColumnElement[bool]) -> int:
            return int(connection.execute(sa.select(sa.func.count()).where(where)).scalar_one())

        return count(in_ws), count(in_window), count(shown)


# --------------------------------------------------------------------------- in-process


@dataclass
class CapturedQuery:
    sql: str
    parameters: tuple[Any, ...]
    statement: Any = None  # the sa.Select that listing._window executed


@contextmanager
def capture_sql(engine: Engine) -> Iterator[list[tuple[str, tuple[Any, ...]]]]:
    seen: list[tuple[str, tuple[Any, ...]]] = []

    def record(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_: Any) -> None:
        seen.append((statement, tuple(parameters)))

    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(engine, "before_cursor_execute", record)


class _RecordingConnection:
    def __init__(self, real: sa.Connection, sink: list[Any]) -> None:
        self._real = real
        self._sink = sink

    def execute(self, statement: Any, *args: Any, **kwargs: Any) -> Any:
        self._sink.append(statement)
        return self._real.execute(statement, *args, **kwargs)


class _RecordingSession:
    """Stands in for a Session to catch the statement listing._window builds."""

    def __init__(self, real: Session) -> None:
        self._real = real
        self.statements: list[Any] = []

    def connection(self) -> _RecordingConnection:
        return _RecordingConnection(self._real.connection(), self.statements)


def capture_listing_query(engine: Engine, listing: Listing, workspace_id: str) -> CapturedQuery:
    with capture_sql(engine) as seen, read_session(engine) as session:
        recorder = _RecordingSession(session)
        listing(cast(Session, recorder), workspace_id)
    sql, parameters = next((s, p) for s, p in seen if "FROM post" in s)
    return CapturedQuery(sql, parameters, recorder.statements[-1])


def explain(database: Path, query: CapturedQuery) -> list[str]:
    with sqlite3.connect(database) as connection:
        rows = connection.execute("EXPLAIN QUERY PLAN " + query.sql, query.parameters).fetchall()
    return [f"  {'  ' * depth_of(rows, row)}{row[3]}" for row in rows]


def depth_of(rows: Sequence[tuple[Any, ...]], row: tuple[Any, ...]) -> int:
    parents = {r[0]: r[1] for r in rows}
    depth, parent = 0, row[1]
    while parent in parents:
        depth, parent = depth + 1, parents[parent]
    return depth


def time_calls(fn: Callable[[], object], calls: int, warmup: int = 10) -> list[float]:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(calls):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return samples


def breakdown(engine: Engine, database: Path, query: CapturedQuery, calls: int) -> list[str]:
    """Where one listing call spends its time, part by part (median and min of `calls`)."""
    raw = sqlite3.connect(database)
    try:
        raw_rows = raw.execute(query.sql, query.parameters).fetchall()
        sqlite_only = time_calls(lambda: raw.execute(query.sql, query.parameters).fetchall(), calls)
    finally:
        raw.close()
    with read_session(engine) as session:
        connection = session.connection()
        rows = connection.execute(query.statement).all()
        fetch = time_calls(lambda: connection.execute(query.statement).all(), calls)
        views = time_calls(lambda: post_views(rows), calls)
    session_open = time_calls(lambda: read_session(engine).connection().close(), calls)
    parts: list[tuple[str, list[float], str]] = [
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
        parts.append((label, time_calls(process, calls), decoded))
    parts.append((f"post_views x {len(rows)}", views, "dicts to SPEC.md shapes"))
    parts.append(("read_session + connection checkout", session_open, "per call"))
    lines = [f"  {'':38} {'median':>9} {'min':>9}"]
    for label, samples, note in parts:
        lines.append(
            f"  {label:38} {statistics.median(samples) * 1000:6.2f} ms "
            f"{min(samples) * 1000:6.2f} ms  {note}"
        )
    return lines


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


def create_credentials(engine: Engine, workspace_id: str) -> dict[str, str]:
    with transaction(engine) as session:
        _key, api_key = create_api_key(session, name="bench", workspace_id=workspace_id)
        _token, bearer, _user = create_token(session, LOCAL_OWNER_EMAIL, days=1)
    return {"x-api-key": api_key, "authorization": f"Bearer {bearer}"}


# --------------------------------------------------------------------------- main


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
    args = parser.parse_args()
    if not 0 < args.window <= args.posts:
        parser.error("--window must be between 1 and --posts")
    concurrencies = [int(part) for part in args.concurrency.split(",") if part.strip()]

    home = Path(tempfile.mkdtemp(prefix="socialgen-bench-listing-"))
    os.environ["SOCIALGEN_HOME"] = str(home)
    os.environ.pop("SOCIALGEN_WORKSPACE", None)
    if args.db is not None:
        os.environ["SOCIALGEN_DATABASE_URL"] = f"sqlite:///{args.db.expanduser().resolve()}"
    else:
        os.environ.pop("SOCIALGEN_DATABASE_URL", None)
    settings = get_settings()
    database = Path(settings.database_url.removeprefix("sqlite:///"))
    try:
        return run(args, concurrencies, home, database)
    finally:
        if args.keep:
            print(f"\nkept {home}")
        else:
            shutil.rmtree(home, ignore_errors=True)


def run(args: argparse.Namespace, concurrencies: list[int], home: Path, database: Path) -> int:
    print(f"store: {database}")
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load}")
    engine = open_store()
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

        samples = time_calls(call, args.calls)
        p50 = percentile(samples, 50) * 1000
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

    for name, query in queries.items():
        print(f"\nwhere one {name} call goes (median and min of {args.calls} runs of each part):")
        print("\n".join(breakdown(engine, database, query, args.calls)))

    if args.profile:
        print("\ncProfile of 50 recent_posts calls (sorted by own time):")
        print(profile_listing(engine, recent_posts, workspaces.main, 50))

    if not args.skip_http:
        failed |= not http_bench(args, concurrencies, home, engine, workspaces, in_window, shown)
    return 1 if failed else 0


def http_bench(
    args: argparse.Namespace,
    concurrencies: list[int],
    home: Path,
    engine: Engine,
    workspaces: Workspaces,
    in_window: int,
    shown: int,
) -> bool:
    headers = create_credentials(engine, workspaces.main)
    env = dict(os.environ)
    port = free_port()
    log = home / "server.log"
    print(f"\nHTTP: `socialgen serve` on 127.0.0.1:{port} (1 worker, access log on, log {log})")
    print(
        f"client: httpx, one keep-alive connection per thread, on the same {os.cpu_count()} CPUs; "
        f"each run stops at {args.requests} requests or {args.seconds:.0f} s"
    )
    server = start_server(env, port, log)
    ok = True
    try:
        base = f"http://127.0.0.1:{port}{API_PREFIX}"
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
            for concurrency in concurrencies:
                result = drive(url, headers, concurrency, args.requests, args.seconds)
                rate = len(result.latencies) / result.elapsed
                print(
                    f"  c={concurrency:<2} {len(result.latencies):>5} requests in "
                    f"{result.elapsed:5.1f} s  {rate:7.1f} req/s  {summary_ms(result.latencies)}"
                    f"  errors {result.errors}"
                )
                if result.errors:
                    print(f"  !! statuses: {result.statuses}")
                    ok = False
    finally:
        stop_server(server)
        print(f"\nserver stopped: SIGTERM, exit status {server.returncode} (uvicorn re-raises it)")
    return ok


if __name__ == "__main__":
    sys.exit(main())
