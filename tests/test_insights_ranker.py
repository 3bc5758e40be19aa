"""The draft ranker: learns planted text effects, says it does not know when there is
nothing to learn (shuffled engagement) or too little history, and its faces (CLI, API,
the batch's order) on a real store."""

from __future__ import annotations

import json
from typing import Any

import pytest

from socialgen.insights.history import PublishedPost
from socialgen.insights.ranker import MIN_HELD_OUT_PAIRS, train_ranker
from socialgen.insights.ranker_features import PostText
from tests.conftest import Store
from tests.doubles.scripted_model import Reply, ScriptedCall
from tests.generation_support import SseEvent, check_contract
from tests.insights_support import put_history
from tests.insights_synthetic import PLANTED, shuffled_engagement, synthetic_history
from tests.scripted_support import ScriptedAI, variation_of

QUESTION = PostText(
    "Why do most side projects stall after the first month?\n\nIt took me a while.", True
)
STATEMENT = PostText("Good writing is mostly rewriting.\n\nIt took me a while.", False)


def history(n_posts: int = 500, seed: int = 1) -> list[PublishedPost]:
    # A year: pairs within a week are dense enough to measure the ranker on.
    return synthetic_history(n_posts, seed, span_days=365)


@pytest.mark.parametrize("seed", [1, 2])
def test_planted_text_effects_are_learnt_and_the_ranker_says_it_is_confident(seed: int) -> None:
    assert PLANTED.question_hook > 1 and PLANTED.media > 1
    ranker = train_ranker(history(seed=seed))

    assert ranker.held_out_pairs >= MIN_HELD_OUT_PAIRS
    assert ranker.held_out_accuracy is not None and ranker.held_out_accuracy > 0.58
    assert ranker.confident
    question, statement = ranker.score([QUESTION, STATEMENT])
    assert question > 0.5 > statement


def test_shuffled_engagement_is_near_chance_and_almost_never_confident() -> None:
    """The honesty test: with engagement dealt out at random there is nothing to learn.
    At a 90% interval about one run in twenty may still clear 0.5 by luck; more would
    mean the interval is too narrow. Five posts a day: each post sits in dozens of
    pairs, so a bound that took the pairs for independent calls 4 of these 10 runs
    confident (the bootstrap over posts: none)."""
    accuracies, confident = [], 0
    for seed in range(1, 11):
        dense = synthetic_history(300, seed, span_days=60)
        ranker = train_ranker(shuffled_engagement(dense, seed))
        assert ranker.held_out_accuracy is not None
        accuracies.append(ranker.held_out_accuracy)
        confident += ranker.confident
    assert confident <= 1
    assert 0.45 <= sum(accuracies) / len(accuracies) <= 0.55
    assert all(abs(accuracy - 0.5) < 0.15 for accuracy in accuracies)


@pytest.mark.parametrize("n_posts", [0, 1, 5, 40])
def test_little_history_still_answers_but_not_confidently(n_posts: int) -> None:
    ranker = train_ranker(history(n_posts))

    scores = ranker.score([QUESTION, STATEMENT])
    assert len(scores) == 2 and all(0 <= score <= 1 for score in scores)
    assert not ranker.confident
    assert ranker.posts == n_posts


# --------------------------------------------------------------------------- store


