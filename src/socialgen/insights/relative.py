"""How much better or worse each post did than the creator's usual at the time, by post:
the same residual the insights report is built on (baseline.relative_engagement:
log1p(engagement) minus the rolling median of log1p(engagement) around the post).
exp(score) is the multiplier on engagement ("did 3x its usual"). numpy is loaded only
when this runs (`style create --from-top`), not by the styles commands' import.
"""

from __future__ import annotations

from collections.abc import Sequence

from socialgen.insights.history import PublishedPost


def relative_scores(posts: Sequence[PublishedPost]) -> dict[str, float]:
    """post id -> log1p(engagement) minus the creator's rolling median baseline."""
    if not posts:
        return {}
    import numpy as np

    from socialgen.insights.baseline import relative_engagement

    seconds = np.array([post.published_at.timestamp() for post in posts], dtype=np.float64)
    engagement = np.array([post.engagement for post in posts], dtype=np.float64)
    residual = relative_engagement(seconds, engagement).residual.tolist()
    return {post.post_id: float(value) for post, value in zip(posts, residual, strict=True)}
