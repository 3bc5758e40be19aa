"""The outline of a carousel: its name, the caption post, and each slide's title,
text and image prompt. Asked of the text model as structured output; anything
unusable (too few slides, junk, over-long text) is replaced by a plain outline
built from the topic, so a carousel is always made."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, Field

from socialgen.ai.model import TextModel
from socialgen.ai.structured import ask_structured
from socialgen.generation.prompts import render
from socialgen.posts.views import snippet

MAX_TITLE_CHARS = 80
MAX_TEXT_CHARS = 320
MAX_NAME_CHARS = 80
_JUNK = ("http://", "https://", "www.", "<", ">", "{", "}")

# Middle-slide angles for the plain outline, applied to the topic.
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


class OutlinedSlide(BaseModel):
    title: str = Field(description="At most 8 words.")
    text: str = Field(description="One or two short sentences.")
    image_prompt: str = Field(description="A simple illustration, no text in it.")


class CarouselOutlineAnswer(BaseModel):
    name: str
    caption: str
    slides: list[OutlinedSlide]


@dataclass(frozen=True)
class SlidePlan:
    title: str
    content: str
    image_prompt: str


@dataclass(frozen=True)
class Outline:
    name: str
    caption: str
    slides: list[SlidePlan]

    @property
    def image_prompts(self) -> list[str]:
        return [slide.image_prompt for slide in self.slides]


async def outline_carousel(
    model: TextModel, topic: str, count: int, style: str | None = None
) -> Outline:
    answer = await ask_structured(
        model,
        [
            {
                "role": "user",
                "content": render(
                    "carousel_outline", count=str(count), topic=topic, style=style or ""
                ),
            }
        ],
        CarouselOutlineAnswer,
        max_tokens=90 * count + 200,
        # One attempt: nothing shows until the outline is ready, and an unusable
        # answer already has a good replacement (the plain outline).
        attempts=1,
    )
    fallback = plain_outline(topic, count)
    if answer is None:
        return fallback
    slides = [s for s in (_slide(item) for item in answer.slides) if s is not None][:count]
    # Keep the model's slides in order and fill the rest from the plain outline,
    # keeping its closing slide last.
    missing = count - len(slides)
    if missing > 0:
        slides = slides + fallback.slides[len(fallback.slides) - missing :]
    name = _clean(answer.name, MAX_NAME_CHARS) or fallback.name
    caption = _clean(answer.caption, 2500, single_line=False) or fallback.caption
    return Outline(name=name, caption=caption, slides=slides)


def plain_outline(topic: str, count: int) -> Outline:
    """A usable outline without a model: hook, angles, closing slide."""
    subject = " ".join(topic.split()).rstrip(".") or "our work"
    short = snippet(subject, 60)
    hook = SlidePlan(
        title=_clean(short, MAX_TITLE_CHARS) or "A short guide",
        content=f"A short guide in {count} slides.",
        image_prompt=f"A bold abstract illustration about {short}",
    )
    closing = SlidePlan(
        title="Your turn",
        content="Which of these will you try first? Tell me in the comments.",
        image_prompt=f"A warm, optimistic abstract illustration about {short}",
    )
    middle = [
        SlidePlan(
            title=title,
            content=text.format(topic=short),
            image_prompt=f"{title}: an abstract illustration about {short}",
        )
        for title, text in FALLBACK_ANGLES[: max(0, count - 2)]
    ]  # MAX_SLIDES - 2 angles exist, so every middle slide has one
    caption = (
        f"{subject}\n\nI put the essentials into {count} slides. "
        "Swipe through and tell me what you would add."
    )
    return Outline(name=short, caption=caption, slides=[hook, *middle, closing][:count])


def _slide(item: OutlinedSlide) -> SlidePlan | None:
    title = _clean(item.title, MAX_TITLE_CHARS).rstrip(" ,;:-")
    text = _clean(item.text, MAX_TEXT_CHARS, single_line=False)
    if not title or not text:
        return None
    image_prompt = _clean(item.image_prompt, 400) or f"An abstract illustration of {title}"
    return SlidePlan(title=title, content=text, image_prompt=image_prompt)


def _clean(text: str, limit: int, *, single_line: bool = True) -> str:
    """Trimmed text, or "" when it looks like junk (links, markup) or is too long."""
    cleaned = " ".join(text.split()) if single_line else text.strip()
    if not cleaned or len(cleaned) > limit or any(mark in cleaned.lower() for mark in _JUNK):
        return ""
    return cleaned
