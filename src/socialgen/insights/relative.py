"""How much better or worse each post did than the creator's usual at the time.

A post's relative score is log1p(engagement) minus the median log1p(engagement) of the
posts published around it (its NEIGHBOURS nearest in time on each side, itself left
out): accounts grow and shrink, so a post is compared with its own period, and a median
is not moved by one viral neighbour. exp(score) is the multiplier on engagement ("did
3x its usual"). Pure standard library: the styles commands use it without loading the
analysis libraries.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import median

from socialgen.insights.history import PublishedPost

NEIGHBOURS = 10  # on each side: about two weeks either way at a post a day


def relative_scores(posts: Sequence[PublishedPost]) -> dict[str, float]:
    """post id -> log1p(engagement) minus the rolling median of its neighbours.
    `posts` oldest first (as `load_published` gives them). A lone post scores 0."""
    ordered = sorted(posts, key=lambda post: (post.published_at, post.post_id))
    logs = [math.log1p(post.engagement) for post in ordered]
    scores: dict[str, float] = {}
    for index, post in enumerate(ordered):
        around = logs[max(0, index - NEIGHBOURS) : index] + logs[index + 1 : index + 1 + NEIGHBOURS]
        baseline = median(around) if around else logs[index]
        scores[post.post_id] = logs[index] - baseline
    return scores
