"""The analysis on synthetic creators whose truth we set: the baseline resists a viral
post, planted effects are recovered with honest intervals, noise yields no finding,
and below the floor nothing is concluded."""

from __future__ import annotations

import dataclasses
import random
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from socialgen.insights.analysis import EXACT_NULL_POSTS, FLOOR, analyse, null_residuals
from socialgen.insights.baseline import relative_engagement
from socialgen.insights.findings import benjamini_hochberg, ols_hc3
from socialgen.insights.history import PublishedPost
from tests.insights_synthetic import (
    NOTHING,
    PLANTED,
    shuffled_engagement,
    synthetic_history,
)

UTC = ZoneInfo("UTC")
TEXT_FEATURES = {"number hook", "a link", "hashtags", "emoji"}  # never planted


def _with_engagement(posts: list[PublishedPost], counts: list[int]) -> list[PublishedPost]:
    return [
        dataclasses.replace(post, likes=count, reposts=0, comments=0)
        for post, count in zip(posts, counts, strict=True)
    ]


def test_one_viral_post_barely_moves_anyone_elses_baseline() -> None:
    posts = synthetic_history(200, seed=3, effects=NOTHING)
    seconds = np.array([post.published_at.timestamp() for post in posts])
    counts = np.array([post.engagement for post in posts], dtype=np.float64)
    before = relative_engagement(seconds, counts)
    viral = counts.copy()
    viral[100] = counts[100] * 1000
    after = relative_engagement(seconds, viral)
    others = np.arange(counts.size) != 100
    # A mean over the same window would move the neighbours' baseline by about
    # log(1000)/window ~ 0.3; the median moves it by one rank at most.
    assert np.max(np.abs(after.baseline - before.baseline)[others]) < 0.1
    assert after.scale == pytest.approx(before.scale, rel=0.05)
    assert after.score[100] > 5


def test_a_negative_count_stored_long_ago_cannot_make_the_baseline_nan() -> None:
    """Counts are checked on the way in now (imports, pulls); one stored before, say -5
    likes from a hostile server, counts as 0 rather than turning log1p into NaN."""
    posts = synthetic_history(200, seed=5, effects=NOTHING)
    posts[10] = dataclasses.replace(posts[10], likes=-5, reposts=-1, comments=-1)
    assert posts[10].engagement == 0
    analysis = analyse(posts, UTC)
    assert np.isfinite(analysis.relative.baseline).all()
    assert np.isfinite(analysis.relative.median)


def test_the_baseline_follows_the_accounts_growth() -> None:
    posts = synthetic_history(300, seed=4, effects=dataclasses.replace(NOTHING, growth=10.0))
    analysis = analyse(posts, UTC)
    days = np.array([post.published_at.timestamp() for post in posts])
    # Raw engagement grows tenfold; relative to the rolling baseline it does not.
    assert np.corrcoef(days, analysis.relative.log_engagement)[0, 1] > 0.5
    assert abs(np.corrcoef(days, analysis.relative.residual)[0, 1]) < 0.15


def test_planted_effects_are_recovered_and_nothing_else_in_the_text() -> None:
    runs, recovered, spurious, slot_first, wrong_first = 12, 0, 0, 0, 0
    for seed in range(runs):
        analysis = analyse(synthetic_history(400, seed=500 + seed), UTC)
        for best in analysis.view()["bestSlots"][:1]:  # none when no slot stands out
            planted = (best["weekday"], best["start"]) == (
                PLANTED.slot_weekday_name,
                PLANTED.slot_start,
            )
            slot_first += planted
            wrong_first += not planted
        found = {effect.feature: effect for effect in analysis.findings.findings}
        question, media = found.get("question hook"), found.get("media")
        recovered += bool(
            question
            and media
            and question.low <= PLANTED.question_hook <= question.high
            and media.low <= PLANTED.media <= media.high
        )
        # Weekday and part-of-day findings may echo the planted Tuesday-morning slot;
        # a text feature nobody planted may not appear.
        spurious += bool(TEXT_FEATURES & set(found))
        for effect in analysis.findings.findings:  # the decision and the interval agree
            assert effect.low > 1 or effect.high < 1, effect
        for effect in analysis.findings.inconclusive:
            assert effect.low <= 1 <= effect.high, effect
    assert recovered >= runs - 2, recovered
    assert spurious <= 1, spurious
    # The planted x1.8 Tuesday morning is named the best time when it stands out from
    # noise (8 of these 12 histories of 400 posts, whose slot holds 8 to 25 posts; 19
    # of 20 at 1000 posts, 10 of 10 at 2000), and no other slot is ever named first.
    assert slot_first >= runs - 5, slot_first
    assert wrong_first == 0, wrong_first


