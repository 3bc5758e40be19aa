#!/usr/bin/env python3
"""Start-up time of the `socialgen` command.

Measures the wall time of whole subprocesses, N runs each (default 20),
interleaved round-robin so that load from elsewhere on the machine hits all alike:

* `python -c "import typer"`  - the floor any Typer CLI pays (baseline);
* `socialgen --help`          - must stay light: no store, no web stack;
* `socialgen posts recent`    - a real command on an empty store in a temporary
  SOCIALGEN_HOME (one warm-up run first creates and migrates the store).

Reports median and p90 per command, the ratio help/typer, whether the targets
hold (`socialgen --help` under 0.25 s and under 2x `import typer`), and which
heavy modules `socialgen --help` imports (from `python -X importtime`, i.e.
PYTHONPROFILEIMPORTTIME, on the real console script).

Run from the repository root:

    .venv/bin/python bench/startup.py            # 20 runs each
    .venv/bin/python bench/startup.py --runs 50
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

HEAVY_MODULES = (
    "sqlalchemy",
    "sqlmodel",
    "fastapi",
    "uvicorn",
    "alembic",
    "litellm",
    "llama_cpp",
    "pydantic",
)
HELP_TARGET_SECONDS = 0.25
HELP_TARGET_RATIO = 2.0


@dataclass(frozen=True)
class Timing:
    label: str
    samples: list[float]

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def p90(self) -> float:
        return percentile(self.samples, 90)


@dataclass(frozen=True)
class ImportRecord:
    module: str
    self_us: int
    cumulative_us: int
    depth: int


def percentile(samples: Sequence[float], pct: float) -> float:
    """Nearest-rank percentile (no interpolation; honest for small N)."""
    ordered = sorted(samples)
    rank = max(1, math.ceil(pct * len(ordered) / 100))
    return ordered[min(rank, len(ordered)) - 1]


def socialgen_command() -> list[str]:
    """The installed console script next to this interpreter, else `python -m socialgen`."""
    script = Path(sys.executable).parent / "socialgen"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "socialgen"]


def clean_env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("SOCIALGEN_DATABASE_URL", None)
    env.pop("SOCIALGEN_WORKSPACE", None)
    env["SOCIALGEN_HOME"] = str(home)
    env.pop("PYTHONPROFILEIMPORTTIME", None)
    return env


def run_once(command: Sequence[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    result = subprocess.run(
        command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False
    )
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(
            f"{' '.join(command)} failed ({result.returncode}):\n"
            + result.stderr.decode(errors="replace")
        )
    return elapsed


@dataclass(frozen=True)
class Case:
    label: str
    command: list[str]
    env: dict[str, str]


def measure(cases: Sequence[Case], runs: int) -> list[Timing]:
    """Round-robin over the cases, so a change of machine load hits them all alike."""
    samples: list[list[float]] = [[] for _ in cases]
    for _ in range(runs):
        for case, sink in zip(cases, samples, strict=True):
            sink.append(run_once(case.command, case.env))
    return [Timing(case.label, sink) for case, sink in zip(cases, samples, strict=True)]


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


def print_timings(timings: Sequence[Timing], baseline: Timing) -> None:
    width = max(len(timing.label) for timing in timings)
    print(f"{'command':<{width}}  {'median':>9}  {'p90':>9}  {'x typer':>8}")
    for timing in timings:
        ratio = timing.median / baseline.median
        print(
            f"{timing.label:<{width}}  {timing.median * 1000:7.1f}ms  "
            f"{timing.p90 * 1000:7.1f}ms  {ratio:7.2f}x"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=20, help="runs per command (default 20)")
    parser.add_argument("--top", type=int, default=8, help="top imports to list (default 8)")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")

    socialgen = socialgen_command()
    home = Path(tempfile.mkdtemp(prefix="socialgen-bench-startup-"))
    try:
        env = clean_env(home)
        plain_env = dict(env, TYPER_USE_RICH="0")
        cases = [
            Case("python -c 'import typer'", [sys.executable, "-c", "import typer"], env),
            Case("socialgen --help", [*socialgen, "--help"], env),
            Case("socialgen posts recent", [*socialgen, "posts", "recent"], env),
            # Diagnostic, not a target: the same help without Typer's rich renderer.
            Case("socialgen --help, TYPER_USE_RICH=0", [*socialgen, "--help"], plain_env),
        ]
        # Warm-up: the OS page cache, .pyc files, and the store for `posts recent`.
        for case in cases:
            run_once(case.command, case.env)
        baseline, help_run, recent, plain_help = measure(cases, args.runs)
        help_imports = import_profile([*socialgen, "--help"], env)
        recent_imports = import_profile([*socialgen, "posts", "recent"], env)
    finally:
        shutil.rmtree(home, ignore_errors=True)

    print(f"socialgen start-up, {args.runs} runs each ({' '.join(socialgen)})")
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    print(f"python {sys.version.split()[0]} on {sys.platform}, {os.cpu_count()} CPUs, load {load}")
    print()
    print_timings([baseline, help_run, recent, plain_help], baseline)
    print("(the TYPER_USE_RICH=0 row is a diagnostic: plain click help, no rich renderer)")
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
    return 0 if under_time and under_ratio else 1


if __name__ == "__main__":
    sys.exit(main())
