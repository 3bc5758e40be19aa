"""Evergreen reposts benchmark: what writing a run costs, what an idle server pays for
the preparer, and how honest the candidates are.

    .venv/bin/python bench/evergreen.py
    .venv/bin/python bench/evergreen.py --plans 40 --idle-plans 200 --idle-seconds 5 --seeds 10
    .venv/bin/python bench/evergreen.py --database-url postgresql://postgres@127.0.0.1:5432/test

On a temporary SQLite home (or a schema of its own on PostgreSQL, dropped at the end).
Prints (sizes are the defaults):
1. preparation: 200 plans due within a day, written with the in-process scripted
   model (tests/evergreen_replies.py): ms per plan (claim, model, checks, the run's
   post scheduled with its publication, the version, the quota), passes of 20;
2. the preparer's look, one indexed read, with 1,000 plans none due: its median and
   the share of a core it costs at one look a minute;
3. `socialgen serve` idle, 1,000 plans none due against none at all, interleaved (A B
   A B), CPU share of one core over a window that holds a look: the outbox's own idle
   cost (bench/publish.py, 3.) is what both pay; the difference is the preparer's;
4. candidates' honesty: false candidates over N seeds of pure noise (no effect
   planted; planted effects with engagement shuffled), and how often a post planted
   at 8x, 15x and 30x its usual is found.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from contextlib import ExitStack
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

# isort: off
# The harness first: it puts the repository (and so `tests`) on sys.path.
from harness import REPO, Samples, bench_env, bench_home, cpu_seconds, environ, machine_line, serve

# isort: on
# bench/ also holds scripts named as standard modules (queue.py): look there last, or
# the thread pools' `import queue` finds the script.
_BENCH = str(Path(__file__).resolve().parent)
sys.path[:] = [*(entry for entry in sys.path if entry != _BENCH), _BENCH]
sys.modules.pop("queue", None)

from socialgen.app.runtime import Runtime  # noqa: E402
from socialgen.kit.clock import utcnow  # noqa: E402

if TYPE_CHECKING:
    from sqlalchemy import Engine

SCHEMA = "socialgen_bench_evergreen"
NOW = datetime(2026, 6, 1, tzinfo=UTC)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--database-url", default=None, help="PostgreSQL (default: SQLite)")
    parser.add_argument("--plans", type=int, default=200, help="1. plans to prepare")
    parser.add_argument("--idle-plans", type=int, default=1_000, help="2., 3. plans none due")
    parser.add_argument("--idle-seconds", type=float, default=70.0, help="3. each window")
    parser.add_argument("--seeds", type=int, default=100, help="4. noise histories")
    args = parser.parse_args()
    print(machine_line())
    with ExitStack() as stack:
        home = stack.enter_context(bench_home("socialgen-bench-evergreen-"))
        url = None
        if args.database_url:
            separator = "&" if "?" in args.database_url else "?"
            url = f"{args.database_url}{separator}options=-csearch_path%3D{SCHEMA}"
            _schema(args.database_url, create=True)
            stack.callback(_schema, args.database_url, create=False)
        env = bench_env(home, url)
        stack.enter_context(
            environ({**{k: None for k in os.environ if k.startswith("SOCIALGEN_")}, **env})
        )
        runtime = Runtime()
        stack.callback(runtime.close)
        engine = runtime.open_store()
        account = _account(engine)
        preparation(engine, account, args.plans)
        look(engine, account, args.idle_plans)
        idle_serve(engine, env, home, args.idle_seconds)
    honesty(args.seeds)


def preparation(engine: Engine, account: str, count: int) -> None:
    from tests.doubles.scripted_model import ScriptedModel
    from tests.evergreen_replies import fresh_variation

    from socialgen.publishing.evergreen.prepare import PLANS_PER_PASS, prepare_due

    model = ScriptedModel(responder=fresh_variation)
    _plans(engine, account, count, lambda i: utcnow() + timedelta(hours=2, seconds=i))
    passes: list[float] = []
    written = 0
    began = time.perf_counter()
    while written < count:
        started = time.perf_counter()
        done = asyncio.run(prepare_due(engine, lambda: model, worker="bench", max_tokens=700))
        passes.append(time.perf_counter() - started)
        if not done.written:
            raise RuntimeError(f"a pass wrote nothing: {done.runs[:3]}")
        written += done.written
    total = time.perf_counter() - began
    per = Samples([seconds / PLANS_PER_PASS for seconds in passes[:-1]] or passes)
    print(
        f"1. preparation, {count} plans, scripted model: {total / count * 1000:.1f} ms per plan "
        f"(median pass of {PLANS_PER_PASS}: {per.median * 1000:.1f} ms per plan), "
        f"{len(passes)} passes, {written} runs written"
    )


def look(engine: Engine, account: str, count: int) -> None:
    from socialgen.publishing.evergreen.prepare import anything_to_prepare

    _clear(engine)
    _plans(engine, account, count, lambda i: utcnow() + timedelta(days=10, minutes=i))
    samples = []
    for _ in range(200):
        started = time.perf_counter()
        assert not anything_to_prepare(engine)
        samples.append(time.perf_counter() - started)
    got = Samples(samples)
    share = got.median / 60 * 100
    print(
        f"2. the preparer's look, {count:,} plans none due: median {got.median * 1e6:.0f} us, "
        f"p95 {got.p95 * 1e6:.0f} us; one a minute: {share:.5f}% of one core"
    )


def idle_serve(engine: Engine, env: dict[str, str], home: Path, seconds: float) -> None:
    """serve with the idle plans, and with none (the plans parked), A B A B."""
    figures: dict[str, list[float]] = {"with plans": [], "without": []}
    for round_ in range(2):
        for case in figures:
            _park(engine, parked=case == "without")
            with serve(env, home / f"serve-{round_}-{case[:4]}.log", cwd=REPO) as server:
                time.sleep(3)  # start-up and the first looks are not idling
                before, began = cpu_seconds(server.pid), time.monotonic()
                time.sleep(seconds)
                used, wall = cpu_seconds(server.pid) - before, time.monotonic() - began
            figures[case].append(100 * used / wall)
    shown = ", ".join(
        f"{case}: {Samples(values).median:.2f}% ({', '.join(f'{v:.2f}' for v in values)})"
        for case, values in figures.items()
    )
    print(f"3. serve idle, CPU share of one core over {seconds:.0f} s windows: {shown}")


def honesty(seeds: int) -> None:
    from tests.insights_synthetic import (
        NOTHING,
        PLANTED,
        shuffled_engagement,
        synthetic_history,
    )

    from socialgen.insights.evergreen_candidates import candidates_of

    quiet = shuffled = 0
    found = {8: 0, 15: 0, 30: 0}
    for seed in range(1, seeds + 1):
        history = synthetic_history(300, seed, NOTHING)
        quiet += bool(candidates_of(history, NOW).candidates)
        dealt = shuffled_engagement(synthetic_history(300, seed, PLANTED), seed)
        shuffled += bool(candidates_of(dealt, NOW).candidates)
        for factor in found:
            hit = history[40]
            planted = [
                replace(
                    hit,
                    likes=round(hit.likes * factor),
                    reposts=round(hit.reposts * factor),
                    comments=round(hit.comments * factor),
                )
                if index == 40
                else post
                for index, post in enumerate(history)
            ]
            ids = {c.post.post_id for c in candidates_of(planted, NOW).candidates}
            found[factor] += hit.post_id in ids
    rates = ", ".join(f"{f}x {n / seeds:.0%}" for f, n in found.items())
    print(
        f"4. candidates over {seeds} histories of 300 posts: false ones with no effect "
        f"planted in {quiet}, with engagement shuffled in {shuffled}; a planted hit found: "
        f"{rates}"
    )


# --- helpers --------------------------------------------------------------------------


def _account(engine: Engine) -> str:
    from socialgen.publishing.secrets import SecretKeys, encrypt_secret
    from socialgen.store.engine import transaction
    from socialgen.store.tables import SocialAccount
    from socialgen.workspaces.service import default_workspace

    with transaction(engine) as session:
        workspace = default_workspace(session)
        assert workspace is not None
        account = SocialAccount(
            workspace_id=workspace.id,
            network="bluesky",
            handle="bench.evergreen.test",
            service_url="http://127.0.0.1:9",
            secret_ciphertext=encrypt_secret({"password": "x"}, session, SecretKeys.of(Runtime())),
        )
        session.add(account)
        session.flush()
        return account.id


def _plans(engine: Engine, account: str, count: int, first: object) -> None:
    """`count` published originals, each with a plan whose first run is `first(i)`."""
    from zoneinfo import ZoneInfo

    from socialgen.posts.service import create_draft
    from socialgen.publishing.evergreen.plans import Terms, set_plan
    from socialgen.store.engine import transaction
    from socialgen.store.tables import PostStatus, Publication, SocialAccount

    when = utcnow() - timedelta(days=30)
    with transaction(engine) as session:
        row = session.get(SocialAccount, account)
        assert row is not None
        for i in range(count):
            post = create_draft(
                session,
                row.workspace_id,
                f"Lesson {i}: shipping small changes weekly beats one big launch. "
                "Smaller diffs, faster feedback, calmer Fridays.",
            )
            post.status, post.published_at = PostStatus.PUBLISHED, when
            post.place_on_timeline()
            session.add(post)
            session.add(
                Publication(
                    workspace_id=row.workspace_id,
                    post_id=post.id,
                    account_id=account,
                    state="published",
                    published_at=when,
                )
            )
            session.flush()
            terms = Terms(7, times=3, first=first(i))  # type: ignore[operator]
            set_plan(session, row.workspace_id, post.id, terms, ZoneInfo("UTC"))


def _clear(engine: Engine) -> None:
    from sqlalchemy import delete

    from socialgen.store.engine import transaction
    from socialgen.store.tables import EvergreenPlan

    with transaction(engine) as session:
        session.connection().execute(delete(EvergreenPlan))


def _park(engine: Engine, *, parked: bool) -> None:
    """Stop (or restart) every plan: a stopped plan is not read by the look."""
    from sqlalchemy import update

    from socialgen.store.engine import transaction
    from socialgen.store.tables import EvergreenPlan

    with transaction(engine) as session:
        session.connection().execute(
            update(EvergreenPlan).values(state="stopped" if parked else "active")
        )


def _schema(database_url: str, *, create: bool) -> None:
    from sqlalchemy import create_engine, text

    admin = create_engine(database_url)
    with admin.begin() as connection:
        connection.execute(text(f"DROP SCHEMA IF EXISTS {SCHEMA} CASCADE"))
        if create:
            connection.execute(text(f"CREATE SCHEMA {SCHEMA}"))
    admin.dispose()


if __name__ == "__main__":
    main()
