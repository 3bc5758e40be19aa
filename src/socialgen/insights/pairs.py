"""Pairs of one creator's posts published close in time, and how well a score orders them.

Two posts a few days apart share the account's size and the week's news, so which of
the two did better says something about the posts themselves (Tan, Lee and Pang, ACL
2014). Everything here is vectorised numpy: 10,000 posts make about a million pairs
within a week, of which a random sample is enough to learn from and to measure with.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

PAIR_WINDOW_DAYS = 7
LOWER_BOUND_LEVEL = 0.90  # the interval's level; its lower end is the 5th percentile
BOOTSTRAP_ROUNDS = 200


@dataclass(frozen=True)
class Pairs:
    """Index pairs (older, newer) into a time-ordered list of posts, and which won."""

    older: NDArray[np.intp]
    newer: NDArray[np.intp]
    newer_won: NDArray[np.bool_]

    def __len__(self) -> int:
        return len(self.older)


def close_pairs(
    times: NDArray[np.float64],
    target: NDArray[np.float64],
    *,
    cap: int,
    rng: np.random.Generator,
    window_days: float = PAIR_WINDOW_DAYS,
) -> Pairs:
    """Every pair of posts published within `window_days` of each other (times in
    seconds, ascending) whose targets differ (a tie: neither did better), or a uniform
    sample of `cap` of them.

    The sample is drawn among the pairs that do not tie: a creator whose posts mostly
    get nothing has mostly 0-against-0 pairs, and a sample of all pairs, ties dropped
    afterwards, left so few that the ranker would not learn at all (851 posts, 96% of
    them at 0: 4 usable pairs of the 100 drawn to check there was anything to learn,
    of 352 in all)."""
    import numpy as np

    n = len(times)
    if n < 2:
        empty = np.zeros(0, dtype=np.intp)
        return Pairs(empty, empty, np.zeros(0, dtype=bool))
    ends_at = np.searchsorted(times, times + window_days * 86400.0, side="right")
    partners = ends_at - np.arange(n) - 1  # the newer posts within the window of each
    cumulative = np.cumsum(partners)
    total = int(cumulative[-1])

    def pair_of(flat: NDArray[np.int64]) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        older = np.searchsorted(cumulative, flat, side="right").astype(np.intp)
        newer = (older + 1 + flat - (cumulative[older] - partners[older])).astype(np.intp)
        return older, newer

    # A uniform sample of `drawn` pairs, in random order, ties and all; the first `cap`
    # that do not tie are a uniform sample of those. Too few: draw again, more, sized by
    # the share that did not tie (a dense history has millions of pairs: shuffling them
    # all would cost more than the rest of the training).
    drawn = cap
    while True:
        if drawn >= total:
            older, newer = pair_of(np.arange(total, dtype=np.int64))
            keep = np.flatnonzero(target[older] != target[newer])
            if len(keep) > cap:
                keep = np.sort(rng.choice(keep, size=cap, replace=False))
            older, newer = older[keep], newer[keep]
            break
        flat = rng.choice(total, size=drawn, replace=False)
        older, newer = pair_of(flat)
        differ = flat[target[older] != target[newer]]
        if len(differ) >= cap:
            older, newer = pair_of(np.sort(differ[:cap]))
            break
        drawn = min(total, drawn * max(2, math.ceil(1.25 * cap / max(len(differ), 1))))
    return Pairs(older, newer, target[newer] > target[older])


def ordered_share(scores: NDArray[np.float64], pairs: Pairs) -> float:
    """The share of `pairs` that `scores` put in the right order (0.5 without pairs)."""
    return float(_right(scores, pairs).mean()) if len(pairs) else 0.5


def _right(scores: NDArray[np.float64], pairs: Pairs) -> NDArray[np.float64]:
    """1 per pair put in the right order, 0 in the wrong one, 0.5 for equal scores."""
    import numpy as np

    difference = scores[pairs.newer] - scores[pairs.older]
    ordered = ((difference > 0) == pairs.newer_won).astype(np.float64)
    return np.where(difference == 0, 0.5, ordered)


@dataclass(frozen=True)
class PairAccuracy:
    """The share of pairs a score put in the right order, with the lower end of its
    90% interval (a bootstrap over posts: one post sits in many pairs, so the pairs are
    not independent and a bound over pairs would claim far too much)."""

    accuracy: float
    low: float
    pairs: int


def pair_accuracy(
    scores: NDArray[np.float64], pairs: Pairs, *, n_posts: int, rng: np.random.Generator
) -> PairAccuracy | None:
    """None without pairs. Equal scores count as half right (a coin toss)."""
    import numpy as np

    if len(pairs) == 0:
        return None
    right = _right(scores, pairs)
    # Poisson multiplier bootstrap over posts: a pair weighs the product of its two
    # posts' weights, so resampling a post resamples all its pairs together.
    weights = rng.poisson(1.0, size=(BOOTSTRAP_ROUNDS, n_posts)).astype(np.float64)
    pair_weights = weights[:, pairs.older] * weights[:, pairs.newer]
    totals = pair_weights.sum(axis=1)
    usable = totals > 0
    replicates = (pair_weights[usable] @ right) / totals[usable]
    tail = (1 - LOWER_BOUND_LEVEL) / 2
    low = float(np.quantile(replicates, tail)) if len(replicates) else 0.0
    return PairAccuracy(accuracy=float(right.mean()), low=low, pairs=len(pairs))
