"""The plan of a calendar: one distinct theme per day, grounded in the sources.

Capable models answer themes with angles as one structured plan (the JSON ladder);
small models (the embedded one) write the themes as a line list. Days the model
could not fill get a classic post format applied to the topic, marked
`source="template"` so the user is told."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from socialgen.ai.line_lists import ask_lines
from socialgen.ai.model import TextModel
from socialgen.ai.structured import (
    ask_structured_answer,
    plans_in_lines,
    remember_plans_in_lines,
)
from socialgen.drafting.prompts import Prompts

prompts = Prompts("socialgen.content_calendar")

# Used when the model cannot give a usable plan: classic post formats applied to the
# topic, so every day still has a different angle.
FALLBACK_FORMATS = (
    ("A lesson learned", "Share one lesson about {topic} and what changed after it."),
    ("A common myth", "Name a widespread belief about {topic} and why it is wrong."),
    ("How to start", "Give three concrete first steps for {topic}."),
    ("Behind the scenes", "Show how {topic} works day to day, honestly."),
    ("A question", "Ask the audience how they handle {topic} and share your own answer."),
    ("By the numbers", "Use one number about {topic} to make a point."),
    ("A mistake to avoid", "Describe a mistake people make with {topic} and the fix."),
    ("A tool or habit", "Recommend one tool or habit that helps with {topic}."),
    ("A story", "Tell a short story where {topic} made the difference."),
    ("The future", "Say where {topic} is heading and what to do about it now."),
)


MAX_THEME_WORDS = 10
_JUNK = ("http", "www.", "<", ">", "#", "{", "}")


def usable(theme: DayTheme) -> bool:
    words = theme.theme.split()
    return 0 < len(words) <= MAX_THEME_WORDS and not any(
        mark in theme.theme.lower() for mark in _JUNK
    )


class PlannedTheme(BaseModel):
    theme: str = Field(description="A few words.")
    angle: str = Field(description="One sentence: what the post says.")


class CalendarThemes(BaseModel):
    posts: list[PlannedTheme]


@dataclass(frozen=True)
class DayTheme:
    theme: str
    angle: str  # "" when the model gave the theme alone (small models)
    source: Literal["model", "template"] = "model"


async def plan_themes(model: TextModel, material: str, topic: str, count: int) -> list[DayTheme]:
    if plans_in_lines(model):
        themes = await _themes_from_lines(model, material, topic, count)
    else:
        themes, failed = await _themes_from_json(model, material, count)
        if not themes and not failed:
            # An answer, but no usable JSON plan: a list may still work (see
            # carousels.outline); if it does, this model plans in lists from now on.
            themes = await _themes_from_lines(model, material, topic, count)
            if themes:
                remember_plans_in_lines(model)
    return (themes + fallback_themes(topic, count, taken=themes))[:count]


async def _themes_from_lines(
    model: TextModel, material: str, topic: str, count: int
) -> list[DayTheme]:
    """A small model's themes: short titles, one per line. The material goes with
    them only when there is more of it than the topic itself."""
    extra = material.strip()
    if extra == f"Topic: {topic}" or not extra:
        extra = ""
    else:
        extra = "Base them on this material:\n" + extra[:2000]
    prompt = prompts.render("calendar_theme_lines", count=str(count), topic=topic, material=extra)
    messages = [{"role": "user", "content": prompt}]
    lines = await ask_lines(model, messages, count)
    themes = _distinct([DayTheme(line, "") for line in lines])
    if 0 < len(themes) < count:
        # Small models repeat themselves: the days a repeat left empty are asked once
        # more, warmer; of that answer, lines that carry nothing of the topic or
        # material (a warmer small model drifts) are dropped.
        wanted = min(count, count - len(themes) + 2)  # a few spare: the drifting ones go
        more = await ask_lines(
            model, messages, wanted, temperature=0.8, about=f"{topic} {material}"
        )
        themes = _distinct(themes + [DayTheme(line, "") for line in more])
    return themes


async def _themes_from_json(
    model: TextModel, material: str, count: int
) -> tuple[list[DayTheme], bool]:
    """The model's usable themes, and whether the provider failed."""
    answer = await ask_structured_answer(
        model,
        [
            {
                "role": "user",
                "content": prompts.render("calendar_themes", count=str(count), material=material),
            }
        ],
        CalendarThemes,
        max_tokens=60 * count,
    )
    plan = answer.value
    themes = [DayTheme(p.theme.strip(), p.angle.strip()) for p in plan.posts] if plan else []
    return _distinct(themes), answer.failed


def fallback_themes(
    topic: str, count: int, *, taken: list[DayTheme] | None = None
) -> list[DayTheme]:
    """Distinct themes from classic formats, numbered when the calendar is longer."""
    used = {t.theme.lower() for t in taken or []}
    subject = topic.strip().rstrip(".") or "our work"
    themes: list[DayTheme] = []
    round_ = 0
    while len(themes) < count:
        round_ += 1
        for name, angle in FALLBACK_FORMATS:
            label = name if round_ == 1 else f"{name} ({round_})"
            if label.lower() not in used:
                themes.append(DayTheme(label, angle.format(topic=subject), "template"))
                used.add(label.lower())
    return themes


def _distinct(themes: list[DayTheme]) -> list[DayTheme]:
    """Usable themes once each: a few plain words, no links or markup."""
    seen: set[str] = set()
    kept = []
    for theme in themes:
        key = " ".join(theme.theme.lower().split())
        if usable(theme) and key not in seen:
            seen.add(key)
            kept.append(theme)
    return kept
