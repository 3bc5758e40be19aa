"""The outline of a carousel: its name, the caption post, and each slide's title,
text and image prompt, written by the text model.

The drafting core's planning step (drafting.planning) asks the model: one JSON
outline, or (small models) the titles as a line list and then each slide's text in
its own short request; then the missing slides only, naming the ones it has (and,
when a JSON outline's top-up is still short, each missing slide alone, by number;
when every title of a JSON outline only echoed the prompt, each slide alone from
slide 1). Whatever is still missing (too few slides, junk, over-long text) comes from a plain
outline built from the topic, and every slide says where it came from (`source`),
so the user is told."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field, model_validator

from socialgen.ai.line_lists import ask_lines
from socialgen.ai.model import TextModel
from socialgen.ai.structured import ask_structured_answer
from socialgen.carousels.plain_outline import MAX_TITLE_CHARS, Outline, SlidePlan, plain_outline
from socialgen.drafting.echo import PromptWords
from socialgen.drafting.planning import (
    Plan,
    PlanSpec,
    looks_like_junk,
    named,
    plan_items,
    repeats,
    same_key,
)
from socialgen.drafting.prompts import Prompts
from socialgen.posts.views import snippet

_prompts = Prompts("socialgen.carousels")
logger = logging.getLogger("socialgen.carousels")

MAX_TEXT_CHARS = 320
MAX_NAME_CHARS = 80
NEXT_SLIDE_TOKENS = 200  # one slide asked alone: title, text, image prompt
SLIDE_TEXT_CHARS = 200  # a small model's slide text: one or two short sentences
# Asked for "slide 4 of 6", Qwen2.5-Coder-0.5B starts every text "Slide 4: ": the
# label goes, and what follows it is the text (or an echo, or too short to be one).
_SLIDE_LABEL = re.compile(r"^\W*slide\s*\d+\W*?[:.\-\u2013\u2014]\s*", re.IGNORECASE)
MIN_TEXT_WORDS = 3
# A slide asked alone is told its role: the last one's, or a middle one's (with an example).
_LAST_ROLE = "is the last slide: it sums up and invites the reader to follow or comment."
_MIDDLE_ROLE = 'makes one new point, for example "{angle}".'
# What a slide title must not merely echo: the words of the outline's own prompts.
_PROMPT_WORDS = PromptWords.of(
    [
        *(
            _prompts.raw(name)
            for name in (
                "carousel_outline",
                "carousel_outline_more",
                "carousel_slide_first",
                "carousel_slide_next",
                "carousel_titles",
                "carousel_titles_more",
            )
        ),
        _LAST_ROLE,
        _MIDDLE_ROLE.format(angle=""),
        # Rewordings of the instructions seen as titles from Qwen2.5-Coder-0.5B
        # ("Last Slide: Summarizes and Invites Followers"): never sent to a model.
        "The last slide summarizes, concludes and invites followers.",
    ]
)
# "1. Understand your goals": Qwen2.5-Coder-0.5B numbers its JSON slide titles now and
# then; the slide's place is its number ("5 ways to ..." keeps its count).
_LIST_NUMBER = re.compile(r"^\s*(?:slide\s*)?\d{1,2}\s*[.):]\s+", re.IGNORECASE)
# A text the length cap cut ends on one of these ("A Step Forward for a."): not a sentence.
_CUT_END = re.compile(
    r"\b(?:a|an|the|and|or|of|for|to|in|on|with|every|your|our|their|its)\W*$", re.IGNORECASE
)


class OutlinedSlide(BaseModel):
    title: str = Field(description="At most 8 words.")
    text: str = Field(description="One or two short sentences.")
    image_prompt: str = Field(description="A simple illustration, no text in it.")

    @model_validator(mode="before")
    @classmethod
    def _image_prompt_may_be_left_out(cls, data: Any) -> Any:
        # Qwen2.5-Coder-0.5B (json_object) wrote whole outlines without image prompts:
        # the title and text are still the model's, and a missing image prompt gets
        # the stand-in a junk one gets (_slide). Not a default: the schema keeps it
        # required, as strict providers want.
        if isinstance(data, dict) and "image_prompt" not in data:
            return {**data, "image_prompt": ""}
        return data


class CarouselSlide(OutlinedSlide):
    """One slide asked alone (a top-up's missing slides, one at a time)."""


class CarouselOutline(BaseModel):
    name: str
    caption: str
    slides: list[OutlinedSlide]


async def outline_carousel(
    model: TextModel, topic: str, count: int, style: str | None = None
) -> Outline:
    fallback = plain_outline(topic, count)
    plan = await plan_items(model, _outline_spec(model, topic, count, style or "", fallback))
    return Outline(
        name=_name(plan, fallback), caption=_caption(plan, topic, fallback), slides=plan.items
    )


def _outline_spec(
    model: TextModel, topic: str, count: int, style: str, fallback: Outline
) -> PlanSpec[CarouselOutline, SlidePlan]:
    def json_prompt(wanted: int, planned: Sequence[SlidePlan]) -> str:
        if not planned:
            return _prompts.render("carousel_outline", count=str(wanted), topic=topic, style=style)
        # Numbered, and only the missing ones: told just "not these", Qwen2.5-Coder-0.5B
        # wrote the slides it had once more (dropped as repeats), nothing new.
        return _prompts.render(
            "carousel_outline_more",
            count=str(wanted),
            first=str(len(planned) + 1),
            last=str(len(planned) + wanted),
            total=str(count),
            done=str(len(planned)),
            topic=topic,
            style=style,
            planned=named([slide.title for slide in planned]),
        )

    def lines_prompt(wanted: int, planned: Sequence[SlidePlan]) -> str:
        if not planned:
            return _prompts.render("carousel_titles", count=str(wanted), topic=topic, style=style)
        return _prompts.render(
            "carousel_titles_more",
            count=str(wanted),
            topic=topic,
            style=style,
            planned="; ".join(slide.title for slide in planned),
        )

    async def from_line(title: str, position: int) -> SlidePlan | None:
        text = await _slide_text(model, topic, title, position, count)
        if not text:
            return None
        image_prompt = f"{title}: a simple illustration about {snippet(topic, 80)}"
        return SlidePlan(title=title, content=text, image_prompt=image_prompt)

    async def next_item(position: int, planned: Sequence[SlidePlan]) -> SlidePlan | None:
        # One slide object, not an outline: asked for an outline's last slides,
        # Qwen2.5-Coder-0.5B wrote its first ones again, in full, until its tokens ran out.
        # Alone, it still titled slide after slide with the topic: each middle slide gets
        # the plain outline's angle for its place as an example of a point to make.
        example = ""  # the plain outline's angle, given as an example
        if not planned:  # the first slide (a JSON outline whose titles all echoed)
            prompt = _prompts.render(
                "carousel_slide_first", total=str(count), topic=topic, style=style
            )
        else:
            if position == count:
                role = _LAST_ROLE
            else:
                example = fallback.slides[position - 1].title
                role = _MIDDLE_ROLE.format(angle=example.lower())
            prompt = _prompts.render(
                "carousel_slide_next",
                number=str(position),
                total=str(count),
                planned=named([slide.title for slide in planned]),
                role=role,
                topic=topic,
                style=style,
            )
        taken = {same_key(slide.title) for slide in planned}
        slide = None
        for temperature in (0.2, 0.7):
            answer = await ask_structured_answer(
                model,
                [{"role": "user", "content": prompt}],
                CarouselSlide,
                max_tokens=NEXT_SLIDE_TOKENS,
                attempts=1,
                temperature=temperature,
            )
            if answer.failed:
                return None
            slide = _slide(answer.value) if answer.value is not None else None
            if slide is not None and example and same_key(slide.title) == same_key(example):
                # The example copied ("What Works Instead"): the plain outline's title,
                # not the model's; asked once more, warmer, and never kept.
                logger.info("slide %d copies its example: %r", position, slide.title)
                slide = None
                continue
            # A repeat, or a title that echoes this prompt, is asked once more, warmer.
            fresh = slide is not None and not repeats(same_key(slide.title), taken)
            if slide is not None and fresh and usable_title(slide.title, topic):
                return slide
        return slide

    def templates(missing: int, _planned: Sequence[SlidePlan]) -> list[SlidePlan]:
        # The plain outline's last slides: its closing slide stays last.
        return fallback.slides[len(fallback.slides) - missing :] if missing > 0 else []

    return PlanSpec(
        count=count,
        schema=CarouselOutline,
        items_of=lambda answer: [s for s in map(_slide, answer.slides) if s is not None],
        json_prompt=json_prompt,
        lines_prompt=lines_prompt,
        from_line=from_line,
        title_of=lambda slide: slide.title,
        usable_title=lambda title: usable_title(title, topic),
        templates=templates,
        about=topic,
        json_tokens=90,
        json_extra_tokens=200,
        # One attempt: nothing shows until the outline is ready, and an unusable
        # answer already has a stand-in (the plain outline, and the user is told).
        json_attempts=1,
        line_chars=MAX_TITLE_CHARS,
        next_item=next_item,
    )


def usable_title(title: str, topic: str) -> bool:
    """A title fit to keep: clean, and not an echo of the prompt's instructions ("The
    Hook", "Middle Slides: One Point"), which is the slide's role, not its content."""
    if not _clean(title, MAX_TITLE_CHARS):
        return False
    if echoes_prompt(title, topic):
        # Why a slide went to the top-up (bench/quality.py --log).
        logger.info("slide title echoes the prompt: %r", title)
        return False
    return True


def echoes_prompt(title: str, topic: str) -> bool:
    """Whether a slide title only echoes the outline's prompts (drafting.echo)."""
    return _PROMPT_WORDS.echoed_by(title, topic)


def _name(plan: Plan[CarouselOutline, SlidePlan], fallback: Outline) -> str:
    answer = plan.answer
    return (_clean(answer.name, MAX_NAME_CHARS) if answer else "") or fallback.name


def _caption(plan: Plan[CarouselOutline, SlidePlan], topic: str, fallback: Outline) -> str:
    """The JSON answer's caption; a list-planning model's own titles, listed; or the
    plain outline's."""
    if plan.answer is not None:
        caption = _clean(plan.answer.caption, 2500, single_line=False, hashtags=True)
        return caption or fallback.caption
    titles = [p.item.title for p in plan.planned if p.source == "model"]
    return _caption_from(topic, titles) if titles else fallback.caption


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
            purpose="carousel_slide_text",
            max_chars=SLIDE_TEXT_CHARS,
            max_tokens=70,
            temperature=temperature,
            sentences=True,
        )
        text = _SLIDE_LABEL.sub("", lines[0]).strip() if lines else ""
        text = _whole_sentences(text) if text else ""
        whole = len(text.split()) >= MIN_TEXT_WORDS and not _CUT_END.search(text)
        if whole and not _echoes(text, title):
            return _clean(text, MAX_TEXT_CHARS, single_line=False)
        # Why a listed slide went to the template (bench/quality.py --log).
        logger.info("slide %d text unusable at %.1f: %r", number, temperature, text[:80])
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


