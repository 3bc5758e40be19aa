"""The outline of a carousel: its name, the caption post, and each slide's title,
text and image prompt, written by the text model.

Capable models answer one structured outline (the JSON ladder). Small models
(the embedded one) write the titles as a line list, then each slide's text in its
own short request. Whatever the model could not give (too few slides, junk,
over-long text) comes from a plain outline built from the topic, and every slide
says where it came from (`source`), so the user is told."""

from __future__ import annotations

from pydantic import BaseModel, Field

from socialgen.ai.line_lists import ask_lines
from socialgen.ai.model import TextModel
from socialgen.ai.structured import (
    ask_structured_answer,
    plans_in_lines,
    remember_plans_in_lines,
)
from socialgen.carousels.plain_outline import MAX_TITLE_CHARS, Outline, SlidePlan, plain_outline
from socialgen.drafting.prompts import Prompts
from socialgen.posts.views import snippet

_prompts = Prompts("socialgen.carousels")

MAX_TEXT_CHARS = 320
MAX_NAME_CHARS = 80
SLIDE_TEXT_CHARS = 200  # a small model's slide text: one or two short sentences
_JUNK = ("http://", "https://", "www.", "<", ">", "{", "}")


class OutlinedSlide(BaseModel):
    title: str = Field(description="At most 8 words.")
    text: str = Field(description="One or two short sentences.")
    image_prompt: str = Field(description="A simple illustration, no text in it.")


class CarouselOutline(BaseModel):
    name: str
    caption: str
    slides: list[OutlinedSlide]


async def outline_carousel(
    model: TextModel, topic: str, count: int, style: str | None = None
) -> Outline:
    if plans_in_lines(model):
        return await _outline_from_lines(model, topic, count, style)
    prompt = _prompts.render("carousel_outline", count=str(count), topic=topic, style=style or "")
    answer = await ask_structured_answer(
        model,
        [{"role": "user", "content": prompt}],
        CarouselOutline,
        max_tokens=90 * count + 200,
        # One attempt: nothing shows until the outline is ready, and an unusable
        # answer already has a stand-in (the plain outline, and the user is told).
        attempts=1,
    )
    fallback = plain_outline(topic, count)
    outline = _from_answer(answer.value, fallback, count) if answer.value else fallback
    if outline.template_slides < len(outline.slides) or answer.failed:
        return outline
    # The model answered, but nothing usable as JSON (a tiny model behind a server
    # not marked small): ask for the titles as a list; if that works, this model
    # plans in lists from now on.
    listed = await _outline_from_lines(model, topic, count, style)
    if listed.template_slides < len(listed.slides):
        remember_plans_in_lines(model)
        return listed
    return outline


def _from_answer(answer: CarouselOutline, fallback: Outline, count: int) -> Outline:
    slides = [s for s in (_slide(item) for item in answer.slides) if s is not None][:count]
    name = _clean(answer.name, MAX_NAME_CHARS) or fallback.name
    caption = _clean(answer.caption, 2500, single_line=False) or fallback.caption
    return Outline(name=name, caption=caption, slides=_filled(slides, fallback))


async def _outline_from_lines(
    model: TextModel, topic: str, count: int, style: str | None
) -> Outline:
    """Titles as a line list, then each slide's text in its own short request."""
    prompt = _prompts.render("carousel_titles", count=str(count), topic=topic, style=style or "")
    titles = [
        title
        for title in await ask_lines(
            model,
            [{"role": "user", "content": prompt}],
            count,
            max_chars=MAX_TITLE_CHARS,
        )
        if _clean(title, MAX_TITLE_CHARS)
    ]
    # One after another: a small model runs on one local server or in-process, and
    # llama_cpp.server cuts a running request short when another arrives.
    texts = [
        await _slide_text(model, topic, title, n, count) for n, title in enumerate(titles, start=1)
    ]
    slides = [
        SlidePlan(
            title=title,
            content=text,
            image_prompt=f"{title}: a simple illustration about {snippet(topic, 80)}",
        )
        for title, text in zip(titles, texts, strict=True)
        if text
    ]
    fallback = plain_outline(topic, count)
    caption = _caption_from(topic, [s.title for s in slides]) if slides else fallback.caption
    return Outline(name=fallback.name, caption=caption, slides=_filled(slides, fallback))


async def _slide_text(model: TextModel, topic: str, title: str, number: int, count: int) -> str:
    """One or two sentences for one slide; asked again, warmer, when the first
    answer only echoes the title or the instructions."""
    prompt = _prompts.render(
        "carousel_slide_text", topic=topic, title=title, number=str(number), count=str(count)
    )
    for temperature in (0.3, 0.7):
        lines = await ask_lines(
            model,
            [{"role": "user", "content": prompt}],
            1,
            max_chars=SLIDE_TEXT_CHARS,
            max_tokens=70,
            temperature=temperature,
            sentences=True,
        )
        text = _whole_sentences(lines[0]) if lines else ""
        if text and not _echoes(text, title):
            return _clean(text, MAX_TEXT_CHARS, single_line=False)
    return ""


def _whole_sentences(text: str) -> str:
    """Text a length cap cut off ends at its last full sentence, or its last whole
    word when it has no full sentence."""
    if text[-1] in ".!?":
        return text
    end = max(text.rfind(mark) for mark in (". ", "! ", "? "))
    if end > 0:
        return text[: end + 1]
    return text.rsplit(" ", 1)[0].rstrip(" ,;:-") + "."


def _echoes(text: str, title: str) -> bool:
    """The text only repeats its title (perhaps cut short) or the instructions."""
    said, titled = text.lower().rstrip("."), title.lower()
    return titled.startswith(said) or said.startswith(titled) or said.startswith(("here", "slide"))


def _caption_from(topic: str, titles: list[str]) -> str:
    """A small model's caption: its own slide titles, listed. (A 135M model's free
    caption is rarely on topic; its titles are.)"""
    listed = "\n".join(f"- {title}" for title in titles)
    return (
        f"{titles[0]}\n\n{snippet(topic, 200)}, in {len(titles)} slides:\n{listed}\n\n"
        "Swipe through and tell me which one you would start with."
    )


def _filled(slides: list[SlidePlan], fallback: Outline) -> list[SlidePlan]:
    """The model's slides in order, the rest from the plain outline (its closing
    slide last), each of those marked as template-made."""
    missing = len(fallback.slides) - len(slides)
    if missing <= 0:
        return slides[: len(fallback.slides)]
    return slides + fallback.slides[len(fallback.slides) - missing :]


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