def test_honesty_shuffled_or_random_engagement_yields_no_findings() -> None:
    """200 analyses of data with no pattern in it: findings must be (almost) always
    empty. The rate is printed for the record (pytest -s)."""
    base = synthetic_history(150, seed=7)
    rng = random.Random(11)
    runs, with_findings = 0, 0
    for seed in range(100):
        shuffled = shuffled_engagement(base, seed)
        noise = _with_engagement(base, [round(rng.lognormvariate(3, 0.6)) for _ in base])
        for posts in (shuffled, noise):
            runs += 1
            with_findings += bool(analyse(posts, UTC).findings.findings)
    rate = with_findings / runs
    print(f"honesty test: {with_findings} of {runs} runs had a finding ({rate:.1%})")
    assert rate <= 0.05


def test_below_the_floor_nothing_is_concluded() -> None:
    posts = synthetic_history(FLOOR - 1, seed=9)
    view = analyse(posts, UTC).view()
    assert (view["posts"], view["enough"], view["needMore"]) == (FLOOR - 1, False, 1)
    assert view["findings"] == view["inconclusive"] == view["bestSlots"] == []
    assert len(view["series"]) == FLOOR - 1
    assert len(view["slots"]) == 28 and sum(slot["n"] for slot in view["slots"]) == FLOOR - 1
    enough = analyse(synthetic_history(FLOOR, seed=9), UTC).view()
    assert enough["enough"] and enough["needMore"] == 0 and enough["inconclusive"]


def test_a_feature_with_too_few_posts_on_one_side_is_not_tested() -> None:
    posts = synthetic_history(200, seed=12)
    plain = [dataclasses.replace(post, has_media=False) for post in posts]
    seven = plain[:7] + [dataclasses.replace(post, has_media=True) for post in plain[7:14]]
    tested = {e.feature for e in analyse(seven + plain[14:], UTC).findings.inconclusive}
    found = {e.feature for e in analyse(seven + plain[14:], UTC).findings.findings}
    assert "media" not in tested | found
    eight = [dataclasses.replace(post, has_media=i < 8) for i, post in enumerate(plain)]
    result = analyse(eight, UTC).findings
    assert "media" in {e.feature for e in result.findings + result.inconclusive}


def test_the_fit_equals_statsmodels_ols_with_hc3() -> None:
    from statsmodels.regression.linear_model import OLS  # type: ignore[import-untyped]

    rng = np.random.default_rng(1)
    design = np.column_stack([np.ones(80), rng.integers(0, 2, (80, 3)).astype(float)])
    response = design @ np.array([0.1, 0.5, -0.2, 0.0]) + rng.standard_t(3, 80)
    estimate, covariance = ols_hc3(design, response)
    reference = OLS(response, design).fit(cov_type="HC3")
    assert np.allclose(estimate, reference.params)
    assert np.allclose(covariance, reference.cov_params())


def test_benjamini_hochberg_steps_up() -> None:
    p = np.array([0.001, 0.03, 0.036, 0.2])
    # 0.036 <= 3 * 0.05 / 4 lets 0.03 in too, though 0.03 > 2 * 0.05 / 4.
    assert benjamini_hochberg(p, 0.05).tolist() == [True, True, True, False]
    assert benjamini_hochberg(np.array([0.02, 0.5]), 0.01).tolist() == [False, False]


