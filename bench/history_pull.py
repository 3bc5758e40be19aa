#!/usr/bin/env python3
"""How a history pull ends against a hostile server: its time and its memory.

A Mastodon look-alike on 127.0.0.1 (tests/hostile_mastodon.py) answers
`socialgen accounts history` in each of these ways, one fresh home each:

* fine: two pages of 40 statuses, then an empty one (the baseline);
* endless: a full page every time with a new cursor (stops at history_pages);
* same: the same page whatever the cursor asks (stops at the second page);
* huge: one answer of --huge-mb MB, with its Content-Length, and without one;
* slow: a page trickled a byte every 20 ms (stops at history_deadline, --deadline).

For each: the wall time of the command, its peak RSS (the child's ru_maxrss), the
pages the server was asked, what it sent, and what the pull said it stopped for.

    .venv/bin/python bench/history_pull.py
    .venv/bin/python bench/history_pull.py --huge-mb 300 --deadline 10 --pages 500
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

# isort: off
# The harness first: it puts the repository (and so `tests`) on sys.path.
from harness import bench_env, bench_home, machine_line, socialgen_command

# isort: on
from tests.hostile_mastodon import hostile_mastodon

TOKEN = "bench-hostile-token-0123456789"


# A launcher of its own per command: its children's ru_maxrss is that command's peak
# alone (this process's would be the largest of every case so far).
PEAK_OF = (
    "import resource, subprocess, sys; done = subprocess.run(sys.argv[1:]); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); "
    "sys.exit(done.returncode)"
)


def run(command: list[str], env: dict[str, str], stdin: str = "") -> tuple[float, int, str]:
    """Wall seconds, the command's peak RSS in MB, and its stdout."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", PEAK_OF, *command],
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
    )
    took = time.perf_counter() - started
    *said, peak = done.stderr.strip().splitlines() or ["0"]
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed: {' '.join(said)}")
    return took, int(peak) // 1024, done.stdout


def case(name: str, args: argparse.Namespace, **server: object) -> None:
    mode = str(server.pop("mode"))
    with bench_home("history-pull-") as home, hostile_mastodon(mode, **server) as hostile:
        env = bench_env(
            home,
            SOCIALGEN_ALLOW_PRIVATE_URLS="1",
            SOCIALGEN_HISTORY_DEADLINE=str(args.deadline),
            SOCIALGEN_HISTORY_PAGES=str(args.pages),
        )
        program = socialgen_command()
        added = run(
            [*program, "accounts", "add", "mastodon", "--instance", hostile.base_url,
             "--token-stdin", "--json"],
            env,
            stdin=TOKEN + "\n",
        )  # fmt: skip
        account = json.loads(added[2])["id"]
        took, peak, out = run([*program, "accounts", "history", account, "--json"], env)
        summary = json.loads(out)
        stopped = summary["stopped"] or "ran to its end"
        print(
            f"{name:<18} {took:6.1f} s  peak RSS {peak:4d} MB  pages {hostile.pages:4d}  "
            f"sent {hostile.sent / 1024 / 1024:7.1f} MB  posts {summary['created']:6d}  "
            f"{stopped}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--huge-mb", type=int, default=300, help="the huge answer's size")
    parser.add_argument("--deadline", type=float, default=10.0, help="history_deadline, s")
    parser.add_argument("--pages", type=int, default=500, help="history_pages")
    args = parser.parse_args()
    print(machine_line())
    print(f"history_deadline {args.deadline:g} s, history_pages {args.pages}")
    huge = args.huge_mb * 1024 * 1024
    case("fine", args, mode="fine")
    case("endless", args, mode="endless")
    case("same page", args, mode="same")
    case("huge, sized", args, mode="huge", huge_bytes=huge)
    case("huge, unsized", args, mode="huge", huge_bytes=huge, declare_length=False)
    case("slow (20 ms/byte)", args, mode="slow", trickle_seconds=0.02)


if __name__ == "__main__":
    main()
