"""The plan of a calendar: one distinct theme per day, grounded in the sources.

The drafting core's planning step (drafting.planning) asks the model: themes with
angles as one JSON plan, or the themes alone as a line list (small models), then
the missing days only, naming the themes it has. Days still empty after that get a
classic post format applied to the topic, marked `source="template"` so the user
is told."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from socialgen.ai.model import TextModel
from socialgen.drafting.echo import PromptWords
from socialgen.drafting.planning import PlanSpec, looks_like_junk, named, plan_items
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
# What a theme must not merely echo ("Stories", "Theme 1"): the words of the plan's prompts.
_PROMPT_WORDS = PromptWords.of(
    prompts.raw(name)
    for name in (
        "calendar_themes",
        "calendar_themes_more",
        "calendar_theme_lines",
        "calendar_theme_lines_more",
    )
)


def usable_theme(theme: str) -> bool:
    """A few plain words, no links or markup."""
    return 0 < len(theme.split()) <= MAX_THEME_WORDS and not looks_like_junk(theme)


def echoes_prompt(theme: str, topic: str, material: str) -> bool:
    """Whether a theme only echoes the plan's instructions ("Stories", "Theme 1"): the
    format, not a theme (drafting.echo); such a theme goes through the top-up."""
    return _PROMPT_WORDS.echoed_by(theme, f"{topic} {material}")


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
    plan = await plan_items(model, _theme_spec(material, topic, count))
    return plan.items


def _theme_spec(material: str, topic: str, count: int) -> PlanSpec[CalendarThemes, DayTheme]:
    # A line list carries the material only when there is more of it than the topic.
    extra = material.strip()
    if extra == f"Topic: {topic}" or not extra:
        extra = ""
    else:
        extra = "Base them on this material:\n" + extra[:2000]

    def json_prompt(wanted: int, planned: Sequence[DayTheme]) -> str:
        if not planned:
            return prompts.render("calendar_themes", count=str(wanted), material=material)
        return prompts.render(
            "calendar_themes_more",
            count=str(wanted),
            planned=named([t.theme for t in planned]),
            material=material,
        )

    def lines_prompt(wanted: int, planned: Sequence[DayTheme]) -> str:
        if not planned:
            return prompts.render(
                "calendar_theme_lines", count=str(wanted), topic=topic, material=extra
            )
        return prompts.render(
            "calendar_theme_lines_more",
            count=str(wanted),
            topic=topic,
            planned="; ".join(t.theme for t in planned),
            material=extra,
        )

    async def from_line(line: str, _position: int) -> DayTheme:
        return DayTheme(line, "")

    def templates(missing: int, planned: Sequence[DayTheme]) -> list[DayTheme]:
        return fallback_themes(topic, missing, taken=list(planned))[:missing]

    return PlanSpec(
        count=count,
        schema=CalendarThemes,
        items_of=lambda answer: [DayTheme(p.theme.strip(), p.angle.strip()) for p in answer.posts],
        json_prompt=json_prompt,
        lines_prompt=lines_prompt,
        from_line=from_line,
        title_of=lambda theme: theme.theme,
        usable_title=lambda theme: (
            usable_theme(theme) and not echoes_prompt(theme, topic, material)
        ),
        templates=templates,
        # A warmer small model drifts: top-up lines must carry the topic or material.
        about=f"{topic} {material}",
    )


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