def test_the_fast_text_patterns_find_what_the_plain_ones_did() -> None:
    """text_features' patterns open on a literal for speed; on random mixes of the
    tricky pieces they find exactly what the plain patterns find."""
    import re

    from socialgen.insights import text_features

    plain = {
        "_URL": re.compile(r"https?://\S+|\bwww\.\S+", re.I),
        "_HASHTAG": re.compile(r"(?<![\w&])#\w+"),
        "_MENTION": re.compile(r"(?<![\w])@[\w.-]+"),
    }
    pieces = ["#", "@", "&", "www.", "WwW.", "http://", "HTTPS://", "a", "é", "1", " ", "\n"]
    pieces += [".", "-", "_", "x#", "w", "h", "t", ":", "/", "\U0001f680", "日本"]
    rng = random.Random(0)
    for _ in range(20_000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 12)))
        for name, pattern in plain.items():
            assert getattr(text_features, name).findall(text) == pattern.findall(text), text
        assert text_features.has_link(text) == bool(plain["_URL"].search(text)), text
        assert text_features.has_emoji(text) == ("\U0001f680" in text), text


def _mostly_nothing(seed: int) -> list[PublishedPost]:
    """A creator like many on a young account (a public archive of 1064 posts has 93% of
    them at 0): 1000 synthetic posts whose counts are dealt out at random, 93 in 100
    at 0 and the rest 1 to 6. Nothing to find; and a feature that a dozen posts have
    will often have only zeros among them (0.93^12 = 0.42)."""
    rng = np.random.default_rng(seed)
    counts = np.where(rng.random(1000) < 0.93, 0, rng.integers(1, 7, 1000))
    posts = _with_engagement(synthetic_history(1000, seed=seed), [int(c) for c in counts])
    # A dozen posted in the morning, the rest in the afternoon, evening and night.
    hours = rng.choice([0, 1, 2, 3, 4, 5, 12, 14, 16, 18, 20, 22], size=1000)
    hours[rng.choice(1000, size=12, replace=False)] = 8
    return [
        dataclasses.replace(post, published_at=post.published_at.replace(hour=int(hour)))
        for post, hour in zip(posts, hours, strict=True)
    ]


def test_a_few_posts_that_all_got_nothing_are_no_finding() -> None:
    # Robust (HC3) standard errors read a group's spread from the group alone: twelve
    # posts at 0 have none, so "x0.95 (x0.93 to x0.98)" came out of pure noise in
    # most runs. The conventional error, from every post's spread, is now the floor,
    # and a history of this size is also judged against deals of its own counts.
    runs = 20
    with_finding = sum(
        bool(analyse(_mostly_nothing(seed), UTC).view()["findings"]) for seed in range(runs)
    )
    assert with_finding <= 2, with_finding


def test_noise_names_no_best_time() -> None:
    runs = 20
    named = sum(
        bool(analyse(_mostly_nothing(seed), UTC).view()["bestSlots"]) for seed in range(runs)
    )
    assert named <= 2, named


def test_a_long_history_is_judged_by_t_tests_and_still_finds_only_what_was_planted() -> None:
    # Above EXACT_NULL_POSTS the counts are not dealt out (seconds of work): the
    # t-tests and Benjamini-Hochberg decide, with intervals that agree with them.
    posts = synthetic_history(EXACT_NULL_POSTS + 500, seed=9)
    seconds = np.array([post.published_at.timestamp() for post in posts])
    engagement = np.array([post.engagement for post in posts], dtype=np.float64)
    assert null_residuals(seconds, engagement) is None
    analysis = analyse(posts, UTC)
    found = {effect.feature: effect for effect in analysis.findings.findings}
    assert found["question hook"].low <= PLANTED.question_hook <= found["question hook"].high
    assert found["media"].low <= PLANTED.media <= found["media"].high
    # (A false discovery rate of 5% lets an unplanted feature in now and then beside
    # true ones: this seed has hashtags at x1.08. The 400-post test above counts them.)
    for effect in analysis.findings.findings:
        assert effect.low > 1 or effect.high < 1, effect
    for effect in analysis.findings.inconclusive:
        assert effect.low <= 1 <= effect.high, effect
    shuffles = [analyse(shuffled_engagement(posts, seed), UTC) for seed in range(10)]
    assert sum(bool(shuffled.findings.findings) for shuffled in shuffles) <= 2