def _first_sentences(text: str, limit: int) -> str:
    """A text over `limit` characters cut to its first whole sentences within it (a
    slide asked alone, Qwen2.5-Coder-0.5B wrote five sentences, 400 characters); as it
    is when none fits (then too long: the slide is dropped)."""
    if len(text) <= limit:
        return text
    end = max(text.rfind(mark, 0, limit) for mark in (". ", "! ", "? ", ".\n", "!\n", "?\n"))
    return text[: end + 1] if end > 0 else text


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


def _slide(item: OutlinedSlide) -> SlidePlan | None:
    title = _clean(_LIST_NUMBER.sub("", item.title), MAX_TITLE_CHARS).rstrip(" ,;:-")
    text = _clean(
        _first_sentences(item.text.strip(), MAX_TEXT_CHARS), MAX_TEXT_CHARS, single_line=False
    )
    if not title or not text:
        return None
    image_prompt = _clean(item.image_prompt, 400) or f"An abstract illustration of {title}"
    return SlidePlan(title=title, content=text, image_prompt=image_prompt)


def _clean(text: str, limit: int, *, single_line: bool = True, hashtags: bool = False) -> str:
    """Trimmed text, or "" when it looks like junk (links, markup) or is too long."""
    cleaned = " ".join(text.split()) if single_line else text.strip()
    if not cleaned or len(cleaned) > limit or looks_like_junk(cleaned, hashtags=hashtags):
        return ""
    return cleaned
