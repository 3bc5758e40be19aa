"""Slots proposed from insights: what stands out in the creator's history, exploration
elsewhere, never more than the posts a day asked for; noise names nothing."""

from __future__ import annotations

import dataclasses
import json
from datetime import date
from zoneinfo import ZoneInfo

import numpy as np
from typer.testing import CliRunner

from socialgen.cli.main import app
from socialgen.insights.analysis import FLOOR
from socialgen.insights.history import PublishedPost
from socialgen.publishing.queue.suggest import (
    EXPLORATION,
    STANDS_OUT,
    Proposal,
    propose,
    seeded,
)
from tests.conftest import Store
from tests.insights_support import put_history
from tests.insights_synthetic import NOTHING, PLANTED, shuffled_engagement, synthetic_history

runner = CliRunner()
STRONG = dataclasses.replace(PLANTED, slot=2.5)  # Tuesday mornings: x2.5


def _proposal(
    posts: list[PublishedPost], *, per_day: int = 1, count: int = 5, seed: int = 0
) -> list[Proposal]:
    return propose(
        posts, ZoneInfo("UTC"), per_day=per_day, count=count, rng=np.random.default_rng(seed)
    )


def test_the_slot_planted_in_the_history_stands_out_and_the_rest_explore() -> None:
    found = 0
    for seed in range(6):
        proposals = _proposal(synthetic_history(400, seed=500 + seed, effects=STRONG), count=4)
        standing = [p for p in proposals if p.reason == STANDS_OUT]
        assert len(proposals) == 4
        assert all(p.reason == EXPLORATION for p in proposals if p not in standing)
        for proposal in standing:  # only ever the planted part of the week
            assert proposal.slot.weekday == PLANTED.slot_weekday
            assert PLANTED.slot_start * 60 <= proposal.slot.minute < PLANTED.slot_end * 60
            score, low, high = proposal.figures()
            assert score is not None and low is not None and high is not None
            assert 1 < low <= score <= high
        found += bool(standing)
    assert found >= 5, found  # planted x2.5 over 400 posts: found in nearly every history


def test_pure_noise_names_no_slot_that_stands_out() -> None:
    for seed in range(8):
        noise = shuffled_engagement(synthetic_history(300, seed=700 + seed, effects=NOTHING), seed)
        proposals = _proposal(noise, per_day=2, count=6, seed=seed)
        assert len(proposals) == 6
        assert {p.reason for p in proposals} == {EXPLORATION}, seed


def test_never_more_than_the_posts_a_day_and_one_slot_per_part_of_a_day() -> None:
    history = synthetic_history(400, seed=501)
    for per_day, count in ((1, 7), (2, 10), (3, 21)):
        proposals = _proposal(history, per_day=per_day, count=count)
        assert len(proposals) == count
        days = [p.slot.weekday for p in proposals]
        assert max(days.count(day) for day in set(days)) <= per_day
        parts = [(p.slot.weekday, p.slot.minute // 360) for p in proposals]
        assert len(set(parts)) == len(parts)
    assert len(_proposal(history, per_day=1, count=10)) == 7  # seven days, one each


def test_too_little_history_is_exploration_only_and_said(store: Store) -> None:
    put_history(store.engine, store.workspace_id, synthetic_history(FLOOR - 12, seed=3))
    result = runner.invoke(app, ["queue", "slots", "suggest", "--per-day", "1", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["enough"] is False and data["measured"] == FLOOR - 12
    assert data["message"].startswith(
        f"Not enough history to tell your best times: {FLOOR - 12} measured published posts, "
        f"{FLOOR} needed (12 more)."
    )
    assert len(data["slots"]) == 5 and {s["reason"] for s in data["slots"]} == {"exploration"}
    days = [s["slot"].split()[0] for s in data["slots"]]
    assert len(set(days)) == 5  # one a day
    # A person's reading says the same.
    shown = runner.invoke(app, ["queue", "slots", "suggest", "--per-day", "1"])
    assert "Not enough history" in " ".join(shown.output.split())
    assert "exploration" in shown.output


def test_with_no_history_at_all_exploration_still_proposes_daytime_slots() -> None:
    proposals = _proposal([], per_day=1, count=5)
    assert len(proposals) == 5 and {p.reason for p in proposals} == {EXPLORATION}
    assert all(p.slot.minute >= 6 * 60 for p in proposals)  # never a night never tried
    assert all(p.figures() == (None, None, None) for p in proposals)


def test_the_same_day_gives_the_same_proposal_so_apply_takes_what_was_shown(
    store: Store,
) -> None:
    assert seeded("w", date(2026, 12, 7)).random() == seeded("w", date(2026, 12, 7)).random()
    assert seeded("w", date(2026, 12, 7)).random() != seeded("w", date(2026, 12, 8)).random()
    put_history(store.engine, store.workspace_id, synthetic_history(80, seed=11))
    shown = runner.invoke(app, ["queue", "slots", "suggest", "--count", "4", "--json"])
    assert shown.exit_code == 0, shown.output
    applied = runner.invoke(app, ["queue", "slots", "suggest", "--count", "4", "--apply", "--json"])
    assert applied.exit_code == 0, applied.output
    proposed = [s["slot"] for s in json.loads(shown.stdout)["slots"]]
    data = json.loads(applied.stdout)
    assert [s["slot"] for s in data["slots"]] == proposed
    assert data["applied"]["slots"] == proposed and data["applied"]["perDay"] == 1
    listed = json.loads(runner.invoke(app, ["queue", "slots", "--json"]).stdout)
    assert listed["queues"][0]["slots"] == proposed
