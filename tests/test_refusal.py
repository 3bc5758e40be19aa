"""A model's answer that declines the task is no post (drafting/refusal.py): a batch
draft declined is written once more, then fails with the model's words; a post that
only starts like an apology is still a post."""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from pathlib import Path

import pytest

from socialgen.ai.model import Message, ModelError
from socialgen.drafting.refusal import is_refusal
from socialgen.drafting.writing import finished_post, write_draft
from tests.doubles.scripted_model import ScriptedModel

TOPIC = "running a bakery as a solo founder"
POST = (
    "Running a bakery alone taught me to plan every hour.\n\n"
    "I start the dough at four, sell until noon and do the books after lunch.\n\n"
    "What would you plan first?"
)
DECLINED = "I'm sorry, but I can't assist with that."
BENCH = Path(__file__).resolve().parents[1] / "bench"
MESSAGES: list[Message] = [{"role": "user", "content": "Write a LinkedIn post about it"}]


@pytest.mark.parametrize(
    "text",
    [
        DECLINED,
        DECLINED + " If you have any other questions, feel free to ask!",
        "I\u2019m sorry, but I can\u2019t help with that.",
        "I cannot write that post.",
        "Sorry, I am unable to help with this request.",
        "I apologize, but I don't have enough information to write that.",
        "As an AI language model, I cannot create content about this topic.",
        "I'm sorry for any confusion.",
    ],
)
def test_an_answer_that_declines_and_says_little_else_is_a_refusal(text: str) -> None:
    assert is_refusal(text)


@pytest.mark.parametrize(
    "text",
    [
        POST,
        "I'm sorry to say our launch failed. " + "We learned a lot from our customers. " * 6,
        "I can't stop thinking about estimates.\n\n" + "Story points never helped us ship. " * 5,
        "I can't help you hire your first salesperson. " + "But here is what worked for us. " * 6,
        "Sorry is the hardest word in support.",  # short, but it declines nothing
        "",
    ],
)
def test_a_post_that_only_opens_like_one_is_not_a_refusal(text: str) -> None:
    assert not is_refusal(text)


def test_a_refusal_is_no_finished_post_and_the_error_quotes_it() -> None:
    with pytest.raises(ModelError, match=r"declined to write this post.*can't assist"):
        finished_post(DECLINED)


@pytest.mark.parametrize("small", [True, False])
def test_a_declined_batch_draft_is_written_once_more(small: bool) -> None:
    model = ScriptedModel(DECLINED, POST)
    model.small = small
    assert asyncio.run(write_draft(model, MESSAGES, TOPIC, max_tokens=700)) == POST
    assert len(model.calls) == 2


def test_a_draft_declined_twice_fails_with_the_models_words() -> None:
    model = ScriptedModel(DECLINED, DECLINED)
    with pytest.raises(ModelError, match="declined to write this post"):
        asyncio.run(write_draft(model, MESSAGES, TOPIC, max_tokens=700))
    assert len(model.calls) == 2


def test_a_small_models_declined_second_draft_keeps_the_first() -> None:
    off_topic = "A marketing manager in New York learned to plan.\n\nWhat do you plan?"
    model = ScriptedModel(off_topic, DECLINED)
    model.small = True
    assert asyncio.run(write_draft(model, MESSAGES, TOPIC, max_tokens=700)) == off_topic


def test_the_quality_bench_counts_a_refusal_outside_the_rules() -> None:
    spec = importlib.util.spec_from_file_location("quality_bench", BENCH / "quality.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(BENCH))  # its harness
    sys.modules[spec.name] = bench  # its dataclasses look their module up
    try:
        spec.loader.exec_module(bench)
    finally:
        sys.path.remove(str(BENCH))
        del sys.modules[spec.name]
    assert bench.obeys_rules(POST)
    assert not bench.obeys_rules(DECLINED)
    assert not bench.obeys_rules("**Bold** " + POST)
