"""Publishing to every built-in network: due -> live latency, and exactly once under
a race with answers lost after the network accepted the post.

    .venv/bin/python bench/publish_networks.py [--database-url postgresql://postgres@127.0.0.1:5432/test]
    .venv/bin/python bench/publish_networks.py --networks x,nostr --posts 10 --burst 20

Runs on PostgreSQL (a schema of its own, dropped at the end) with real `socialgen
serve` and `socialgen publish-due` processes, each network's real adapter against its
local server as the tests run it (bench/publish_networks_rigs.py and _procs.py; the
store side is bench/publish_networks_store.py). Per network:
1. due -> live with one serve's scheduler (1 s poll): N posts (20) due 0.2 s apart,
   p50/p95/max of published_at - due_at as the store recorded them;
2. M posts (30) due at once, 2 serve + 1 publish-due racing, every 5th create call
   carried out by the server and its answer lost (dropped, or stalled past the
   client's timeout): the publications' states, DUPLICATES counted on the server's
   side (a post's text held more than once: must be 0), the lost answers found again
   (X, Threads, Pixelfed and Nostr look before sending again; Nostr's resend is the
   same note) or left `unknown` (Telegram, Discord cannot look: by design), and the
   create calls sent again for a post, where the server records them.
Every text is distinct, so the server's count is exact. A network whose module is
missing or broken, or that `socialgen serve` does not know yet (not in
registry.BUILT_IN), prints "skipped: <why>"; --hand-in runs the latter anyway,
through a `socialgen` whose Runtime is handed the module (as tests/race_cli.py does).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import secrets
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

# isort: off
# The harness first: it puts the repository (and so `tests`) on sys.path.
from harness import REPO, Samples, bench_env, bench_home, machine_line, serve, socialgen_command

# isort: on
from publish_networks_procs import nostr_rig, pixelfed_rig, telegram_rig
from publish_networks_rigs import Ctx, Rig, discord_rig, threads_rig, x_rig
from publish_networks_store import SCHEMA, Media, make_due, queue, save_media, schema, settle

if TYPE_CHECKING:
    from sqlalchemy import Engine

NETWORKS = ("x", "threads", "telegram", "pixelfed", "discord", "nostr")
TIMEOUT = 2.0  # SOCIALGEN_NETWORK_TIMEOUT: an injected stall ends quickly
CRON_APP = "socialgen-bench-cron"  # publish-due's application_name (PGAPPNAME)
RIGS: dict[str, Callable[[Ctx, ExitStack], Rig]] = {
    "x": x_rig,
    "threads": threads_rig,
    "telegram": telegram_rig,
    "pixelfed": pixelfed_rig,
    "discord": discord_rig,
    "nostr": nostr_rig,
}
# `socialgen` with network modules handed to its Runtime: argv[1] names them.
HAND_IN = """\
import importlib, sys
from socialgen.app.runtime import Runtime
from socialgen.cli.main import app
from socialgen.cli.process_exit import end_now
names = [name for name in sys.argv[1].split(",") if name]
sys.argv = ["socialgen", *sys.argv[2:]]
modules = {n: importlib.import_module(f"socialgen.publishing.networks.{n}.adapter") for n in names}
try:
    app(obj=Runtime(networks=modules))
except SystemExit as done:
    end_now(done.code)
    raise
