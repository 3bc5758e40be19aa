"""A structured answer with some wrong items keeps the ones the model wrote right
(ai/json_salvage.py): a cut answer keeps its complete items and drops the one it was
cut in, and nothing that is not the model's is added."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from pydantic import BaseModel

from socialgen.ai.json_salvage import keep_valid_items
from socialgen.ai.structured import ask_structured
from tests.doubles.scripted_model import ScriptedModel


class Theme(BaseModel):
    theme: str
    angle: str
    tags: list[str]


class Themes(BaseModel):
    name: str
    posts: list[Theme]


def ask(*replies: Any, attempts: int = 1) -> Themes | None:
    model = ScriptedModel(*replies)
    messages = [{"role": "user", "content": "Plan my week."}]
    return asyncio.run(ask_structured(model, messages, Themes, attempts=attempts))


def post(theme: str) -> dict[str, Any]:
    return {"theme": theme, "angle": f"Why {theme.lower()}.", "tags": ["work"]}


def test_a_cut_answer_keeps_its_complete_items_and_drops_the_cut_one() -> None:
    whole = json.dumps({"name": "Week", "posts": [post("Ship small"), post("Review daily")]})
    # Cut inside the third item, after its tags: json_repair closes it as far as it
    # went ({"theme": ..., "tags": [...]}), an item without its angle.
    cut = whole[: -len("]}")] + ', {"theme": "Measure", "tags": ["data"], "an'
    answer = ask(cut)
    assert answer is not None
    assert [p.theme for p in answer.posts] == ["Ship small", "Review daily"]
    assert answer.name == "Week"


def test_an_item_written_wrong_does_not_cost_the_others() -> None:
    wrong = {"theme": None, "angle": "No theme.", "tags": []}
    answer = ask({"name": "Week", "posts": [post("Ship small"), wrong, post("Review daily")]})
    assert answer is not None
    assert [p.theme for p in answer.posts] == ["Ship small", "Review daily"]


@pytest.mark.parametrize(
    "data",
    [
        {"name": "Week", "posts": [{"theme": "Only a theme"}]},  # no item is right
        {"name": "Week", "posts": []},  # nothing written
        {"posts": [post("Ship small")]},  # the plan's own field left out
        ["not", "an", "object"],
    ],
)
def test_nothing_is_kept_when_no_right_item_or_the_plan_is_wrong(data: Any) -> None:
    assert keep_valid_items(Themes, data) is None


def test_a_right_answer_is_kept_whole() -> None:
    data = {"name": "Week", "posts": [post("Ship small")]}
    assert keep_valid_items(Themes, data) == Themes.model_validate(data)


def test_an_answer_with_nothing_to_keep_is_still_asked_again() -> None:
    nothing = {"name": "Week", "posts": [{"theme": "x"}]}
    answer = ask(nothing, {"name": "W", "posts": [post("A")]}, attempts=2)
    assert answer is not None and [p.theme for p in answer.posts] == ["A"]
