"""The candidate features findings are tested on, in words a person reads.

Each candidate is a category whose levels split the posts: a binary feature is "on"
against "off", the hook is question or number against statement, weekday and part of
day are each level against the rest. Only a level with at least MIN_SIDE posts on
each side is tested; smaller levels are folded into the reference, so no estimate
rests on a handful of posts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np
from numpy.typing import NDArray

from socialgen.insights.history import PublishedPost
from socialgen.insights.text_features import has_emoji, has_hashtag, has_link, hook_kind, hook_of

MIN_SIDE = 8
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
PLURAL_WEEKDAYS = tuple(f"{day}s" for day in WEEKDAYS)
PARTS_OF_DAY = (
    (0, "at night"),
    (6, "in the morning"),
    (12, "in the afternoon"),
    (18, "in the evening"),
)


@dataclass(frozen=True)
class Level:
    label: str  # "question hook", "posted on Tuesdays" ...
    mask: NDArray[np.bool_]
    tested: bool  # False for "off" sides and references: they are what is compared with


@dataclass(frozen=True)
class Category:
    levels: tuple[Level, ...]
    # "reference": a tested level is compared with `reference` (the first untested
    # level); "rest": with every other post.
    contrast: str


def candidate_categories(
    posts: Sequence[PublishedPost], local_times: Sequence[datetime]
) -> list[Category]:
    texts = [post.content for post in posts]
    hooks = np.array([hook_kind(hook_of(text)) for text in texts])
    characters = np.array([len(text.strip()) for text in texts])
    median_characters = int(np.median(characters)) if characters.size else 0
    weekday = np.array([moment.weekday() for moment in local_times], dtype=np.int64)
    hour = np.array([moment.hour for moment in local_times], dtype=np.int64)

    def binary(label: str, mask: NDArray[np.bool_]) -> Category:
        return Category((Level(label, mask, True), Level("", ~mask, False)), "reference")

    categories = [
        Category(
            (
                Level("statement hook", hooks == "statement", False),
                Level("question hook", hooks == "question", True),
                Level("number hook", hooks == "number", True),
            ),
            "reference",
        ),
        binary(
            f"long posts (over {median_characters} characters)",
            characters > median_characters,
        ),
        binary("a link", np.array([has_link(text) for text in texts], dtype=bool)),
        binary("hashtags", np.array([has_hashtag(text) for text in texts], dtype=bool)),
        binary("media", np.array([post.has_media for post in posts], dtype=bool)),
        binary("emoji", np.array([has_emoji(text) for text in texts], dtype=bool)),
    ]
    per_day = np.bincount(weekday, minlength=7)
    if per_day.min(initial=0) >= 2 * MIN_SIDE:
        categories.append(
            Category(
                tuple(
                    Level(f"posted on {PLURAL_WEEKDAYS[day]}", weekday == day, True)
                    for day in range(7)
                ),
                "rest",
            )
        )
    else:
        categories.append(binary("posted on weekends", weekday >= 5))
    categories.append(
        Category(
            tuple(
                Level(f"posted {words} ({start}-{start + 6})", (hour // 6) == start // 6, True)
                for start, words in PARTS_OF_DAY
            ),
            "rest",
        )
    )
    return categories
