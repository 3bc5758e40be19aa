"""The draft ranker's linear model: one weight vector over a post's feature row, learnt
from the training posts' log engagement by two views of "better" whose scores are added:

- **against its week**: ridge regression of each post's log engagement minus the median
  of the posts published within LOCAL_WINDOW_DAYS of it. That compares a post with the
  ones published close to it, as the pairs do (the account's growth and the week's news
  cancel out), but from every post at once rather than a sample of noisy pairs;
- **against the creator's median**: a logistic model of whether the post beat the
  median of all the training posts (the plain model issue 26 names as the one to beat).

Each view's weights are divided by the spread of its scores, so each counts the same.
The blend was chosen on time-ordered validation splits inside the training part of the
four public X archives bench/insights.py reads (never on their held-out posts): on
average it ordered 0.634 of the validation pairs right, the logistic view alone 0.618,
the ridge alone 0.621 and a pairwise logistic model on close pairs (the ranker's first
draft) 0.578 to 0.589; adding that pairwise model to the blend lowered it to 0.611.
The sum is finally scaled so that sigmoid(score difference) is the chance one post
beats another on the training pairs, which keeps `Ranker.score` a probability.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from socialgen.insights.pairs import Pairs

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

LOCAL_WINDOW_DAYS = 7.0  # the same week either side as the pairs the ranker is judged on
RIDGE_ALPHA = 30.0  # on standardised hand features; 10 to 100 validated alike
_MEDIAN_BLOCK_CELLS = 2_000_000  # 16 MB of float64 at a time


def blend_weights(
    rows: Any,
    target: NDArray[np.float64],
    relative: NDArray[np.float64],
    pairs: Pairs,
    c: float,
    rng: np.random.Generator,
) -> NDArray[np.float64]:
    """Weights for `rows` (one per post): `target` their log engagement, `relative` the
    same minus `local_median`; `c` is the logistic view's regularisation, `pairs` the
    close training pairs used to scale the result into log-odds."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression, Ridge

    weights = np.zeros(rows.shape[1], dtype=np.float64)
    if np.any(relative != 0):
        ridge = Ridge(alpha=RIDGE_ALPHA).fit(rows, relative).coef_.astype(np.float64)
        weights += _unit_spread(rows, ridge)
    above = target > np.median(target)
    if above.any() and not above.all():  # liblinear needs both classes
        logistic = LogisticRegression(C=c, solver="liblinear", tol=1e-3).fit(rows, above)
        weights += _unit_spread(rows, logistic.coef_[0].astype(np.float64))
    return weights * _log_odds_scale(rows @ weights, pairs, rng)


def local_median(times: NDArray[np.float64], target: NDArray[np.float64]) -> NDArray[np.float64]:
    """For each post, the median target of the other posts within LOCAL_WINDOW_DAYS
    either side (times in seconds, ascending); its own target when it has none, so a
    lone post compares as "usual". Each window is a row of a NaN-padded matrix, taken
    a block of rows at a time so a very dense history does not fill the memory."""
    import numpy as np

    n = len(times)
    window = LOCAL_WINDOW_DAYS * 86400.0
    starts = np.searchsorted(times, times - window, side="left")
    ends = np.searchsorted(times, times + window, side="right")
    medians = target.copy()
    width = int((ends - starts).max()) if n else 0
    if width < 2:
        return medians
    block = max(1, _MEDIAN_BLOCK_CELLS // width)
    offsets = np.arange(width)
    for first in range(0, n, block):
        index = np.arange(first, min(n, first + block))
        columns = starts[index, None] + offsets[None, :]
        inside = (columns < ends[index, None]) & (columns != index[:, None])
        # Sorted, the NaNs go last: the middle of a row's `count` values is its median
        # (np.nanmedian does the same row by row in Python, many times slower).
        values = np.sort(np.where(inside, target[np.minimum(columns, n - 1)], np.nan), axis=1)
        count = inside.sum(axis=1)
        rows = np.arange(len(index))
        middle = (values[rows, np.maximum(count - 1, 0) // 2] + values[rows, count // 2]) / 2
        medians[index] = np.where(count > 0, middle, medians[index])
    return medians


def _unit_spread(rows: Any, weights: NDArray[np.float64]) -> NDArray[np.float64]:
    """`weights` divided by the spread of the scores they give `rows` (0 stays 0)."""
    spread = float((rows @ weights).std())
    return weights / spread if spread > 0 else weights


def _log_odds_scale(scores: NDArray[np.float64], pairs: Pairs, rng: np.random.Generator) -> float:
    """The factor that makes sigmoid(scaled difference) the chance the higher-scored post
    of a close training pair won: a one-weight logistic fit with no intercept. Never
    below a small positive floor: it calibrates, it must not reverse the order."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression

    if len(pairs) < 2:
        return 1.0
    difference = scores[pairs.newer] - scores[pairs.older]
    flip = rng.random(len(pairs)) < 0.5  # both classes present, as in the pairwise fit
    flip[1] = flip[0] ^ pairs.newer_won[0] ^ pairs.newer_won[1] ^ True
    signed = np.where(flip, -difference, difference).reshape(-1, 1)
    labels = pairs.newer_won ^ flip
    if not np.any(signed):
        return 1.0
    fit = LogisticRegression(C=1.0, fit_intercept=False, solver="liblinear").fit(signed, labels)
    return max(float(fit.coef_[0][0]), 0.05)
