"""`calendar` puts its drafts on the creator's best slots once there is enough
measured history, and keeps its usual rhythm before that."""

from __future__ import annotations

import json
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from socialgen.insights.analysis import analyse
from socialgen.kit.clock import parse_iso
from tests.conftest import Store
from tests.insights_support import put_history
from tests.insights_synthetic import synthetic_history
from tests.scripted_support import ScriptedAI

ARGS = ["calendar", "7", "--prompt", "shipping weekly", "--start", "2027-03-01", "--json"]


def suggested(scripted_ai: ScriptedAI) -> list[str]:
    result = scripted_ai.invoke(ARGS)
    assert result.exit_code == 0, result.output
    complete: dict[str, Any] = json.loads(result.stdout.splitlines()[-1])["data"]
    return [post["suggestedDate"] for post in complete["posts"]]


def test_too_little_history_keeps_the_usual_rhythm(store: Store, scripted_ai: ScriptedAI) -> None:
    put_history(store.engine, store.workspace_id, synthetic_history(29, seed=1))
    dates = suggested(scripted_ai)
    assert dates[0] == "2027-03-01T09:00:00.000Z" and dates[5] == "2027-03-06T11:00:00.000Z"


def test_enough_history_puts_each_day_in_its_best_slot(
    store: Store, scripted_ai: ScriptedAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALGEN_TIMEZONE", "Asia/Tokyo")
    history = synthetic_history(300, seed=1)
    put_history(store.engine, store.workspace_id, history)
    tokyo = ZoneInfo("Asia/Tokyo")
    slots = analyse(history, tokyo).view()["slots"]
    local = [parse_iso(text).astimezone(tokyo) for text in suggested(scripted_ai)]
    assert [moment.day for moment in local] == list(range(1, 8))  # still one a day
    for moment in local:
        weekday = [s for s in slots if s["weekday"] == moment.strftime("%A")]
        chosen = next(s for s in weekday if s["start"] <= moment.hour < s["end"])
        candidates = [s for s in weekday if s["start"] != 0 or s["n"] > 0]
        assert chosen["score"] == max(s["score"] for s in candidates), moment
    assert local[0].hour != 9 or local[1].hour != 9  # not the fixed rhythm
