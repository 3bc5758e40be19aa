"""Each post's engagement relative to the creator's own rolling baseline.

Accounts grow and shrink, so a post is compared with the posts published around it,
not with the whole history: its residual is log1p(engagement) minus the median of
log1p(engagement) over the posts within WINDOW_DAYS either side (the nearest
MIN_NEIGHBOURS posts when fewer lie that close). Medians and the MAD keep one viral
post from moving anyone else's figure much (Wu et al., "Beyond Views", ICWSM 2018).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

WINDOW_DAYS = 28
MIN_NEIGHBOURS = 15
MAD_TO_SD = 1.4826  # the MAD of a normal distribution times this is its sd
# The smallest scale scores divide by (log units): a creator whose posts all got the
# same count would otherwise get infinite scores.
SCALE_FLOOR = 0.1
DAY = 86400.0


@dataclass(frozen=True)
class RelativeEngagement:
    log_engagement: NDArray[np.float64]  # log1p(engagement), in the input's order
    baseline: NDArray[np.float64]  # the rolling median of log1p around each post
    residual: NDArray[np.float64]  # log_engagement - baseline
    scale: float  # 1.4826 * MAD of the residuals, at least SCALE_FLOOR
    median: float  # median of log1p(engagement) over all posts

    @property
    def score(self) -> NDArray[np.float64]:
        """Robust z: how many typical deviations above (or below) its baseline."""
        return self.residual / self.scale


def relative_engagement(
    seconds: NDArray[np.float64], engagement: NDArray[np.float64]
) -> RelativeEngagement:
    """`seconds`: each post's publication time (epoch seconds); `engagement`: counts."""
    logs = np.log1p(np.asarray(engagement, dtype=np.float64))
    baseline = rolling_median(np.asarray(seconds, dtype=np.float64), logs)
    residual = logs - baseline
    if residual.size:
        mad = float(np.median(np.abs(residual - np.median(residual))))
        median = float(np.median(logs))
    else:
        mad, median = 0.0, 0.0
    scale = max(MAD_TO_SD * mad, SCALE_FLOOR)
    return RelativeEngagement(logs, baseline, residual, scale, median)


def rolling_median(
    seconds: NDArray[np.float64], values: NDArray[np.float64]
) -> NDArray[np.float64]:
    """The median of `values` over the posts within WINDOW_DAYS of each post's day.

    Computed once per calendar day that has posts (posts of one day share their
    neighbours), so 10,000 posts over two years cost some 730 medians, all at once.
    """
    count = seconds.size
    if count == 0:
        return np.empty(0)
    order = np.argsort(seconds, kind="stable")
    sorted_values = values[order]
    days = np.floor(seconds[order] / DAY)
    unique_days, first = np.unique(days, return_index=True)
    low = np.searchsorted(days, unique_days - WINDOW_DAYS, side="left")
    high = np.searchsorted(days, unique_days + WINDOW_DAYS, side="right")
    last = np.append(first[1:], count)
    need = min(MIN_NEIGHBOURS, count)
    # Too few close by: the `need` posts nearest the day, by position.
    sparse = high - low < need
    centre = (first + last) // 2
    low = np.where(sparse, np.clip(centre - need // 2, 0, count - need), low)
    high = np.where(sparse, low + need, high)
    per_day = _window_medians(sorted_values, low, high)
    day_of_post = np.repeat(np.arange(unique_days.size), last - first)
    result = np.empty(count)
    result[order] = per_day[day_of_post]
    return result


# Cells of the padded window matrix sorted at once; more are cut into row chunks.
_CELLS_AT_ONCE = 2_000_000


def _window_medians(
    values: NDArray[np.float64], low: NDArray[np.intp], high: NDArray[np.intp]
) -> NDArray[np.float64]:
    """The median of values[low[i]:high[i]] for every i: each window is a row padded
    with +inf, rows sorted together, the middle of each row's real values read off."""
    sizes = high - low
    width = int(sizes.max())
    medians = np.empty(low.size)
    step = max(1, _CELLS_AT_ONCE // width)
    offsets = np.arange(width)
    for begin in range(0, low.size, step):
        rows = slice(begin, begin + step)
        index = low[rows, None] + offsets[None, :]
        inside = offsets[None, :] < sizes[rows, None]
        window = np.where(inside, values[np.minimum(index, values.size - 1)], np.inf)
        window.sort(axis=1)
        size = sizes[rows]
        lower = np.take_along_axis(window, ((size - 1) // 2)[:, None], axis=1)[:, 0]
        upper = np.take_along_axis(window, (size // 2)[:, None], axis=1)[:, 0]
        medians[rows] = (lower + upper) / 2
    return medians
