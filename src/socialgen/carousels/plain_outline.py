"""The plain outline: a usable carousel plan built from the topic alone, for the
slides a model could not write. Every slide in it is marked `source="template"`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from socialgen.posts.views import snippet

Source = Literal["model", "template"]
MAX_TITLE_CHARS = 80

# Middle-slide angles, applied to the topic.
FALLBACK_ANGLES = (
    ("Why it matters", "What changes when {topic} is done well."),
    ("The common mistake", "The trap most people fall into with {topic}."),
    ("What works instead", "The approach that actually works for {topic}."),
    ("A first step", "One thing to try this week for {topic}."),
    ("How to measure it", "A simple signal that {topic} is working."),
    ("An example", "What {topic} looks like in a real team."),
    ("What to avoid", "One habit that quietly undermines {topic}."),
    ("The payoff", "What you get once {topic} becomes routine."),
    ("A quick checklist", "Three questions to ask about {topic}."),
    ("Where to go next", "How to keep improving at {topic}."),
)


@dataclass(frozen=True)
class SlidePlan:
    title: str
    content: str
    image_prompt: str
    source: Source = "model"


@dataclass(frozen=True)
class Outline:
    name: str
    caption: str
    slides: list[SlidePlan]

    @property
    def image_prompts(self) -> list[str]:
        return [slide.image_prompt for slide in self.slides]

    @property
    def template_slides(self) -> int:
        return sum(slide.source == "template" for slide in self.slides)

    @property
    def source(self) -> Source:
        """ "model" only when the model wrote every slide."""
        return "template" if self.template_slides else "model"


def plain_outline(topic: str, count: int) -> Outline:
    """A usable outline without a model: hook, angles, closing slide."""
    subject = " ".join(topic.split()).rstrip(".") or "our work"
    short = snippet(subject, 60)
    title = " ".join(short.split())
    plain = 0 < len(title) <= MAX_TITLE_CHARS and not any(mark in title for mark in "<>{}/")
    hook = SlidePlan(
        title=title if plain else "A short guide",
        content=f"A short guide in {count} slides.",
        image_prompt=f"A bold abstract illustration about {short}",
        source="template",
    )
    closing = SlidePlan(
        title="Your turn",
        content="Which of these will you try first? Tell me in the comments.",
        image_prompt=f"A warm, optimistic abstract illustration about {short}",
        source="template",
    )
    middle = [
        SlidePlan(
            title=angle,
            content=text.format(topic=short),
            image_prompt=f"{angle}: an abstract illustration about {short}",
            source="template",
        )
        for angle, text in FALLBACK_ANGLES[: max(0, count - 2)]
    ]  # MAX_SLIDES - 2 angles exist, so every middle slide has one
    caption = (
        f"{subject}\n\nI put the essentials into {count} slides. "
        "Swipe through and tell me what you would add."
    )
    return Outline(name=short, caption=caption, slides=[hook, *middle, closing][:count])
