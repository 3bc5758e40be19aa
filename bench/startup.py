#!/usr/bin/env python3
"""Start-up time of the `socialgen` command.

Measures the wall time of whole subprocesses, N runs each (default 20),
interleaved round-robin so that load from elsewhere on the machine hits all alike:

* `python -c "import typer"`  - the floor any Typer CLI pays (baseline);
* `socialgen --help`          - must stay light: no store, no web stack;
* `socialgen posts recent`, `socialgen posts timeline` - real commands on a small
  store in a temporary SOCIALGEN_HOME (created, migrated and given 30 posts by
  `socialgen posts import` before the runs).

Reports median and p90 per command, the ratio help/typer, whether the targets
hold (`socialgen --help` under 0.25 s and under 2x `import typer`; `posts recent` and
`posts timeline` under 4x `import typer`), and which
heavy modules `socialgen --help` imports (from `python -X importtime`, i.e.
PYTHONPROFILEIMPORTTIME, on the real console script).

With --before-src DIR (another checkout's src/, e.g. the tree before a change), the
three socialgen commands also run from DIR, put first on the child's PYTHONPATH, on a
small store of their own (the two trees' migrations may differ), in the same rounds:
a "before:" row per command and an after/before ratio. The targets judge this tree
only. Both trees need their bytecode (python -m compileall DIR) if
PYTHONDONTWRITEBYTECODE is set, or one pays for compiling.

Prints the timing table (median, p90, x typer), the two targets, and per command the
heavy modules and costliest top-level imports; exits 1 when a target is missed. Timing,
the temporary home and the table come from the bench harness (bench/harness/).

Run from the repository root:

    .venv/bin/python bench/startup.py            # 20 runs each
    .venv/bin/python bench/startup.py --runs 50 --json startup.json
    .venv/bin/python bench/startup.py --before-src ../before/src
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path

from harness import (
    Report,
    Samples,
    Table,
    bench_env,
    bench_home,
    interleave,
    machine_line,
    socialgen_command,
    timed,
    tree_command,
)

HEAVY_MODULES = (
    "sqlalchemy",
    "sqlmodel",
    "fastapi",
    "uvicorn",
    "alembic",
    "litellm",
    "llama_cpp",
    "xllamacpp",
    "pydantic",
)
HELP_TARGET_SECONDS = 0.25
HELP_TARGET_RATIO = 2.0
LISTING_TARGET_RATIO = 4.0
LISTINGS = ("socialgen posts recent", "socialgen posts timeline")
SMALL_STORE_POSTS = 30
BEFORE = "before: "


@dataclass(frozen=True)
class ImportRecord:
    module: str
    self_us: int
    cumulative_us: int
    depth: int


def run_once(command: Sequence[str], env: dict[str, str]) -> None:
    result = subprocess.run(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False
    )
    if result.returncode != 0:
        raise SystemExit(
            f"{' '.join(command)} failed ({result.returncode}):\n"
            + result.stderr.decode(errors="replace")
        )


def import_profile(command: Sequence[str], env: dict[str, str]) -> list[ImportRecord]:
    """Every module the command imports, from the interpreter's own import timer."""
    profiled = dict(env, PYTHONPROFILEIMPORTTIME="1")
    result = subprocess.run(
        command, env=profiled, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False
    )
    records: list[ImportRecord] = []
    for line in result.stderr.decode(errors="replace").splitlines():
        if not line.startswith("import time:") or "[us]" in line:
            continue
        self_us, cumulative_us, name = line.removeprefix("import time:").split("|", 2)
        depth = (len(name) - len(name.lstrip(" "))) // 2
        records.append(ImportRecord(name.strip(), int(self_us), int(cumulative_us), depth))
    return records


def heavy_imports(records: Sequence[ImportRecord]) -> dict[str, int]:
    """Heavy top-level packages imported, with the cumulative time of their own import."""
    found: dict[str, int] = {}
    for record in records:
        top = record.module.split(".", 1)[0]
        if top in HEAVY_MODULES and record.module == top:
            found[top] = found.get(top, 0) + record.cumulative_us
        elif top in HEAVY_MODULES:
            found.setdefault(top, 0)
    return found


def top_level_costs(records: Sequence[ImportRecord], limit: int) -> list[ImportRecord]:
    """The costliest imports made directly by the program (depth 0)."""
    roots = [record for record in records if record.depth == 0]
    return sorted(roots, key=lambda record: record.cumulative_us, reverse=True)[:limit]


def small_store(socialgen: Sequence[str], env: dict[str, str], home: Path) -> None:
    """Create the store and give it a few drafts and scheduled posts."""
    ahead = datetime.now(UTC) + timedelta(days=3)
    rows = ["date,status,content"] + [
        f"{(ahead + timedelta(hours=n)).isoformat() if n % 3 == 0 else ''},"
        f"{'scheduled' if n % 3 == 0 else 'draft'},Post number {n} about shipping weekly"
        for n in range(SMALL_STORE_POSTS)
    ]
    plan = home / "small.csv"
    plan.write_text("\n".join(rows) + "\n", encoding="utf-8")
    run_once([*socialgen, "posts", "import", str(plan)], env)


