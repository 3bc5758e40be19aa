"""How well posts do in each slot of the week (weekday x part of day, local time),
shrunk toward the creator's overall level: three posts in a slot are weak evidence.

Normal-normal model on the residual (log engagement relative to the baseline): the
posts of slot s scatter as N(theta_s, sigma^2) around the slot's level, the levels as
N(mu, tau^2) around the creator's overall level mu. sigma^2 is the pooled within-slot
variance, tau^2 the DerSimonian-Laird moment estimate of the between-slot variance
(at least TAU_FLOOR^2, so no slot is ever taken as known to be exactly average). A
slot's posterior is normal; the 90% interval is its mean +- 1.645 sd.

A slot's score is its level against mu, the creator's average, not against the
baseline the residual is taken from: that baseline is a median, and for a creator whose
posts mostly get nothing the average sits well above it, so every slot, even in pure
noise, would read "better than usual" with its whole interval above 1. A slot never
tried scores exactly 1: no evidence either way.

A slot is named a best time only if it `stands_out`: its posts did better than the
creator's other posts by more than chance explains. The best of 28 slots always looks
good, and without this test pure noise named a "best time" in every history. The test
is a permutation one (Westfall & Young's max-T, 1993): a slot stands out when its lead
over the rest beats the best slot's lead in all but STAND_OUT_ALPHA of random deals.
The deals are the analysis' deals of the counts themselves when it makes them (up to
analysis.EXACT_NULL_POSTS posts; see analysis.null_residuals), else the residuals dealt
out PERMUTATIONS times. A t-test on the pooled variance was tried first and named a
best time in 6 of 20 random histories whose posts mostly get nothing: their few
non-zero counts make a slot's mean skewed far beyond what the t distribution allows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from socialgen.insights.candidates import WEEKDAYS

PARTS = (0, 6, 12, 18)  # local start hours of the parts of the day, 6 hours each
SLOT_COUNT = 7 * len(PARTS)
DEFAULT_HOUR = {0: 5, 6: 9, 12: 13, 18: 19}  # a sensible moment in a slot never tried
TAU_FLOOR = 0.05
Z90 = 1.6448536269514722
STAND_OUT_ALPHA = 0.05  # the chance that noise names any best time
PERMUTATIONS = 500


@dataclass(frozen=True)
class SlotPosterior:
    weekday: int  # Monday is 0
    start: int  # local hours [start, start + 6)
    mean: float  # posterior mean of the slot's level (log units, against the creator's average)
    sd: float
    n: int
    hour: int  # when in the slot to post: the creator's own usual hour there, else a default
    stands_out: bool = False  # better than the creator's other posts beyond chance

    @property
    def end(self) -> int:
        return self.start + 6

    def view(self) -> dict[str, object]:
        return {
            "weekday": WEEKDAYS[self.weekday],
            "start": self.start,
            "end": self.end,
            "score": round(float(np.exp(self.mean)), 3),
            "low": round(float(np.exp(self.mean - Z90 * self.sd)), 3),
            "high": round(float(np.exp(self.mean + Z90 * self.sd)), 3),
            "n": self.n,
        }


def slot_index(weekday: NDArray[np.int64], hour: NDArray[np.int64]) -> NDArray[np.int64]:
    return weekday * len(PARTS) + hour // 6


def slot_posteriors(
    residual: NDArray[np.float64],
    weekday: NDArray[np.int64],
    hour: NDArray[np.int64],
    null: NDArray[np.float64] | None = None,
    *,
    judge: bool = True,
) -> list[SlotPosterior]:
    """Every slot of the week, Monday night first. `null`: residuals of the same posts
    with their counts dealt out at random, one row per deal (`analysis.null_residuals`);
    without it, the stand-out test deals out the residuals themselves. `judge=False`
    skips that test (every `stands_out` False) for callers that only sample or rank the
    slots: choosing a time does not need it, and at 10,000 posts it costs a tenth of a
    second."""
    slot = slot_index(weekday, hour)
    n = np.bincount(slot, minlength=SLOT_COUNT).astype(np.float64)
    sums = np.bincount(slot, weights=residual, minlength=SLOT_COUNT)
    overall = float(residual.mean()) if residual.size else 0.0
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(n > 0, sums / n, overall)
    within = residual - means[slot] if residual.size else residual
    tried = n > 0
    spare = residual.size - int(tried.sum())
    sigma2 = max(float(within @ within) / spare if spare > 0 else 1.0, 1e-6)
    tau2 = max(_between_slots(means[tried], n[tried], sigma2), TAU_FLOOR**2)
    precision = 1 / tau2 + n / sigma2
    # The level against mu: (mu / tau2 + sums / sigma2) / precision - mu, written so
    # that a slot with no posts is exactly 0.
    post_mean = (sums - n * overall) / sigma2 / precision
    post_sd = np.sqrt(1 / precision)
    hours = _usual_hours(slot, hour)
    better = (
        _better_than_the_rest(residual, slot, null) if judge else np.zeros(SLOT_COUNT, dtype=bool)
    )
    return [
        SlotPosterior(
            weekday=index // len(PARTS),
            start=PARTS[index % len(PARTS)],
            mean=float(post_mean[index]),
            sd=float(post_sd[index]),
            n=int(n[index]),
            hour=hours.get(index, DEFAULT_HOUR[PARTS[index % len(PARTS)]]),
            stands_out=bool(better[index]),
        )
        for index in range(SLOT_COUNT)
    ]


def _better_than_the_rest(
    residual: NDArray[np.float64], slot: NDArray[np.int64], null: NDArray[np.float64] | None
) -> NDArray[np.bool_]:
    """Per slot: did its posts beat the creator's other posts beyond chance? Each tried
    slot's lead (its mean minus the other posts' mean, over its standard error) against
    the largest lead of any slot when the residuals are dealt out at random. Seeded: the
    same history always gets the same answer."""
    count = residual.size
    n = np.bincount(slot, minlength=SLOT_COUNT).astype(np.float64)
    testable = (n > 0) & (n < count)
    better = np.zeros(SLOT_COUNT, dtype=bool)
    if testable.sum() < 2:
        return better
    scale = np.sqrt(1 / n[testable] + 1 / (count - n[testable]))

    def leads(values: NDArray[np.float64]) -> NDArray[np.float64]:
        sums = np.bincount(slot, weights=values, minlength=SLOT_COUNT)[testable]
        own = sums / n[testable]
        rest = (float(values.sum()) - sums) / (count - n[testable])
        return (own - rest) / scale

    observed = leads(residual)
    if null is not None and len(null):
        deals: list[NDArray[np.float64]] = list(null)
    else:
        rng = np.random.default_rng(0)
        deals = [rng.permutation(residual) for _ in range(PERMUTATIONS)]
    largest = np.array([leads(deal).max() for deal in deals])
    beaten_by = (largest[None, :] >= observed[:, None]).mean(axis=1)
    better[testable] = beaten_by < STAND_OUT_ALPHA
    return better


def _between_slots(means: NDArray[np.float64], n: NDArray[np.float64], sigma2: float) -> float:
    """DerSimonian-Laird's moment estimate of the variance between slot levels: the
    spread of the slot means beyond what their sampling noise (sigma2/n) explains,
    each slot weighted by its precision so a slot of one post barely counts."""
    if means.size < 2:
        return 0.0
    weight = n / sigma2
    centre = float(weight @ means) / float(weight.sum())
    q = float(weight @ (means - centre) ** 2)
    scale = float(weight.sum()) - float(weight @ weight) / float(weight.sum())
    return max(0.0, (q - (means.size - 1)) / scale)


def best_slots(slots: list[SlotPosterior], count: int = 3) -> list[SlotPosterior]:
    """Of the slots that stand out, the `count` with the highest posterior mean, best
    first; none when no slot stands out."""
    tried = [slot for slot in slots if slot.n > 0 and slot.stands_out]
    return sorted(tried, key=lambda slot: (-slot.mean, slot.weekday, slot.start))[:count]


def _usual_hours(slot: NDArray[np.int64], hour: NDArray[np.int64]) -> dict[int, int]:
    """The median local hour of the creator's own posts in each slot they used."""
    usual: dict[int, int] = {}
    for index in np.unique(slot):
        usual[int(index)] = int(np.median(hour[slot == index]))
    return usual
