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


@dataclass(frozen=True)
class SlotPosterior:
    weekday: int  # Monday is 0
    start: int  # local hours [start, start + 6)
    mean: float  # posterior mean of the slot's level (log units, against the creator's average)
    sd: float
    n: int
    hour: int  # when in the slot to post: the creator's own usual hour there, else a default

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
    residual: NDArray[np.float64], weekday: NDArray[np.int64], hour: NDArray[np.int64]
) -> list[SlotPosterior]:
    """Every slot of the week, Monday night first."""
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
    return [
        SlotPosterior(
            weekday=index // len(PARTS),
            start=PARTS[index % len(PARTS)],
            mean=float(post_mean[index]),
            sd=float(post_sd[index]),
            n=int(n[index]),
            hour=hours.get(index, DEFAULT_HOUR[PARTS[index % len(PARTS)]]),
        )
        for index in range(SLOT_COUNT)
    ]


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
    """The `count` tried slots with the highest posterior mean, best first."""
    tried = [slot for slot in slots if slot.n > 0]
    return sorted(tried, key=lambda slot: (-slot.mean, slot.weekday, slot.start))[:count]


def _usual_hours(slot: NDArray[np.int64], hour: NDArray[np.int64]) -> dict[int, int]:
    """The median local hour of the creator's own posts in each slot they used."""
    usual: dict[int, int] = {}
    for index in np.unique(slot):
        usual[int(index)] = int(np.median(hour[slot == index]))
    return usual
