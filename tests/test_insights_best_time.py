"""Best time: slot estimates shrunk toward the creator's level, Thompson sampling that
still explores, slots in the creator's zone, and the next free moment."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import numpy as np

from socialgen.insights.analysis import analyse
from socialgen.insights.best_time import next_best_time, next_free_moment, thompson_pick
from socialgen.insights.history import PublishedPost
from socialgen.insights.slots import SlotPosterior, best_slots, slot_posteriors
from tests.insights_synthetic import synthetic_history

MONDAY, TUESDAY = 0, 1
MORNING = 6


def test_three_great_posts_in_a_slot_do_not_beat_thirty_good_ones() -> None:
    rng = np.random.default_rng(5)
    weekday, hour, residual = [], [], []
    for day in range(7):
        for start in (6, 12, 18):
            if (day, start) in ((MONDAY, MORNING), (TUESDAY, MORNING)):
                continue
            weekday += [day] * 10
            hour += [start + 1] * 10
            residual += list(rng.normal(0, 0.5, 10))
    weekday += [MONDAY] * 3 + [TUESDAY] * 30
    hour += [8] * 33
    great = [1.0, 1.1, 0.9]  # x2.7 each
    good = list(0.5 + rng.normal(0, 0.5, 30))  # about x1.65
    residual += great + good
    slots = slot_posteriors(
        np.array(residual), np.array(weekday, dtype=np.int64), np.array(hour, dtype=np.int64)
    )
    three = next(s for s in slots if (s.weekday, s.start) == (MONDAY, MORNING))
    thirty = next(s for s in slots if (s.weekday, s.start) == (TUESDAY, MORNING))
    assert np.mean(great) > np.mean(good)  # raw means would put the three first
    assert thirty.mean > three.mean
    assert best_slots(slots)[0] == thirty
    assert three.sd > thirty.sd  # and the three posts' slot is the less certain
    assert (three.n, thirty.n) == (3, 30)


def _slot(weekday: int, start: int, mean: float, sd: float, n: int) -> SlotPosterior:
    return SlotPosterior(weekday, start, mean, sd, n, hour=start + 3)


def test_thompson_sampling_mostly_exploits_and_still_explores() -> None:
    slots = [_slot(day, start, 0.0, 0.05, 20) for day in range(7) for start in (6, 12, 18)]
    slots[0] = _slot(MONDAY, 6, 0.25, 0.05, 40)  # probably the best
    slots[5] = _slot(TUESDAY, 18, 0.0, 0.25, 1)  # tried once: anything is possible
    slots.append(_slot(MONDAY, 0, 0.5, 0.5, 0))  # a night never tried: never suggested
    rng = np.random.default_rng(42)
    picks = [thompson_pick(slots, rng) for _ in range(2000)]
    best = sum(pick == slots[0] for pick in picks) / len(picks)
    rare = sum(pick == slots[5] for pick in picks) / len(picks)
    assert best > 0.6
    assert 0.02 < rare < best  # a greedy choice by mean would never take it
    assert all(pick.start != 0 for pick in picks)
    # The same seed, the same choices: the RNG is the caller's.
    again = [thompson_pick(slots, np.random.default_rng(42)) for _ in range(3)]
    assert again == [thompson_pick(slots, np.random.default_rng(42))] * 3


def test_the_time_zone_decides_the_slots() -> None:
    posts = [
        dataclasses.replace(post, published_at=moment)
        for post, moment in zip(
            synthetic_history(10, seed=1),
            # Tuesdays at 08:00 UTC.
            (datetime(2026, 3, 3, 8, tzinfo=UTC) + timedelta(weeks=i) for i in range(10)),
            strict=True,
        )
    ]

    def used(zone: str) -> set[tuple[str, int]]:
        slots = analyse(posts, ZoneInfo(zone)).view()["slots"]
        return {(slot["weekday"], slot["start"]) for slot in slots if slot["n"]}

    assert used("UTC") == {("Tuesday", 6)}
    assert used("Asia/Tokyo") == {("Tuesday", 12)}  # 17:00
    assert used("America/Los_Angeles") == {("Tuesday", 0)}  # 00:00 or 01:00
    assert used("Pacific/Auckland") == {("Tuesday", 18)}  # 20:00 or 21:00


def test_the_next_free_moment_is_ahead_and_skips_taken_slot_days() -> None:
    paris = ZoneInfo("Europe/Paris")
    tuesday_morning = _slot(TUESDAY, 6, 0.3, 0.1, 12)
    # A Monday: the next Tuesday at the slot's usual hour (09:00 Paris = 08:00 UTC).
    monday = datetime(2026, 12, 7, 15, tzinfo=UTC)
    assert next_free_moment(tuesday_morning, paris, now=monday) == datetime(
        2026, 12, 8, 8, tzinfo=UTC
    )
    # Another post is scheduled that Tuesday morning: the week after.
    taken = [datetime(2026, 12, 8, 10, 30, tzinfo=UTC)]
    assert next_free_moment(tuesday_morning, paris, now=monday, taken=taken) == datetime(
        2026, 12, 15, 8, tzinfo=UTC
    )
    # A post that Tuesday afternoon does not take the morning.
    afternoon = [datetime(2026, 12, 8, 14, tzinfo=UTC)]
    assert next_free_moment(tuesday_morning, paris, now=monday, taken=afternoon).day == 8
    # Tuesday 10:07 Paris: the usual hour has passed, the slot has not: 10:30.
    during = datetime(2026, 12, 8, 9, 7, tzinfo=UTC)
    assert next_free_moment(tuesday_morning, paris, now=during) == datetime(
        2026, 12, 8, 9, 30, tzinfo=UTC
    )
    # Tuesday 11:50 Paris: too late for today's slot: next week.
    late = datetime(2026, 12, 8, 10, 50, tzinfo=UTC)
    assert next_free_moment(tuesday_morning, paris, now=late) == datetime(
        2026, 12, 15, 8, tzinfo=UTC
    )


def test_next_best_time_samples_a_slot_and_is_never_in_the_past() -> None:
    slots = [_slot(day, start, 0.0, 0.1, 10) for day in range(7) for start in (6, 12, 18)]
    now = datetime(2026, 12, 9, 12, 34, tzinfo=UTC)
    rng = np.random.default_rng(3)
    moments = {next_best_time(slots, ZoneInfo("UTC"), now=now, rng=rng) for _ in range(200)}
    assert all(now + timedelta(minutes=15) <= m < now + timedelta(days=8) for m in moments)
    assert len(moments) > 10  # different slots get their turn


def _mostly_nothing(seed: int) -> list[PublishedPost]:
    """400 posts over a year at random moments, three in four at 0 and the rest a few
    likes, dealt out at random: no slot is better than another."""
    rng = np.random.default_rng(seed)
    start = datetime(2025, 1, 6, tzinfo=UTC)
    moments = sorted(start + timedelta(minutes=int(m)) for m in rng.integers(0, 525_600, 400))
    likes = np.where(rng.random(400) < 0.75, 0, rng.geometric(0.4, 400))
    return [
        PublishedPost(
            post_id=f"p{index}",
            content=f"post {index}",
            published_at=moment,
            likes=int(count),
            reposts=0,
            comments=0,
            impressions=None,
            has_media=False,
        )
        for index, (moment, count) in enumerate(zip(moments, likes, strict=True))
    ]


def test_slots_are_scored_against_the_creators_average_so_noise_shows_no_best_time() -> None:
    # Most posts at 0: the baseline (a median) is 0 while the average is above it. A
    # slot scored against the baseline then looks better than usual everywhere, its
    # interval wholly above 1: a "best time" read from pure noise.
    above = 0
    for seed in range(10):
        view = analyse(_mostly_nothing(seed), ZoneInfo("UTC")).view()
        used = [slot for slot in view["slots"] if slot["n"]]
        never = [slot for slot in view["slots"] if not slot["n"]]
        assert all(slot["score"] == 1.0 for slot in never)  # no evidence: your average
        assert min(slot["score"] for slot in used) < 1.0 < max(slot["score"] for slot in used)
        above += any(slot["low"] > 1.0 for slot in view["bestSlots"])
    assert above <= 2, above  # 90% intervals over 28 slots: a rare false alarm at most
