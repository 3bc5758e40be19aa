"""Close pairs of a creator's posts: every pair within the window when there are few,
a uniform sample of the pairs that do not tie when there are many, and a ranker that
still learns from a creator whose posts mostly get nothing."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from socialgen.insights.pairs import close_pairs
from socialgen.insights.ranker import train_ranker
from socialgen.insights.ranker_features import PostText
from tests.insights_synthetic import PLANTED, synthetic_history

DAY = 86400.0


def test_few_pairs_are_all_taken_without_the_ties() -> None:
    times = np.array([0.0, 1.0, 2.0, 10.0]) * DAY
    target = np.array([1.0, 1.0, 2.0, 0.0])

    pairs = close_pairs(times, target, cap=100, rng=np.random.default_rng(0))

    # (0, 1) tie; (x, 3) are more than 7 days apart.
    assert sorted(zip(pairs.older.tolist(), pairs.newer.tolist(), strict=True)) == [(0, 2), (1, 2)]
    assert pairs.newer_won.tolist() == [True, True]


def test_a_sample_is_drawn_among_the_pairs_that_do_not_tie() -> None:
    """Mostly 0-against-0 pairs (posts that got nothing): a sample of all pairs, ties
    dropped afterwards, kept about 6 of these 100; the sample is of usable pairs."""
    rng = np.random.default_rng(1)
    times = np.sort(rng.uniform(0, 30 * DAY, 600))
    target = np.where(rng.random(600) < 0.03, 1.0, 0.0)  # 3% of the posts got something
    every = close_pairs(times, target, cap=10**9, rng=rng)
    assert len(every) > 100

    pairs = close_pairs(times, target, cap=100, rng=np.random.default_rng(2))

    assert len(pairs) == 100
    assert np.all(target[pairs.older] != target[pairs.newer])
    assert np.all(times[pairs.newer] - times[pairs.older] <= 7 * DAY)
    sampled = set(zip(pairs.older.tolist(), pairs.newer.tolist(), strict=True))
    assert sampled <= set(zip(every.older.tolist(), every.newer.tolist(), strict=True))
    assert np.array_equal(pairs.newer_won, target[pairs.newer] > target[pairs.older])


def test_the_ranker_learns_from_a_creator_whose_posts_mostly_get_nothing() -> None:
    """97% of the posts at 0, the rest mostly questions with media: the ranker used to
    find too few usable pairs in its first small sample and learn nothing (every draft
    0.5, like a real archive of 1064 posts with 93% at 0)."""
    sparse = replace(PLANTED, start_level=0.01, growth=1.0, question_hook=8.0, media=5.0, slot=1.0)
    posts = synthetic_history(1000, 1, sparse, span_days=60)
    assert sum(post.engagement == 0 for post in posts) > 0.95 * len(posts)

    ranker = train_ranker(posts)

    assert ranker.model is not None and ranker.confident
    question = PostText("Why do most side projects stall?\n\nIt took me a while.", True)
    statement = PostText("Good writing is mostly rewriting.\n\nIt took me a while.", False)
    assert ranker.score([question, statement])[0] > 0.5 > ranker.score([statement])[0]