"""


@dataclass
class Outcome:
    lines: list[str] = field(default_factory=list)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--database-url", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--networks", default=",".join(NETWORKS), help="comma-separated")
    parser.add_argument("--posts", type=int, default=20, help="1. posts due 0.2 s apart")
    parser.add_argument("--burst", type=int, default=30, help="2. posts due at once")
    parser.add_argument("--every", type=int, default=5, help="2. lose every Nth answer")
    parser.add_argument("--settle", type=float, default=100.0, help="2. seconds to settle")
    parser.add_argument(
        "--hand-in", action="store_true", help="run networks serve does not know yet"
    )
    args = parser.parse_args()
    chosen = [name.strip().lower() for name in args.networks.split(",") if name.strip()]
    unknown = sorted(set(chosen) - set(NETWORKS))
    if unknown:
        parser.error(f"unknown networks {unknown}: use some of {','.join(NETWORKS)}")
    separator = "&" if "?" in args.database_url else "?"
    url = f"{args.database_url}{separator}options=-csearch_path%3D{SCHEMA}"
    print(machine_line())
    with bench_home("socialgen-bench-networks-") as home:
        env = bench_env(
            home,
            url,
            SOCIALGEN_ALLOW_PRIVATE_URLS="1",
            SOCIALGEN_NETWORK_TIMEOUT=str(TIMEOUT),
        )
        # This process opens the same store as the servers it starts.
        os.environ.clear()
        os.environ.update(env)
        schema(args.database_url, create=True)
        try:
            _run(args, chosen, env, home)
        finally:
            schema(args.database_url, create=False)


def _run(args: argparse.Namespace, chosen: list[str], env: dict[str, str], home: Path) -> None:
    from socialgen.app.runtime import Runtime
    from socialgen.publishing.registry import Networks
    from socialgen.store.engine import read_session
    from socialgen.workspaces.service import default_workspace

    skipped = {name: why for name in chosen if (why := _unavailable(name, args.hand_in))}
    handed = {
        name: importlib.import_module(f"socialgen.publishing.networks.{name}.adapter")
        for name in chosen
        if name not in skipped and name not in _built_in()
    }
    program = socialgen_command()
    if handed:
        program = [sys.executable, "-c", HAND_IN, ",".join(handed)]
    runtime = Runtime(networks=handed)
    engine = runtime.open_store()
    with read_session(engine) as session:
        workspace = default_workspace(session)
        assert workspace is not None
        workspace_id = workspace.id
    ctx = Ctx(engine, workspace_id, Networks.of(runtime), TIMEOUT, home)
    run = secrets.token_hex(2)
    outcomes = {name: Outcome() for name in chosen}
    with ExitStack() as stack:
        rigs: dict[str, Rig] = {}
        for name in chosen:
            if name in skipped:
                continue
            try:
                rigs[name] = RIGS[name](ctx, stack)
            except Exception as error:  # a server that would not start, a connect refused
                skipped[name] = f"could not set up ({_said(error)})"
        media = save_media(ctx) if any(rig.media for rig in rigs.values()) else None
        _measure(rigs, outcomes, ctx, args, run, media, (env, program, home))
    for name in chosen:
        if name in skipped:
            print(f"{name}: skipped: {skipped[name]}")
            continue
        for line in outcomes[name].lines:
            print(f"{name}: {line}")
    print("servers and faults:")
    for name, rig in rigs.items():
        print(f"  {name}: {rig.how}")
    if rigs:
        print(
            "  2.: the burst becomes due the moment publish-due's first connection shows "
            "in pg_stat_activity; the serves poll every 1 s"
        )


def _measure(
    rigs: dict[str, Rig],
    outcomes: dict[str, Outcome],
    ctx: Ctx,
    args: argparse.Namespace,
    run: str,
    media: Media | None,
    processes: tuple[dict[str, str], list[str], Path],
) -> None:
    """1. with one serve, then 2. with two serves and the cron, network by network."""
    env, program, home = processes
    if not rigs:
        return
    with serve(env, home / "serve-latency.log", cwd=REPO, program=program):
        for name, rig in rigs.items():

            def timing(rig: Rig = rig) -> str:
                return latency(ctx, rig, args.posts, run, media)

            _step(outcomes[name], timing)
    with ExitStack() as serves:
        for n in (1, 2):
            log = home / f"serve-burst-{n}.log"
            serves.enter_context(serve(env, log, cwd=REPO, program=program))
        for name, rig in rigs.items():

            def racing(rig: Rig = rig) -> str:
                return burst(ctx, rig, args, run, media, (env, program))

            _step(outcomes[name], racing)


def _step(outcome: Outcome, measure: Callable[[], str]) -> None:
    try:
        outcome.lines.append(measure())
    except Exception as error:  # one network's failure does not stop the others
        outcome.lines.append(f"failed: {_said(error)}")


def latency(ctx: Ctx, rig: Rig, count: int, run: str, media: Media | None) -> str:
    from socialgen.kit.clock import utcnow

    later = utcnow() + timedelta(hours=1)
    texts = [_text(rig, run, "l", i) for i in range(count)]
    ids = [queue(ctx, rig.latency_account, later, text, media if rig.media else None)
           for text in texts]  # fmt: skip
    start = utcnow() + timedelta(seconds=1.5)
    make_due(ctx.engine, ids, start, step=0.2)
    rows = settle(ctx.engine, ids, 60 + count * 0.2)
    lags = Samples(
        [(row.published_at - row.due_at).total_seconds() for row in rows if row.published_at]
    )
    states = Counter(row.state for row in rows)
    held = _tokens(rig.held(), run, "l")
    duplicates = sum(n - 1 for n in held.values() if n > 1)
    figures = "no post went live"
    if lags.values:
        figures = f"p50 {lags.median:.2f} s, p95 {lags.p95:.2f} s, max {lags.max:.2f} s"
    return (
        f"1. due -> live, 1 serve, {count} posts due 0.2 s apart: {figures} "
        f"({_states(states)}; on the server {len(held)} of them, {duplicates} duplicates)"
    )


def burst(
    ctx: Ctx,
    rig: Rig,
    args: argparse.Namespace,
    run: str,
    media: Media | None,
    processes: tuple[dict[str, str], list[str]],
) -> str:
    from socialgen.kit.clock import utcnow

    env, program = processes
    count, every = args.burst, args.every
    later = utcnow() + timedelta(hours=1)
    texts = [_text(rig, run, "b", i) for i in range(count)]
    ids = [queue(ctx, rig.burst_account, later, text, media if rig.media else None)
           for text in texts]  # fmt: skip
    rig.faults.every = every
    # The serves poll every second, the cron takes a second or more to start: the
    # posts become due the moment the cron opens the store, so all three race for them.
    cron = subprocess.Popen(
        [*program, "publish-due", "--json"],
        env=env | {"PGAPPNAME": CRON_APP},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=REPO,
    )
    _wait_for_cron(ctx.engine, cron)
    due = utcnow()
    make_due(ctx.engine, ids, due, step=0.0)
    out, err = cron.communicate(timeout=300)
    rows = settle(ctx.engine, ids, args.settle)
    rig.faults.every = 0
    states = Counter(row.state for row in rows)
    by_key = {_key(run, "b", i): row for i, row in enumerate(rows)}
    held = _tokens(rig.held(), run, "b")
    duplicates = sum(n - 1 for n in held.values() if n > 1)
    missing = [k for k, row in by_key.items() if row.state == "published" and k not in held]
    lost = list(_tokens(rig.lost(), run, "b"))
    found = sum(1 for key in lost if by_key[key].state == "published")
    unknown = sum(1 for key in lost if by_key[key].state == "unknown")
    module = ctx.networks.module(rig.network)
    looks = [flag for flag in ("FINDS_ITS_POSTS", "IDEMPOTENT") if getattr(module, flag, False)]
    fate = f"lost answers found again {found}/{len(lost)}, unknown {unknown}/{len(lost)}"
    if not looks:
        fate = (
            f"lost answers left unknown {unknown}/{len(lost)} (the network cannot look: "
            f"by design), found again {found}/{len(lost)}"
        )
    line = (
        f"2. {count} posts due at once, 2 serve + publish-due ({_cron(cron, out, err)}), "
        f"every {every}th create's answer lost ({len(lost)} lost): {_states(states)}; "
        f"on the server {len(held)} of them, DUPLICATES {duplicates}; {fate}"
        + (f" ({' and '.join(looks)})" if looks else "")
    )
    if rig.sent is not None:
        sent = _tokens(rig.sent(), run, "b")
        line += f"; {rig.sent_again} {sum(n - 1 for n in sent.values() if n > 1)}"
    if missing:
        line += f"; PUBLISHED BUT NOT ON THE SERVER {len(missing)}"
    if duplicates:
        twice = sorted(t for t, n in held.items() if n > 1)
        line += f" (held more than once: {', '.join(twice)})"
    stamps = [row.published_at for row in rows if row.published_at]
    if stamps:
        line += f"; last published {(max(stamps) - due).total_seconds():.1f} s after due"
    return line


def _key(run: str, phase: str, i: int) -> str:
    """What makes a post's text its own: found in what the server holds."""
    return f"{run}-{phase}{i:03d}"


