"""Insights say which features the posts could not test, and why: a history whose
posts all lack media must not read as "media makes no difference"."""

from __future__ import annotations

import dataclasses
import io
from datetime import UTC
from typing import Any

from rich.console import Console

from socialgen.insights.analysis import analyse
from socialgen.insights.candidates import MIN_SIDE
from tests.insights_synthetic import synthetic_history


def untested(view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["feature"]: row for row in view["untested"]}


def test_media_without_variation_is_named_untested_not_inconclusive() -> None:
    posts = [dataclasses.replace(post, has_media=False) for post in synthetic_history(200, 12)]

    view = analyse(posts, UTC).view()

    assert untested(view)["media"] == {"feature": "media", "n": 0, "reason": "no post has it"}
    tested = {row["feature"] for row in view["findings"] + view["inconclusive"]}
    assert "media" not in tested
    # Every media post: the other side is empty.
    every = [dataclasses.replace(post, has_media=True) for post in posts]
    assert untested(analyse(every, UTC).view())["media"]["reason"] == "every post has it"


def test_a_side_too_small_says_how_many_and_how_many_it_takes() -> None:
    posts = [dataclasses.replace(post, has_media=False) for post in synthetic_history(200, 12)]
    few = [dataclasses.replace(post, has_media=i < MIN_SIDE - 1) for i, post in enumerate(posts)]
    many = [dataclasses.replace(post, has_media=i >= MIN_SIDE - 1) for i, post in enumerate(posts)]

    assert untested(analyse(few, UTC).view())["media"] == {
        "feature": "media",
        "n": MIN_SIDE - 1,
        "reason": f"only {MIN_SIDE - 1} of 200 posts have it: a test needs {MIN_SIDE} posts "
        f"with it and {MIN_SIDE} without",
    }
    assert untested(analyse(many, UTC).view())["media"]["reason"].startswith(
        f"all but {MIN_SIDE - 1} of 200 posts have it"
    )
    # With MIN_SIDE on each side it is tested, and no longer listed.
    enough = [dataclasses.replace(post, has_media=i < MIN_SIDE) for i, post in enumerate(posts)]
    assert "media" not in untested(analyse(enough, UTC).view())


def test_a_planted_history_leaves_nothing_binary_untested() -> None:
    view = analyse(synthetic_history(300, 1), UTC).view()

    assert not {"media", "a link", "hashtags", "emoji", "question hook"} & set(untested(view))
    # Below the floor nothing is tested, and nothing is listed as untested either.
    assert analyse(synthetic_history(12, 4), UTC).view()["untested"] == []


def test_the_terminal_report_prints_what_could_not_be_tested() -> None:
    from socialgen.insights.terminal import print_report

    posts = [dataclasses.replace(post, has_media=False) for post in synthetic_history(200, 12)]
    report = {
        "workspaceId": "w",
        "timezone": "UTC",
        "days": None,
        **analyse(posts, UTC).view(),
    }

    out = Console(record=True, width=100, file=io.StringIO())
    print_report(report, out)
    text = " ".join(out.export_text().split())

    assert "Could not be tested: media: no post has it" in text