def test_rank_command_and_endpoint_agree_on_a_real_store(
    store: Store, scripted_ai: ScriptedAI, client: Any
) -> None:
    put_history(store.engine, store.workspace_id, history())
    question = store.post(QUESTION.content).id
    statement = store.post(STATEMENT.content).id

    result = scripted_ai.invoke(["insights", "rank", statement, question, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [row["postId"] for row in data["ranked"]] == [question, statement]
    assert data["confident"] is True
    assert data["heldOutAccuracy"] > 0.58
    assert data["pairs"] >= MIN_HELD_OUT_PAIRS
    assert data["posts"] == 500

    answer = client.post(
        f"/api/v1/insights/{store.workspace_id}/rank",
        json={"postIds": [statement, question]},
        headers={"x-api-key": store.api_key()},
    )
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"success": True, "data": data}

    table = scripted_ai.invoke(["insights", "rank", statement, question])
    assert table.exit_code == 0, table.output
    assert "Confident:" in table.stdout
    # At 80 columns (a pipe's width) each row keeps its place and score whole beside
    # the short id (8 characters: the listings' form): "1 | 0.73 | 3f9a2c1e | <opening>".
    rows = [line for line in table.stdout.splitlines() if line.lstrip("│ ")[:1].isdigit()]
    for place, (row, line) in enumerate(zip(data["ranked"], rows, strict=True), start=1):
        cells = [cell.strip() for cell in line.strip("│ ").split("│")]
        assert cells[:3] == [str(place), f"{row['score']:.2f}", row["postId"][:8]], line


def test_rank_refuses_unknown_posts_and_too_many(
    store: Store, scripted_ai: ScriptedAI, client: Any
) -> None:
    real = store.post("A draft").id
    other = store.post("Elsewhere", workspace_id=store.workspace()).id
    key = {"x-api-key": store.api_key()}
    url = f"/api/v1/insights/{store.workspace_id}/rank"

    for ids in ([real, "ghost"], [real, other]):
        result = scripted_ai.invoke(["insights", "rank", *ids])
        assert result.exit_code == 1 and "Post not found" in result.output
        answer = client.post(url, json={"postIds": ids}, headers=key)
        assert (answer.status_code, answer.json()["message"]) == (404, "Post not found")
    too_many = [real] + [f"p{n}" for n in range(50)]
    result = scripted_ai.invoke(["insights", "rank", *too_many])
    assert result.exit_code == 1 and "At most 50 posts" in result.output
    answer = client.post(url, json={"postIds": too_many}, headers=key)
    assert (answer.status_code, answer.json()["message"]) == (
        400,
        "At most 50 posts can be ranked at once",
    )
    for body in ({}, {"postIds": "x"}, {"postIds": [3]}, {"postIds": []}):
        answer = client.post(url, json=body, headers=key)
        assert answer.status_code == 400, body


def test_a_new_creator_gets_an_answer_that_says_it_is_a_guess(
    store: Store, scripted_ai: ScriptedAI
) -> None:
    first, second = store.post(QUESTION.content).id, store.post(STATEMENT.content).id

    data = json.loads(scripted_ai.invoke(["insights", "rank", first, second, "--json"]).stdout)

    assert data["confident"] is False
    assert data["heldOutAccuracy"] is None
    assert (data["pairs"], data["posts"]) == (0, 0)
    assert [row["score"] for row in data["ranked"]] == [0.5, 0.5]
    table = scripted_ai.invoke(["insights", "rank", first, second])
    assert "Not confident:" in table.stdout


# --------------------------------------------------------------------------- batch


def hooked_reply(call: ScriptedCall) -> Reply:
    """The Conversational variation opens with a question (the planted winner)."""
    variation = variation_of(call)
    if variation == "Conversational":
        return "Why do most side projects stall after the first month?\n\nIt took me a while."
    return f"{variation} is how I work.\n\nIt took me a while."


def batch_events(ai: ScriptedAI, *args: str) -> list[SseEvent]:
    result = ai.invoke(["batch", "ship weekly", *args])
    assert result.exit_code == 0, result.output
    if "--json" not in args:
        return []
    records = [json.loads(line) for line in result.stdout.splitlines()]
    events = [SseEvent(record["event"], record["data"]) for record in records]
    check_contract(events, "batch")
    return events


def test_a_confident_ranker_orders_the_batch(store: Store, scripted_ai: ScriptedAI) -> None:
    put_history(store.engine, store.workspace_id, history())
    scripted_ai.post_reply = hooked_reply

    events = batch_events(scripted_ai, "--json")

    complete = next(e.data for e in events if e.name == "batch_complete")
    ranking = complete["ranking"]
    by_variation = {post["variationName"]: post["postId"] for post in complete["posts"]}
    assert ranking["order"][0] == by_variation["Conversational"]
    assert sorted(ranking["order"]) == sorted(by_variation.values())
    scores = [ranking["scores"][post_id] for post_id in ranking["order"]]
    assert scores == sorted(scores, reverse=True)
    assert ranking["heldOutAccuracy"] > 0.58 and ranking["pairs"] >= MIN_HELD_OUT_PAIRS
    # Still by index in `posts`: the order is the extra field's.
    assert [post["index"] for post in complete["posts"]] == [1, 2, 3, 4, 5]

    shown = scripted_ai.invoke(["batch", "ship weekly"])
    assert "In the order your history predicts" in shown.stderr
    first = shown.stdout.index("5. Conversational")
    assert all(first < shown.stdout.index(f"{n}. ") for n in range(1, 5))
    assert "score 0." in shown.stdout


def test_without_history_the_batch_has_no_ranking(store: Store, scripted_ai: ScriptedAI) -> None:
    put_history(store.engine, store.workspace_id, shuffled_engagement(history(100), 3))
    scripted_ai.post_reply = hooked_reply

    complete = next(
        e.data for e in batch_events(scripted_ai, "--json") if e.name == "batch_complete"
    )

    assert "ranking" not in complete
    shown = scripted_ai.invoke(["batch", "ship weekly"])
    assert "In the order your history predicts" not in shown.stderr


def test_each_post_is_compared_with_the_median_of_the_other_posts_of_its_week(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The ranker's "against its week" target, checked against the plain definition, also
    when the windows are taken a few rows at a time (a very dense history)."""
    import numpy as np

    from socialgen.insights import ranker_model

    rng = np.random.default_rng(3)
    day = 86400.0
    times = np.sort(rng.uniform(0, 40 * day, 120))
    times[-1] = times[-2] + 30 * day  # a lone post: compared with itself
    target = rng.normal(size=120).round(1)  # ties, as counts give
    window = ranker_model.LOCAL_WINDOW_DAYS * day
    expected = []
    for index, when in enumerate(times):
        near = np.abs(times - when) <= window
        near[index] = False
        expected.append(np.median(target[near]) if near.any() else target[index])

    assert np.allclose(ranker_model.local_median(times, target), expected)
    monkeypatch.setattr(ranker_model, "_MEDIAN_BLOCK_CELLS", 50)
    assert np.allclose(ranker_model.local_median(times, target), expected)
