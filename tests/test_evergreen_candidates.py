"""Evergreen candidates (insights/evergreen_candidates.py): posts that beat the creator's
usual clearly (the interval says so) and are old enough. Checked against a synthetic
creator (tests/insights_synthetic.py): pure noise gives no candidate, seed after seed;
planted hits are found, and nothing else; too little history is withheld; reposts and
posts already evergreen are left out (through the store, SQLite and PostgreSQL)."""

from __future__ import annotations

import math
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from socialgen.insights.evergreen_candidates import MIN_POSTS, candidates_of
from socialgen.insights.history import PublishedPost
from socialgen.publishing.evergreen.candidates import candidates
from socialgen.store.engine import read_session
from tests.conftest import Store
from tests.evergreen_support import plan, published
from tests.insights_synthetic import NOTHING, PLANTED, shuffled_engagement, synthetic_history
from tests.outbox_support import add_account

NOW = datetime(2026, 6, 1, tzinfo=UTC)  # where the synthetic histories end
SEEDS = range(1, 21)


def boosted(post: PublishedPost, factor: float) -> PublishedPost:
    return replace(
        post,
        likes=round(post.likes * factor),
        reposts=round(post.reposts * factor),
        comments=round(post.comments * factor),
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_pure_noise_gives_no_candidate(seed: int) -> None:
    """No effect planted (growth and noise only), and planted effects with engagement
    dealt out at random: no post beats its usual clearly, in any of 20 histories."""
    quiet = candidates_of(synthetic_history(300, seed, NOTHING), NOW)
    shuffled = candidates_of(shuffled_engagement(synthetic_history(300, seed, PLANTED), seed), NOW)
    assert quiet.withheld is None and quiet.considered > 200
    assert quiet.candidates == [] and shuffled.candidates == []


@pytest.mark.parametrize("seed", [3, 7, 11])
def test_planted_hits_are_found_and_nothing_else(seed: int) -> None:
    posts = synthetic_history(300, seed, NOTHING)
    old = [i for i, post in enumerate(posts) if post.published_at < NOW - timedelta(days=200)]
    hits = {old[10], old[60], old[120]}
    recent = len(posts) - 3  # a hit, but a few days old: not yet worth reposting
    posts = [boosted(p, 60) if i in hits | {recent} else p for i, p in enumerate(posts)]
    found = candidates_of(posts, NOW)
    assert {c.post.post_id for c in found.candidates} == {posts[i].post_id for i in hits}
    for candidate in found.candidates:
        assert 1 < candidate.low < candidate.multiplier < candidate.high
        assert candidate.multiplier > 20  # about 60x its usual, give or take its noise
    lows = [c.low for c in found.candidates]
    assert lows == sorted(lows, reverse=True)
    assert found.considered == sum(1 for p in posts if p.published_at <= NOW - timedelta(days=90))


def test_a_modest_beat_is_not_clear_enough() -> None:
    """Three times the usual is within the luck of a creator whose posts vary this much
    (a post in ten does 1.9x its usual by chance alone here)."""
    posts = synthetic_history(300, 5, NOTHING)
    posts = [boosted(p, 3) if i == 40 else p for i, p in enumerate(posts)]
    assert candidates_of(posts, NOW).candidates == []


def test_too_little_history_is_withheld() -> None:
    posts = synthetic_history(MIN_POSTS - 1, 1, NOTHING)
    found = candidates_of([boosted(p, 50) for p in posts], NOW)
    assert found.candidates == [] and found.withheld is not None
    assert f"need {MIN_POSTS} measured published posts" in found.withheld
    assert f"has {MIN_POSTS - 1}" in found.withheld


def test_the_interval_widens_with_the_number_of_posts_looked_at() -> None:
    """Bonferroni: the same post, judged among more posts, needs a wider margin."""
    posts = synthetic_history(300, 9, NOTHING)
    posts = [boosted(p, 60) if i == 20 else p for i, p in enumerate(posts)]
    (wide,) = candidates_of(posts, NOW).candidates
    (narrow,) = candidates_of(posts, NOW, exclude={p.post_id for p in posts[40:]}).candidates
    assert math.isclose(wide.multiplier, narrow.multiplier)
    assert wide.low < narrow.low


def test_reposts_and_evergreen_posts_are_left_out(store: Store) -> None:
    account = add_account(store, "@history.test")
    for day in range(40):
        published(store, [account], f"Ordinary post {day}", days_ago=100 + day * 3, likes=10)
    star = published(store, [account], "The post everyone shared", days_ago=150, likes=400)
    with read_session(store.engine) as session:
        found = candidates(session, store.workspace_id)
    assert [c.postId for c in found.candidates] == [star]
    assert found.candidates[0].multiplier > 10 and found.measured == 41
    plan(store, star, every=60, times=2)
    with read_session(store.engine) as session:
        after = candidates(session, store.workspace_id)
    assert after.candidates == [] and after.considered == 40