def before_cases(
    socialgen: Sequence[str], env: dict[str, str], home: Path, before_src: Path
) -> dict[str, tuple[list[str], dict[str, str]]]:
    """The socialgen commands from `before_src`, on a small store that tree made."""
    before_home = home / "before"
    before_home.mkdir()
    before_env = env | {"PYTHONPATH": str(before_src), "SOCIALGEN_HOME": str(before_home)}
    socialgen = tree_command(before_src, home)  # that tree's own entry point
    small_store(socialgen, before_env, before_home)
    return {
        f"{BEFORE}{label}": ([*socialgen, *label.split()[1:]], before_env)
        for label in ("socialgen --help", *LISTINGS)
    }


def print_before_after(timings: dict[str, Samples], report: Report) -> None:
    print()
    table = Table("command", "before", "after", "after/before")
    for label, before in timings.items():
        if not label.startswith(BEFORE):
            continue
        after = timings[label.removeprefix(BEFORE)]
        ratio = after.ratio(before)
        table.add(
            label.removeprefix(BEFORE),
            f"{before.median * 1000:.1f}ms",
            f"{after.median * 1000:.1f}ms",
            f"{ratio:.3f}x",
        )
        report.add(f"{label} after/before", ratio)
    table.print()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=20, help="runs per command (default 20)")
    parser.add_argument("--top", type=int, default=8, help="top imports to list (default 8)")
    parser.add_argument(
        "--before-src",
        type=Path,
        help="also run the socialgen commands from this checkout's src/: before and after",
    )
    Report.add_option(parser)
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    if args.before_src is not None and not (args.before_src / "socialgen").is_dir():
        parser.error(f"--before-src {args.before_src}: no socialgen package there")

    socialgen = socialgen_command()
    with bench_home("socialgen-bench-startup-") as home:
        env = bench_env(home)
        small_store(socialgen, env, home)
        plain_env = dict(env, TYPER_USE_RICH="0")
        cases = {
            "python -c 'import typer'": ([sys.executable, "-c", "import typer"], env),
            "socialgen --help": ([*socialgen, "--help"], env),
            "socialgen posts recent": ([*socialgen, "posts", "recent"], env),
            "socialgen posts timeline": ([*socialgen, "posts", "timeline"], env),
            # Diagnostic, not a target: the same help without Typer's rich renderer.
            "socialgen --help, TYPER_USE_RICH=0": ([*socialgen, "--help"], plain_env),
        }
        if args.before_src is not None:
            cases |= before_cases(socialgen, env, home, args.before_src.resolve())
        # Warm-up round: the OS page cache and .pyc files.
        runs = interleave(
            {
                label: timed(partial(run_once, command, env))
                for label, (command, env) in cases.items()
            },
            args.runs,
            warmup=1,
        )
        help_imports = import_profile([*socialgen, "--help"], env)
        recent_imports = import_profile([*socialgen, "posts", "recent"], env)
    timings = {label: Samples(values) for label, values in runs.items()}
    baseline, help_run = timings["python -c 'import typer'"], timings["socialgen --help"]

    print(f"socialgen start-up, {args.runs} runs each ({' '.join(socialgen)})")
    print(machine_line())
    print()
    table = Table("command", "median", "p90", "x typer")
    report = Report("startup")
    for label, samples in timings.items():
        ratio = samples.ratio(baseline)
        table.add(
            label,
            f"{samples.median * 1000:.1f}ms",
            f"{samples.percentile(90) * 1000:.1f}ms",
            f"{ratio:.2f}x",
        )
        report.add(
            label, {"median_s": samples.median, "p90_s": samples.percentile(90), "ratio": ratio}
        )
    table.print()
    print("(the TYPER_USE_RICH=0 row is a diagnostic: plain click help, no rich renderer)")
    if args.before_src is not None:
        print_before_after(timings, report)
    print()

    ratio = help_run.median / baseline.median
    under_time = help_run.median < HELP_TARGET_SECONDS
    under_ratio = ratio < HELP_TARGET_RATIO
    print("targets for `socialgen --help` (median):")
    print(
        f"  under {HELP_TARGET_SECONDS:.2f} s        : {help_run.median:.3f} s  "
        f"{'OK' if under_time else 'MISSED'}"
    )
    print(
        f"  under {HELP_TARGET_RATIO:.0f}x import typer : {ratio:.2f}x     "
        f"{'OK' if under_ratio else 'MISSED'}"
    )
    listings_ok = True
    for label in LISTINGS:
        listing_ratio = timings[label].ratio(baseline)
        listings_ok &= listing_ratio < LISTING_TARGET_RATIO
        print(
            f"`{label.removeprefix('socialgen ')}` under {LISTING_TARGET_RATIO:.0f}x import typer: "
            f"{listing_ratio:.2f}x  {'OK' if listing_ratio < LISTING_TARGET_RATIO else 'MISSED'}"
        )
    print()

    for label, records in (
        ("socialgen --help", help_imports),
        ("socialgen posts recent", recent_imports),
    ):
        heavy = heavy_imports(records)
        total_ms = sum(record.cumulative_us for record in records if record.depth == 0) / 1000
        print(f"`{label}`: {len(records)} modules imported, {total_ms:.1f} ms of import time")
        for name in HEAVY_MODULES:
            if name in heavy:
                print(f"  heavy  {name:<10} imported   ({heavy[name] / 1000:6.1f} ms cumulative)")
            else:
                print(f"  heavy  {name:<10} not imported")
        print("  costliest top-level imports (-X importtime, cumulative):")
        for record in top_level_costs(records, args.top):
            print(f"    {record.cumulative_us / 1000:7.1f} ms  {record.module}")
        print()
    report.write(args.json)
    return 0 if under_time and under_ratio and listings_ok else 1


if __name__ == "__main__":
    sys.exit(main())