def _text(rig: Rig, run: str, phase: str, i: int) -> str:
    return f"Bench {rig.network} {_key(run, phase, i)}: small teams ship weekly."


def _tokens(texts: list[str], run: str, phase: str) -> Counter[str]:
    pattern = re.compile(rf"{run}-{phase}\d{{3}}")
    return Counter(found for text in texts for found in pattern.findall(text))


def _wait_for_cron(engine: Engine, cron: subprocess.Popen[bytes]) -> None:
    """Until the cron's first connection shows in pg_stat_activity (30 s at most)."""
    from sqlalchemy import text

    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and cron.poll() is None:
        with engine.connect() as connection:
            seen = connection.execute(
                text("SELECT count(*) FROM pg_stat_activity WHERE application_name = :name"),
                {"name": CRON_APP},
            ).scalar()
        if seen:
            return
        time.sleep(0.01)


def _cron(cron: subprocess.Popen[bytes], out: bytes, err: bytes) -> str:
    """publish-due's exit status and its own counts (what it took in the race)."""
    try:
        summary = json.loads(out)
    except ValueError:
        return f"exit {cron.returncode}: {err.decode(errors='replace')[-300:]!r}"
    counts = [f"{n} {name}" for name, n in summary.items() if isinstance(n, int) and n]
    return f"exit {cron.returncode}, it took: {', '.join(counts) or 'none'}"


def _states(states: Counter[str]) -> str:
    shown = [f"{states.get(name, 0)} {name}" for name in ("published", "unknown", "failed")]
    shown.append(f"{states.get('queued', 0) + states.get('publishing', 0)} queued")
    shown += [f"{n} {name}" for name, n in states.items() if name in ("missed",)]
    return ", ".join(shown)


# --- which networks run --------------------------------------------------------------


def _built_in() -> tuple[str, ...]:
    from socialgen.publishing.registry import BUILT_IN

    return BUILT_IN


def _unavailable(name: str, hand_in: bool) -> str:
    """Why `name` cannot run now ("" when it can)."""
    try:
        importlib.import_module(f"socialgen.publishing.networks.{name}.adapter")
    except Exception as error:  # still being written: say so, run the others
        return f"its module does not import ({_said(error)})"
    if name not in _built_in() and not hand_in:
        return (
            "not in socialgen.publishing.registry.BUILT_IN yet, so `socialgen serve` "
            "cannot publish to it (--hand-in runs it through a Runtime handed the module)"
        )
    return ""


def _said(error: BaseException) -> str:
    words = str(error).strip().splitlines()
    return f"{type(error).__name__}: {words[0][:200] if words else ''}".rstrip(": ")


if __name__ == "__main__":
    main()
