"""What separates the creator's better posts from the rest, without calling noise a
pattern.

One least-squares regression of the residual (log engagement relative to the rolling
baseline) on every candidate feature at once, so "posts with media are also longer"
is not counted twice, with HC3 heteroskedasticity-robust standard errors (MacKinnon &
White 1985). A dozen features are tested at once. Given the analysis' random deals of
the counts (up to analysis.EXACT_NULL_POSTS posts), a finding is a |t| that beats the
largest |t| of any feature in all but NULL_ALPHA of the deals (Westfall & Young's
max-T), with every interval widened to that critical value. Otherwise Student-t
p-values go through the Benjamini-Hochberg procedure at FDR q, and every interval is
widened to the matching false-coverage-rate level 1 - R*q/m (Benjamini & Yekutieli
2005; R findings of m tests). Either way a finding's interval excludes no effect (1.0)
and an inconclusive one's includes it, always.

Each standard error is the larger of the HC3 one and the conventional one (Angrist &
Pischke, "Mostly Harmless Econometrics", 2009, section 8.1): HC3 reads a feature's
spread from that feature's own posts, and when a dozen posts that all got nothing are
the feature (common for a creator whose posts mostly get nothing: 0.93^12 = 0.42), it
sees no spread at all and calls a few percent "certain". The conventional error reads
the spread from every post.

The fit is numpy's least squares and the sandwich formula, checked against statsmodels'
OLS(cov_type="HC3") in tests/test_insights_analysis.py: importing statsmodels costs
more than a second, which `socialgen insights` cannot afford.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from socialgen.insights.candidates import MIN_SIDE, Category

FDR_Q = 0.05
NULL_ALPHA = 0.05  # with the deals at random: the chance that noise gives any finding


@dataclass(frozen=True)
class Effect:
    feature: str
    effect: float  # multiplier on engagement, exp(coefficient)
    low: float
    high: float
    n: int  # posts with the feature
    p: float

    def view(self) -> dict[str, object]:
        return {
            "feature": self.feature,
            "effect": round(self.effect, 3),
            "low": round(self.low, 3),
            "high": round(self.high, 3),
            "n": self.n,
        }


@dataclass(frozen=True)
class Untested:
    """A feature the posts could not test, and why (every post without media, three
    number hooks in 300 posts): said, so that silence is not read as "no effect"."""

    feature: str
    n: int  # posts with the feature
    reason: str

    def view(self) -> dict[str, object]:
        return {"feature": self.feature, "n": self.n, "reason": self.reason}


@dataclass(frozen=True)
class Findings:
    findings: list[Effect]
    inconclusive: list[Effect]
    untested: list[Untested] = field(default_factory=list)


@dataclass(frozen=True)
class _Test:
    label: str
    contrast: NDArray[np.float64]
    n: int


def find_effects(
    residual: NDArray[np.float64],
    categories: Sequence[Category],
    null: NDArray[np.float64] | None = None,
) -> Findings:
    """`null`: residuals of the same posts with their counts dealt out at random, one
    row per deal (`analysis.null_residuals`). With it, a feature is a finding when its
    |t| beats the largest |t| of any feature in all but NULL_ALPHA of the deals
    (Westfall & Young's max-T), and every interval is widened to that same critical
    value; without it, Benjamini-Hochberg on Student-t p-values."""
    count = residual.size
    columns, tests, untested = _design(count, categories)
    design = np.column_stack([np.ones(count), *columns]) if count else np.empty((0, 1))
    if not tests or count - design.shape[1] < 2:
        return Findings([], [], untested)
    degrees = count - design.shape[1]
    contrasts = np.array([test.contrast for test in tests])
    values, errors = _contrasts_and_errors(design, residual[:, None], contrasts, degrees)
    values, errors = values[:, 0], errors[:, 0]
    from scipy.special import stdtr, stdtrit  # at run time only

    with np.errstate(divide="ignore", invalid="ignore"):
        t_values = np.where(errors > 0, values / errors, 0.0)
    if null is not None and len(null):
        null_values, null_errors = _contrasts_and_errors(design, null.T, contrasts, degrees)
        with np.errstate(divide="ignore", invalid="ignore"):
            null_t = np.where(null_errors > 0, np.abs(null_values / null_errors), 0.0)
        largest = null_t.max(axis=0)
        p_values = (largest[None, :] >= np.abs(t_values)[:, None]).mean(axis=1)
        found = p_values < NULL_ALPHA
        half = float(np.quantile(largest, 1 - NULL_ALPHA)) * errors
    else:
        p_values = np.where(np.isfinite(t_values), 2 * stdtr(degrees, -np.abs(t_values)), 1.0)
        found = benjamini_hochberg(p_values, FDR_Q)
        level = max(int(found.sum()), 1) * FDR_Q / len(tests)
        half = stdtrit(degrees, 1 - level / 2) * errors
    effects = [
        Effect(
            test.label,
            float(np.exp(value)),
            float(np.exp(value - width)),
            float(np.exp(value + width)),
            test.n,
            float(p),
        )
        for test, value, width, p in zip(tests, values, half, p_values, strict=True)
    ]
    strongest = sorted(range(len(effects)), key=lambda i: -abs(values[i]))
    return Findings(
        [effects[i] for i in strongest if found[i]],
        [effects[i] for i in strongest if not found[i]],
        untested,
    )


def benjamini_hochberg(p_values: NDArray[np.float64], q: float) -> NDArray[np.bool_]:
    """Which hypotheses the step-up procedure rejects at false discovery rate `q`."""
    m = p_values.size
    order = np.argsort(p_values)
    below = p_values[order] <= q * np.arange(1, m + 1) / m
    rejected = np.zeros(m, dtype=bool)
    if below.any():
        rejected[order[: int(np.nonzero(below)[0].max()) + 1]] = True
    return rejected


def ols_hc3(
    design: NDArray[np.float64], response: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Least-squares coefficients and their HC3 covariance (public for the test that
    compares it with statsmodels)."""
    return _ols_hc3(design, response)


def _ols_hc3(
    design: NDArray[np.float64], response: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    inverse = np.linalg.pinv(design.T @ design)
    estimate = inverse @ (design.T @ response)
    residual = response - design @ estimate
    leverage = np.einsum("ij,jk,ik->i", design, inverse, design)
    weight = residual**2 / np.clip(1 - leverage, 1e-8, None) ** 2
    meat = (design * weight[:, None]).T @ design
    return estimate, inverse @ meat @ inverse


def _contrasts_and_errors(
    design: NDArray[np.float64],
    responses: NDArray[np.float64],
    contrasts: NDArray[np.float64],
    degrees: int,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Each contrast's estimate and standard error (the larger of HC3 and the
    conventional one), for each column of `responses` at once: (contrasts x columns)."""
    inverse = np.linalg.pinv(design.T @ design)
    estimate = inverse @ (design.T @ responses)
    residual = responses - design @ estimate
    leverage = np.einsum("ij,jk,ik->i", design, inverse, design)
    weight = residual**2 / np.clip(1 - leverage, 1e-8, None)[:, None] ** 2
    lever = design @ inverse @ contrasts.T  # how much each post moves each contrast
    robust = (lever**2).T @ weight
    spread = (residual**2).sum(axis=0) / max(degrees, 1)
    pooled = np.einsum("mj,jk,mk->m", contrasts, inverse, contrasts)[:, None] * spread[None, :]
    values: NDArray[np.float64] = contrasts @ estimate
    return values, np.sqrt(np.maximum(robust, pooled))


def _design(
    count: int, categories: Sequence[Category]
) -> tuple[list[NDArray[np.float64]], list[_Test], list[Untested]]:
    """The dummy columns (without the intercept), the contrasts to test on them, and
    the features that could not be tested."""
    columns: list[NDArray[np.float64]] = []
    pending: list[tuple[str, dict[int, float], int]] = []  # label, {level column: weight}
    untested: list[Untested] = []
    for category in categories:
        sizes = [int(level.mask.sum()) for level in category.levels]
        eligible = [MIN_SIDE <= size <= count - MIN_SIDE for size in sizes]
        untested += [
            Untested(level.label, sizes[i], _too_few(sizes[i], count))
            for i, level in enumerate(category.levels)
            if level.tested and not eligible[i]
        ]
        if not any(eligible[i] and level.tested for i, level in enumerate(category.levels)):
            continue
        if category.contrast == "reference":
            reference = next(i for i, level in enumerate(category.levels) if not level.tested)
        else:
            reference = max((i for i in range(len(sizes)) if eligible[i]), key=sizes.__getitem__)
        own = [i for i in range(len(sizes)) if eligible[i] and i != reference]
        first = len(columns)
        for i in own:
            columns.append(category.levels[i].mask.astype(np.float64))
        place = {level: first + offset for offset, level in enumerate(own)}
        for i, level in enumerate(category.levels):
            if not (eligible[i] and level.tested):
                continue
            weights: dict[int, float] = {}
            if i in place:
                weights[place[i]] = 1.0
            if category.contrast == "rest":
                others = count - sizes[i]
                for j in own:
                    if j != i:
                        weights[place[j]] = -sizes[j] / others
            pending.append((level.label, weights, sizes[i]))
    kept = _independent(count, columns)
    index = {old: new for new, old in enumerate(kept)}
    tests = []
    for label, weights, size in pending:
        if any(column not in index for column in weights):
            # A column it needs duplicated others: cannot be told apart.
            untested.append(Untested(label, size, TOLD_APART))
            continue
        contrast = np.zeros(len(kept) + 1)
        for column, weight in weights.items():
            contrast[index[column] + 1] = weight
        tests.append(_Test(label, contrast, size))
    return [columns[i] for i in kept], tests, untested


TOLD_APART = "the posts that have it are the posts of other features: it cannot be told apart"


def _too_few(size: int, count: int) -> str:
    """Why a level of `size` posts out of `count` is not tested (MIN_SIDE a side)."""
    if size == 0:
        return "no post has it"
    if size == count:
        return "every post has it"
    need = f"a test needs {MIN_SIDE} posts with it and {MIN_SIDE} without"
    if size < MIN_SIDE:
        return f"only {size} of {count} posts have it: {need}"
    return f"all but {count - size} of {count} posts have it: {need}"


def _independent(count: int, columns: list[NDArray[np.float64]]) -> list[int]:
    """Indices of the columns kept: each adds something the intercept and the earlier
    ones do not already say (e.g. every media post is also long: media is dropped).
    Judged on the small Gram matrix, which has the design's rank."""
    design = np.column_stack([np.ones(count), *columns])
    gram = design.T @ design
    kept: list[int] = []
    for i in range(len(columns)):
        trial = [0, *(k + 1 for k in kept), i + 1]
        if np.linalg.matrix_rank(gram[np.ix_(trial, trial)], hermitian=True) == len(trial):
            kept.append(i)
    return kept
