#!/usr/bin/env python3
"""`socialgen posts export` as a backup, read back: wall times, file sizes, and whether
the restored workspace gives the same insights.

A store gets --posts published posts with their counts and a media flag (a history
CSV through `posts import`, as a creator brings one in: two years of posts, counts
skewed as real engagement is, media on about a third with an effect planted). Then,
for CSV and JSON: `posts export -f FMT -o FILE` (timed, its size per post),
`posts import FILE -w FRESH` into a new workspace (timed), the same import again
(timed: every row is a post the workspace has, nothing written), and `insights
--json` of both workspaces, whose findings, inconclusive and untested features, slots
and series (ids aside) must be equal.

Every command is the real console script in a process of its own, on a fresh
SQLite store in a temporary SOCIALGEN_HOME (or on an empty database you name with
`--database-url`). An import file may hold 16 MB (kit/local_files.py): the
figures say how many posts a backup can hold within it.

    .venv/bin/python bench/posts_backup.py
    .venv/bin/python bench/posts_backup.py --posts 20000 --json -
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import random
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from harness import Report, bench_env, bench_home, machine_line, socialgen_command

IMPORT_FILE_BYTES = 16 * 1024 * 1024
HEADER = ["status", "publishedAt", "likes", "reposts", "comments", "impressions", "media"]
WORDS = ("ship", "weekly", "lessons", "team", "focus", "write", "habit", "plan", "build")
COMPARED = ("posts", "findings", "inconclusive", "untested", "slots", "bestSlots")


def write_history(path: Path, count: int) -> None:
    rng = random.Random(40)
    start = datetime.now(UTC) - timedelta(days=730)
    step = timedelta(days=729) / max(count, 1)
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow([*HEADER, "postUrl", "content"])
        for number in range(count):
            media = rng.random() < 0.35
            hook = "Why does this work?" if rng.random() < 0.3 else "Here is what I learned."
            text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 40)))
            level = math.log(12) + (math.log(1.4) if media else 0) + rng.gauss(0, 0.5)
            likes = max(0, round(math.exp(level)))
            writer.writerow(
                [
                    "published",
                    (start + step * number).isoformat(timespec="seconds"),
                    likes,
                    likes // 4,
                    likes // 6,
                    likes * 40 if number % 2 else "",
                    "true" if media else "false",
                    f"https://b.sky/p/{number}" if number % 3 == 0 else "",
                    f"{hook}\n\n{text} #{number}",
                ]
            )


def cli(env: dict[str, str], *args: str) -> tuple[float, Any]:
    began = time.perf_counter()
    done = subprocess.run(
        [*socialgen_command(), *args, "--json"], env=env, capture_output=True, text=True
    )
    seconds = time.perf_counter() - began
    if done.returncode != 0:
        sys.exit(f"socialgen {' '.join(args)} failed: {done.stderr.strip()}")
    return seconds, json.loads(done.stdout)


def shown(report: dict[str, Any]) -> dict[str, Any]:
    kept = {key: report[key] for key in COMPARED}
    kept["series"] = [{k: v for k, v in p.items() if k != "postId"} for p in report["series"]]
    return kept


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--posts", type=int, default=5000)
    parser.add_argument("--database-url", help="an empty database (default: SQLite)")
    Report.add_option(parser)
    args = parser.parse_args()
    report = Report("posts_backup")
    print(machine_line())
    failed = False
    with bench_home("socialgen-backup-") as home:
        env = bench_env(home, args.database_url)
        history = home / "history.csv"
        write_history(history, args.posts)
        seconds, _ = cli(env, "posts", "import", str(history))
        print(f"{args.posts:,} published posts imported in {seconds:.1f} s")
        _, original = cli(env, "insights", "--tz", "UTC")
        print(
            "original findings: "
            + ", ".join(f"{f['feature']} x{f['effect']}" for f in original["findings"])
        )
        for fmt in ("csv", "json"):
            target = home / f"backup.{fmt}"
            exported, _ = cli(env, "posts", "export", "-f", fmt, "-o", str(target))
            size = target.stat().st_size
            _, made = cli(env, "workspace", "create", f"Restored {fmt}")
            fresh = made["workspaceId"]
            restored, first = cli(env, "posts", "import", str(target), "-w", fresh)
            again, second = cli(env, "posts", "import", str(target), "-w", fresh)
            _, copy = cli(env, "insights", "-w", fresh, "--tz", "UTC")
            same = shown(copy) == shown(original)
            idempotent = second["imported"] == 0 and second["skipped"]["existing"] == args.posts
            failed |= not (same and idempotent and first["imported"] == args.posts)
            per_post = size / args.posts
            print(
                f"{fmt}: export {exported:.2f} s, {size / 1e6:.1f} MB ({per_post:.0f} B a post, "
                f"{IMPORT_FILE_BYTES // per_post:,.0f} posts fit an import file); "
                f"import {restored:.2f} s; again {again:.2f} s "
                f"({second['skipped']['existing']:,} skipped); same insights: {same}"
            )
            for name, value in (
                ("export_s", exported),
                ("bytes_per_post", per_post),
                ("import_s", restored),
                ("import_again_s", again),
                ("same_insights", same),
            ):
                report.add(f"{fmt}_{name}", value)
    report.write(args.json)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
