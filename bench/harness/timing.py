"""Repeated runs, interleaved, and what to say about their samples."""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Samples:
    """Seconds (or any figure) of repeated runs of one case."""

    values: Sequence[float]

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    def percentile(self, pct: float) -> float:
        """Nearest rank, no interpolation: honest for a small number of runs."""
        ordered = sorted(self.values)
        rank = max(1, math.ceil(pct * len(ordered) / 100))
        return ordered[min(rank, len(ordered)) - 1]

    @property
    def p95(self) -> float:
        return self.percentile(95)

    @property
    def mean(self) -> float:
        return statistics.fmean(self.values)

    @property
    def min(self) -> float:
        return min(self.values)

    @property
    def max(self) -> float:
        return max(self.values)

    def ratio(self, baseline: Samples) -> float:
        """Median against the baseline's median, both from the same interleaved run."""
        return self.median / baseline.median

    def spread(self, scale: float = 1.0, fmt: str = "{:.1f}") -> str:
        return "[" + ", ".join(fmt.format(value * scale) for value in self.values) + "]"


def timed(fn: Callable[[], object]) -> Callable[[], float]:
    """A case whose figure is its own wall time (perf_counter)."""

    def run() -> float:
        started = time.perf_counter()
        fn()
        return time.perf_counter() - started

    return run


def interleave(
    cases: Mapping[str, Callable[[], T]], runs: int, warmup: int = 0
) -> dict[str, list[T]]:
    """Every case once per round, `runs` rounds (after `warmup` rounds thrown away), so a
    change of machine load between rounds hits every case alike and the ratios hold."""
    for _ in range(warmup):
        for case in cases.values():
            case()
    results: dict[str, list[T]] = {name: [] for name in cases}
    for _ in range(runs):
        for name, case in cases.items():
            results[name].append(case())
    return results


def repeat_calls(fn: Callable[[], object], calls: int, warmup: int = 10) -> Samples:
    """Wall time of each of `calls` calls of a cheap function, after `warmup` calls."""
    for _ in range(warmup):
        fn()
    return Samples([timed(fn)() for _ in range(calls)])


def timed_runs(runs: int, fn: Callable[[], T]) -> tuple[Samples, T]:
    """Wall time of each of `runs` calls (no warm-up), and what the last call returned:
    for a stage whose output the next stage takes."""
    if runs < 1:
        raise ValueError("runs must be at least 1")
    values: list[float] = []
    for _ in range(runs):
        started = time.perf_counter()
        result = fn()
        values.append(time.perf_counter() - started)
    return Samples(values), result
