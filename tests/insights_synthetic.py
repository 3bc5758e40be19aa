"""A synthetic creator whose hidden effects we set, so an analysis can be checked
against the truth: what it must recover (what was planted) and nothing else.

Used by the tests (tests/test_insights_*.py) and the benchmarks (bench/insights.py,
bench/ranker_study*.py); it lives under tests/, as every double does.
Every post's text is written so that `text_features.describe()` reads it the way it
was drawn (a question hook ends its first line with "?", a statement hook has no digit),
and the features nobody planted (length, links, hashtags, emoji, other slots) are drawn
independently of engagement: an honest analysis finds nothing about them.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from socialgen.insights.history import PublishedPost

WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


@dataclass(frozen=True)
class PlantedEffects:
    """What the synthetic creator's engagement truly depends on (multipliers)."""

    question_hook: float = 1.6
    number_hook: float = 1.0
    media: float = 1.4
    slot_weekday: int = 1  # Tuesday (Monday is 0), in `timezone`
    slot_start: int = 6  # local hours [start, end)
    slot_end: int = 12
    slot: float = 1.8
    growth: float = 3.0  # the account's typical engagement grows x3 over the span
    start_level: float = 12.0  # typical engagement of an ordinary post at the start
    noise: float = 0.5  # standard deviation of log engagement around its expectation
    timezone: str = "UTC"

    @property
    def slot_weekday_name(self) -> str:
        return WEEKDAYS[self.slot_weekday]


PLANTED = PlantedEffects()
# No effect at all: growth only (the honesty baseline before any shuffling).
NOTHING = PlantedEffects(question_hook=1.0, number_hook=1.0, media=1.0, slot=1.0)

_END = datetime(2026, 6, 1, tzinfo=UTC)
# Local hours people post at: mostly the working day, little at night.
_HOUR_WEIGHTS = [1] * 6 + [4] * 6 + [5] * 6 + [3] * 6
_QUESTION_HOOKS = (
    "What would you change about how you plan your week?",
    "Have you ever shipped something you were not proud of?",
    "Why do most side projects stall after the first month?",
    "Which habit made the biggest difference to your writing?",
    "Is remote work better for deep focus?",
)
_NUMBER_HOOKS = (
    "3 things I learned from shipping every week",
    "90% of my best ideas came on walks",
    "5 mistakes I made as a first-time manager",
    "I read 40 books this year. Here is what stuck",
    "2 questions I ask before every meeting",
)
_STATEMENT_HOOKS = (
    "Shipping small changes beats planning big ones.",
    "Good writing is mostly rewriting.",
    "The best teams I worked with argued a lot.",
    "Nobody reads the long version of anything.",
    "Saying no is the most underrated skill at work.",
)
_SENTENCES = (
    "It took me a long time to see it.",
    "The hard part is not the idea but the follow-through.",
    "Most of the work happens before anyone notices.",
    "I keep coming back to the same lesson.",
    "Small steps add up faster than you expect.",
    "Feedback early saves a lot of pain later.",
    "Writing it down makes the thinking clearer.",
    "Teams move at the speed of their trust.",
)


def synthetic_history(
    n_posts: int, seed: int, effects: PlantedEffects = PLANTED, *, span_days: int = 730
) -> list[PublishedPost]:
    """`n_posts` measured posts spread over `span_days` ending 2026-06-01, oldest first."""
    rng = random.Random(seed)
    zone = ZoneInfo(effects.timezone)
    start = _END - timedelta(days=span_days)
    posts = []
    for index in range(n_posts):
        day = start + timedelta(days=rng.uniform(0, span_days))
        hour = rng.choices(range(24), weights=_HOUR_WEIGHTS)[0]
        local = datetime(day.year, day.month, day.day, hour, rng.randrange(60), tzinfo=zone)
        published_at = local.astimezone(UTC)
        hook = rng.choices(("question", "number", "statement"), weights=(1, 1, 2))[0]
        has_media = rng.random() < 0.35
        content = _text(rng, hook)
        log_level = math.log(effects.start_level) + math.log(effects.growth) * (
            (published_at - start).total_seconds() / (span_days * 86400)
        )
        if hook == "question":
            log_level += math.log(effects.question_hook)
        if hook == "number":
            log_level += math.log(effects.number_hook)
        if has_media:
            log_level += math.log(effects.media)
        if local.weekday() == effects.slot_weekday and (
            effects.slot_start <= local.hour < effects.slot_end
        ):
            log_level += math.log(effects.slot)
        engagement = max(0, round(math.exp(log_level + rng.gauss(0, effects.noise))))
        likes = round(engagement * 0.7)
        reposts = round(engagement * 0.2)
        posts.append(
            PublishedPost(
                post_id=f"synthetic-{seed}-{index:05d}",
                content=content,
                published_at=published_at,
                likes=likes,
                reposts=reposts,
                comments=engagement - likes - reposts,
                impressions=None,
                has_media=has_media,
            )
        )
    posts.sort(key=lambda post: (post.published_at, post.post_id))
    return posts


def shuffled_engagement(posts: list[PublishedPost], seed: int) -> list[PublishedPost]:
    """The same posts with their counts dealt out at random: any pattern left is noise."""
    counts = [(post.likes, post.reposts, post.comments) for post in posts]
    random.Random(seed).shuffle(counts)
    return [
        PublishedPost(
            post_id=post.post_id,
            content=post.content,
            published_at=post.published_at,
            likes=likes,
            reposts=reposts,
            comments=comments,
            impressions=post.impressions,
            has_media=post.has_media,
        )
        for post, (likes, reposts, comments) in zip(posts, counts, strict=True)
    ]


def _text(rng: random.Random, hook: str) -> str:
    """A post whose hook is of kind `hook`; length, link, hashtags and emoji at random."""
    first = rng.choice(
        {"question": _QUESTION_HOOKS, "number": _NUMBER_HOOKS}.get(hook, _STATEMENT_HOOKS)
    )
    body = " ".join(rng.choice(_SENTENCES) for _ in range(rng.randint(1, 30)))
    lines = [first, "", body]
    if rng.random() < 0.3:
        lines.append("More here: https://example.com/notes")
    if rng.random() < 0.3:
        lines.append("#writing #work")
    if rng.random() < 0.3:
        lines[-1] += " \U0001f680"
    return "\n".join(lines)
