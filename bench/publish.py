"""Publishing benchmark: latency, throughput and duplicates, idle cost, overhead.

    .venv/bin/python bench/publish.py [--database-url postgresql://postgres@127.0.0.1:5432/test]
    .venv/bin/python bench/publish.py --posts 10 --burst 20 --idle-posts 100 --idle-seconds 2

Runs on PostgreSQL (a schema of its own, dropped at the end) with real `socialgen
serve` processes and a recording network on 127.0.0.1 that counts every call on its
own side (tests/fakes/recording_network.py). Prints (sizes are the defaults):
1. due time -> live post with serve's scheduler (default 1 s poll): p50/p95, 100 posts;
2. 200 due posts through 2 serve + 1 publish-due: posts/s and duplicates;
3. idle scheduler CPU share of one core with 10,000 scheduled posts, over 20 s;
4. the outbox's overhead against calling the network adapter directly, 100 posts.
The home, the servers and the CPU time come from the bench harness (bench/harness/).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

# isort: off
# The harness first: it puts the repository (and so `tests`) on sys.path.
from harness import (
    REPO,
    Samples,
    bench_env,
    bench_home,
    cpu_seconds,
    machine_line,
    serve,
)
from tests.race_cli import COMMAND as RACE_COMMAND
from tests.race_cli import runtime as race_runtime

# isort: on
from socialgen.app.runtime import Runtime
from socialgen.files.backends import files_of
from socialgen.publishing.registry import Networks
from socialgen.publishing.secrets import SecretKeys

if TYPE_CHECKING:
    from sqlalchemy import Engine
    from tests.fakes.recording_network import RecordingServer

SCHEMA = "socialgen_bench"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--database-url", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--posts", type=int, default=100, help="1. posts due 0.1 s apart")
    parser.add_argument("--burst", type=int, default=200, help="2. posts due at once")
    parser.add_argument("--overhead-posts", type=int, default=100, help="4. posts per case")
    parser.add_argument("--idle-posts", type=int, default=10_000, help="3. scheduled posts")
    parser.add_argument("--idle-seconds", type=float, default=20.0, help="3. idle window")
    args = parser.parse_args()
    separator = "&" if "?" in args.database_url else "?"
    url = f"{args.database_url}{separator}options=-csearch_path%3D{SCHEMA}"
    print(machine_line())
    with bench_home("socialgen-bench-") as home:
        # The servers run tests.race_cli: `socialgen` with the recording network
        # handed in through its Runtime.
        env = bench_env(home, url, PYTHONPATH=os.pathsep.join((str(REPO), str(REPO / "src"))))
        # This process opens the same store as the servers it starts.
        os.environ.clear()
        os.environ.update(env)
        _schema(args.database_url, create=True)
        try:
            _run(args, env, home)
        finally:
            _schema(args.database_url, create=False)


def _run(args: argparse.Namespace, env: dict[str, str], home: Path) -> None:
    from tests.fakes.recording_network import RecordingServer

    runtime = Runtime()
    engine = runtime.open_store()
    with RecordingServer() as server:
        account = _account(engine, server.url, SecretKeys.of(runtime))
        latency(engine, server, account, env, home, args.posts)
        throughput(engine, server, account, env, home, args.burst)
        overhead(engine, server, account, args.overhead_posts)
    idle_cpu(engine, account, env, home, args.idle_posts, args.idle_seconds)


def latency(
    engine: Engine,
    server: RecordingServer,
    account: str,
    env: dict[str, str],
    home: Path,
    count: int,
) -> None:
    from socialgen.kit.clock import utcnow

    start = utcnow() + timedelta(seconds=4)
    due = {
        _queue(engine, account, start + timedelta(seconds=i * 0.1), f"lat {i}"): 0.0
        for i in range(count)
    }
    due_at = {key: (start + timedelta(seconds=i * 0.1)).timestamp() for i, key in enumerate(due)}
    with serve(env, home / "serve-latency.log", cwd=REPO, program=RACE_COMMAND):
        _wait(lambda: all(key in server.sent_at for key in due_at), 60)
    lags = Samples([server.sent_at[key] - due_at[key] for key in due_at])
    print(
        f"1. due -> live (serve scheduler, 1 s poll, {count} posts): "
        f"p50 {lags.median:.2f} s, p95 {lags.p95:.2f} s, max {lags.max:.2f} s"
    )


def throughput(
    engine: Engine,
    server: RecordingServer,
    account: str,
    env: dict[str, str],
    home: Path,
    count: int,
) -> None:
    from socialgen.kit.clock import utcnow

    server.senders.clear()
    keys = [
        _queue(engine, account, utcnow() + timedelta(hours=1), f"burst {i}") for i in range(count)
    ]
    with ExitStack() as serves:
        for n in (1, 2):
            serves.enter_context(
                serve(env, home / f"serve-burst-{n}.log", cwd=REPO, program=RACE_COMMAND)
            )
        # Due once both serves are up (each takes seconds to start): then all three race.
        due = utcnow() + timedelta(seconds=1)
        _make_due(engine, due)
        time.sleep(max(0.0, (due - utcnow()).total_seconds()))
        cron = subprocess.run(
            [*RACE_COMMAND, "publish-due", "--json"], env=env, capture_output=True, cwd=REPO
        )
        _wait(lambda: all(key in server.sent_at for key in keys), 120)
    last = max(server.sent_at[key] for key in keys)
    duplicates = sum(server.sends[key] - 1 for key in keys)
    created = len(set(keys) & set(server.created))
    print(
        f"2. {count} due posts, 2 serve + 1 publish-due (exit {cron.returncode}): "
        f"{count / (last - due.timestamp()):.0f} posts/s, {created} created, "
        f"{duplicates} duplicates, senders {dict(server.senders)}"
    )
    server.senders.clear()


def overhead(engine: Engine, server: RecordingServer, account: str, count: int) -> None:
    from socialgen.kit.clock import utcnow
    from socialgen.publishing.adapters import build_adapter
    from socialgen.publishing.networks.base import OutgoingPost
    from socialgen.publishing.outbox.claim import worker_name
    from socialgen.publishing.outbox.runner import THREADS, publish_pass
    from socialgen.publishing.settings import PublishTerms
    from socialgen.store.engine import read_session
    from socialgen.store.tables import SocialAccount

    with read_session(engine) as session:
        row = session.get(SocialAccount, account)
    assert row is not None
    runtime = race_runtime()  # one for every case, as `serve` keeps one
    terms = PublishTerms(networks=Networks.of(runtime), files=files_of(runtime))
    for delay in ("0", "0.1"):
        os.environ["RECORDING_NETWORK_DELAY"] = delay
        adapter = build_adapter(terms.networks, engine, row)
        posts = [
            OutgoingPost(f"direct-{delay}-{i}", f"direct-{delay}-{i}", "text") for i in range(count)
        ]
        began = time.perf_counter()
        with ThreadPoolExecutor(THREADS) as executor:
            list(executor.map(adapter.publish, posts))
        direct = time.perf_counter() - began
        now = utcnow()
        for i in range(count):
            _queue(engine, account, now, f"outbox {delay} {i}")
        began = time.perf_counter()
        with ThreadPoolExecutor(THREADS) as executor:
            report = publish_pass(
                engine,
                worker_name("bench"),
                executor,
                terms=terms,
            )
        outbox = time.perf_counter() - began
        assert report.counts()["published"] == count, report.counts()
        print(
            f"4. overhead, {count} posts, {THREADS} threads, "
            f"network latency {float(delay) * 1000:.0f} ms: direct {direct:.2f} s, "
            f"outbox {outbox:.2f} s, ratio {outbox / direct:.2f}x"
        )
    os.environ.pop("RECORDING_NETWORK_DELAY", None)


def idle_cpu(
    engine: Engine, account: str, env: dict[str, str], home: Path, count: int, seconds: float
) -> None:
    from socialgen.kit.clock import utcnow

    _bulk_scheduled(engine, account, count, utcnow() + timedelta(days=3))
    with serve(env, home / "serve-idle.log", cwd=REPO, program=RACE_COMMAND) as server:
        time.sleep(3)  # start-up and the first metrics look are not idling
        # uvicorn runs the app in-process with one worker: this is the scheduler's process.
        before, began = cpu_seconds(server.pid), time.monotonic()
        time.sleep(seconds)
        used, wall = cpu_seconds(server.pid) - before, time.monotonic() - began
    print(
        f"3. idle scheduler, {count:,} scheduled posts: {100 * used / wall:.2f}% of one core "
        f"({used:.2f} s CPU in {wall:.0f} s)"
    )


# --- helpers --------------------------------------------------------------------------


def _make_due(engine: Engine, due: datetime) -> None:
    """Every queued publication becomes due at `due`."""
    from sqlalchemy import update
    from sqlmodel import col

    from socialgen.store.engine import transaction
    from socialgen.store.tables import Publication

    with transaction(engine) as session:
        session.connection().execute(
            update(Publication).where(col(Publication.state) == "queued").values(due_at=due)
        )


def _schema(database_url: str, *, create: bool) -> None:
    from sqlalchemy import create_engine, text

    admin = create_engine(database_url.replace("postgresql://", "postgresql+psycopg://", 1))
    with admin.begin() as connection:
        connection.execute(text(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE"))
        if create:
            connection.execute(text(f"CREATE SCHEMA {SCHEMA}"))
    admin.dispose()


def _account(engine: Engine, url: str, keys: SecretKeys) -> str:
    from socialgen.publishing.secrets import encrypt_secret
    from socialgen.store.engine import transaction
    from socialgen.store.tables import SocialAccount
    from socialgen.workspaces.service import default_workspace

    with transaction(engine) as session:
        workspace = default_workspace(session)
        assert workspace is not None
        account = SocialAccount(
            workspace_id=workspace.id,
            network="racenet",
            handle="@bench",
            service_url=url,
            secret_ciphertext=encrypt_secret({"password": "bench"}, session, keys),
        )
        session.add(account)
        session.flush()
        return account.id


def _queue(engine: Engine, account_id: str, due: datetime, text: str) -> str:
    from socialgen.posts.service import create_draft
    from socialgen.publishing.outbox.service import idempotency_key
    from socialgen.store.engine import transaction
    from socialgen.store.tables import Publication, SocialAccount

    with transaction(engine) as session:
        account = session.get(SocialAccount, account_id)
        assert account is not None
        post = create_draft(session, account.workspace_id, text)
        publication = Publication(
            workspace_id=account.workspace_id, post_id=post.id, account_id=account_id, due_at=due
        )
        session.add(publication)
        session.flush()
        return idempotency_key(publication.id)


def _bulk_scheduled(engine: Engine, account_id: str, count: int, due: datetime) -> None:
    from socialgen.store.engine import transaction
    from socialgen.store.tables import Post, Publication, SocialAccount

    with transaction(engine) as session:
        account = session.get(SocialAccount, account_id)
        assert account is not None
        for i in range(count):
            post = Post(
                workspace_id=account.workspace_id,
                content=f"later {i}",
                status="scheduled",
                scheduled_at=due,
            )
            post.place_on_timeline()
            session.add(post)
            session.add(
                Publication(
                    workspace_id=account.workspace_id,
                    post_id=post.id,
                    account_id=account_id,
                    due_at=due,
                )
            )
            if i % 1000 == 999:
                session.flush()


def _wait(done: Callable[[], bool], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            raise TimeoutError("benchmark step did not finish")
        time.sleep(0.05)


if __name__ == "__main__":
    main()
