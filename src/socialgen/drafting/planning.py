"""One planning step for every plan of N items (a carousel's slides, a calendar's
themes, and any later plan): the slice says what an item is and how to ask for it,
this step decides how to ask and where each item comes from.

1. Ask for the whole plan in the richest format the model handles, as its profile
   says (ai.model_profile.profile_of): a JSON plan through the structured-output
   ladder (json_schema -> json_object -> text), or a line list under a grammar for
   small models. A JSON answer with nothing usable is asked once as a list; a model
   whose JSON plans held nothing usable twice in a row (ai.structured.
   JSON_MISSES_TO_LINES) while its lists did plans in lists from then on. Side
   answers (no top-up) teach the profile nothing. A JSON plan whose items were all
   unusable (titles that echo the prompt) is asked item by item first, when the
   slice can (`PlanSpec.next_item`), before a list.
2. Top up: when the answer was short (the model wrote the first items and stopped,
   or repeated itself), ask once more for the missing items only, naming the ones
   already planned so they are not written again. When a JSON top-up is still short,
   a slice that can (`PlanSpec.next_item`) asks for the missing items one at a time,
   each by its position (asked for several, Qwen2.5-Coder-0.5B wrote the planned
   ones again, in full, until its tokens ran out: "none new"); what is still
   missing is tried as a list; a list top-up still short asks the first question
   once more, warmer (small models echo "not these" lists; repeats are dropped).
3. Template: only what is still missing comes from the slice's template, and every
   item says where it came from (`Planned.origin`, `source`).

Side answers use the same step (suggested and refinement questions, a plan of 3 with
no top-up and no template: generation/questions.py). Every other choice that
depends on the model's size is made in drafting/planning_profile.py, re-exported here.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

from pydantic import BaseModel

from socialgen.ai.line_lists import ask_lines
from socialgen.ai.model import TextModel
from socialgen.ai.model_profile import PlanFormat, profile_of
from socialgen.ai.structured import ask_structured_answer, remember_json_plan, schema_name
from socialgen.drafting.planning_profile import (
    answers_in_lines,
    drafts_at_once,
    second_draft_when_off_topic,
    short_prompts,
    variation_prompt,
)

__all__ = [
    "SPARE_LINES",
    "Origin",
    "Plan",
    "PlanSpec",
    "Planned",
    "Source",
    "answers_in_lines",
    "drafts_at_once",
    "looks_like_junk",
    "named",
    "plan_items",
    "repeats",
    "same_key",
    "second_draft_when_off_topic",
    "short_prompts",
    "variation_prompt",
]

logger = logging.getLogger("socialgen.drafting")

Answer = TypeVar("Answer", bound=BaseModel)
Item = TypeVar("Item")
Origin = Literal["answer", "top-up", "template"]
Source = Literal["model", "template"]

# What no planned title or text may carry, in every plan: links, markup, and hashtags
# or markdown headings ("#1" is a rank and "C#" a language, not junk).
_LINKS_AND_MARKUP = re.compile(r"https?://|www\.|[<>{}]", re.IGNORECASE)
_HASHES = re.compile(r"(?:^|\s)#+(?!\d)")
SPARE_LINES = 2  # a top-up list asks a few more: repeats and lines off the topic go


def looks_like_junk(text: str, *, hashtags: bool = False) -> bool:
    """Whether `text` carries a link or markup; `hashtags` allows them (a caption)."""
    return bool(_LINKS_AND_MARKUP.search(text) or (not hashtags and _HASHES.search(text)))


def same_key(title: str) -> str:
    """What makes two items the same: their title, case and spacing aside."""
    return " ".join(title.lower().split())


@dataclass(frozen=True)
class PlanSpec(Generic[Answer, Item]):
    """What a slice tells the planning step about its plan.

    schema / items_of: the JSON plan and its items (already converted; None-free).
    json_prompt / lines_prompt (wanted, planned): ask for `wanted` items; `planned`
        is empty for the first request and names the items a top-up must not repeat.
    from_line (title, position): the item for one listed title (a slide asks the
        model for its text), or None when it cannot be made.
    title_of / usable_title: an item's title, and whether a title is fit to keep.
    templates (missing, planned): `missing` stand-ins, marked as template-made.
    about: a top-up list keeps only lines that carry a word of this (drift).
    sentences: lines are sentences (prose grammar, their punctuation kept).
    line_tokens: the token budget of a line list (else ai.line_lists' own).
    top_up: False for a side answer, where fewer items are worth less than a wait;
        a side answer's format misses do not change how plans are asked.
    next_item (position, planned): one item asked alone for `position` (1-based),
        the planned ones given, or None when the model gave none (a JSON top-up's
        missing items, one after another; None for a slice without it).
    """

    count: int
    schema: type[Answer]
    items_of: Callable[[Answer], list[Item]]
    json_prompt: Callable[[int, Sequence[Item]], str]
    lines_prompt: Callable[[int, Sequence[Item]], str]
    from_line: Callable[[str, int], Awaitable[Item | None]]
    title_of: Callable[[Item], str]
    usable_title: Callable[[str], bool]
    templates: Callable[[int, Sequence[Item]], list[Item]]
    about: str | None = None
    json_tokens: int = 60  # per item asked for
    json_extra_tokens: int = 0  # for the plan's other fields (a name, a caption)
    json_attempts: int = 2
    line_chars: int = 70
    sentences: bool = False
    line_tokens: int | None = None
    top_up: bool = True
    next_item: Callable[[int, Sequence[Item]], Awaitable[Item | None]] | None = None


@dataclass(frozen=True)
class Planned(Generic[Item]):
    item: Item
    origin: Origin  # the first answer, the top-up, or the template

    @property
    def source(self) -> Source:
        return "template" if self.origin == "template" else "model"


@dataclass(frozen=True)
class Plan(Generic[Answer, Item]):
    planned: list[Planned[Item]]
    answer: Answer | None  # the JSON answer the first items came from (its other fields)
    format: PlanFormat  # how the model was asked, in the end
    failed: bool  # the provider failed (not: the model answered nothing usable)

    @property
    def items(self) -> list[Item]:
        return [p.item for p in self.planned]

    def count(self, origin: Origin) -> int:
        return sum(p.origin == origin for p in self.planned)


async def plan_items(model: TextModel, spec: PlanSpec[Answer, Item]) -> Plan[Answer, Item]:
    """`spec.count` items: the model's, topped up, then the template's (see above)."""
    plan_format = profile_of(model).plan_format
    answer: Answer | None = None
    failed = False
    if plan_format == "json":
        answer, items, failed = await _json_items(model, spec, spec.count, [])
        if not items and not failed and _only_unusable(spec, answer):
            # A JSON plan in form, but every title unusable (Qwen2.5-Coder-0.5B titled
            # a whole outline "The Hook", "Middle Slides: One Point"...): the model
            # writes JSON; asked one item at a time, by position, it writes the items
            # themselves. A line list lost the outline's name and caption and, on one
            # topic, every slide.
            items = await _one_by_one(spec, spec.count, [])
        usable = bool(items)
        if not items and not failed:
            # An answer, but no usable JSON plan (a tiny model behind a server not
            # marked small): a list may still work for this plan; only misses in a
            # row make lists how every later plan is asked.
            items = await _line_items(model, spec, spec.count, [])
            if items:
                plan_format, answer = "lines", None
        if spec.top_up and not failed:
            remember_json_plan(model, usable=usable, lists_work=bool(items))
    else:
        items = await _line_items(model, spec, spec.count, [])
    planned = [Planned(item, "answer") for item in items[: spec.count]]
    missing = spec.count - len(planned)
    if planned and missing > 0 and spec.top_up:
        more = await _top_up(model, spec, plan_format, missing, items)
        planned += [Planned(item, "top-up") for item in more[:missing]]
    stand_ins = spec.templates(spec.count - len(planned), [p.item for p in planned])
    planned += [Planned(item, "template") for item in stand_ins]
    plan = Plan(planned[: spec.count], answer, plan_format, failed)
    logger.info(
        "plan of %d %s (%s): %d from the answer, %d topped up, %d from the template",
        spec.count,
        spec.schema.__name__,
        plan_format,
        plan.count("answer"),
        plan.count("top-up"),
        plan.count("template"),
    )
    return plan


async def _top_up(
    model: TextModel,
    spec: PlanSpec[Answer, Item],
    plan_format: PlanFormat,
    missing: int,
    planned: list[Item],
) -> list[Item]:
    """The missing items only, asked in the plan's format, the planned ones named."""
    more: list[Item] = []
    if plan_format == "json":
        _answer, more, failed = await _json_items(model, spec, missing, planned)
        if failed or (more and spec.next_item is None):
            return more
        if spec.next_item is not None:
            more += await _one_by_one(spec, missing - len(more), [*planned, *more])
        if len(more) >= missing:
            return more
    more += await _line_items(model, spec, missing - len(more), [*planned, *more])
    if len(more) < missing:
        # A small model told what is taken often echoes the instruction; asked the
        # first question again, warmer, it writes new lines (repeats are dropped).
        more += await _line_items(model, spec, missing - len(more), [*planned, *more], again=True)
    return more


def _only_unusable(spec: PlanSpec[Answer, Item], answer: Answer | None) -> bool:
    """Whether a slice that asks items alone got a JSON plan with items, none usable."""
    return spec.next_item is not None and answer is not None and bool(spec.items_of(answer))


async def _one_by_one(spec: PlanSpec[Answer, Item], wanted: int, planned: list[Item]) -> list[Item]:
    """Up to `wanted` new items asked one at a time, each for the next position;
    the first position the model gives nothing new for ends it (the next would
    fare no better, and a list is still to come)."""
    assert spec.next_item is not None
    taken = {same_key(spec.title_of(item)) for item in planned}
    items: list[Item] = []
    while len(items) < wanted:
        item = await spec.next_item(len(planned) + len(items) + 1, [*planned, *items])
        title = spec.title_of(item) if item is not None else ""
        if item is None or not spec.usable_title(title) or repeats(same_key(title), taken):
            logger.info(
                "%s item %d alone: %s",
                spec.schema.__name__,
                len(planned) + len(items) + 1,
                "nothing" if item is None else f"not new ({title!r})",
            )
            break
        taken.add(same_key(title))
        items.append(item)
    return items


async def _json_items(
    model: TextModel, spec: PlanSpec[Answer, Item], wanted: int, planned: Sequence[Item]
) -> tuple[Answer | None, list[Item], bool]:
    """The JSON answer, its usable new items, and whether the provider failed."""
    answer = await ask_structured_answer(
        model,
        [{"role": "user", "content": spec.json_prompt(wanted, planned)}],
        spec.schema,
        max_tokens=spec.json_tokens * wanted + spec.json_extra_tokens,
        attempts=spec.json_attempts,
    )
    found = spec.items_of(answer.value) if answer.value is not None else []
    taken = {same_key(spec.title_of(item)) for item in planned}
    fresh = []
    for item in found:
        key = same_key(spec.title_of(item))
        if spec.usable_title(spec.title_of(item)) and key not in taken:
            taken.add(key)
            fresh.append(item)
    if planned and found and not fresh:
        # Why a JSON top-up added nothing (bench/quality.py --log).
        logger.info("%s top-up: %d item(s), none new", spec.schema.__name__, len(found))
    return answer.value, fresh[:wanted], answer.failed


async def _line_items(
    model: TextModel,
    spec: PlanSpec[Answer, Item],
    wanted: int,
    planned: Sequence[Item],
    *,
    again: bool = False,
) -> list[Item]:
    """Up to `wanted` new items from a line list. A top-up (`planned` given) asks a
    few spare lines, warmer, and keeps only those on the topic; its prompt names the
    planned items, or (`again`) is the first prompt once more."""
    top_up = bool(planned)
    asked = min(spec.count, wanted + SPARE_LINES) if top_up else wanted
    prompt = spec.lines_prompt(spec.count, []) if again else spec.lines_prompt(asked, planned)
    lines = await ask_lines(
        model,
        [{"role": "user", "content": prompt}],
        asked,
        purpose=schema_name(spec.schema),
        max_chars=spec.line_chars,
        temperature=0.8 if top_up else 0.2,
        about=spec.about if top_up else None,
        sentences=spec.sentences,
        max_tokens=spec.line_tokens,
    )
    taken = {same_key(spec.title_of(item)) for item in planned}
    items: list[Item] = []
    for line in lines:
        if len(items) == wanted:
            break
        key = same_key(line)
        if repeats(key, taken) or not spec.usable_title(line):
            continue
        # One after another: a small model runs on one local server or in-process,
        # and llama_cpp.server cuts a running request short when another arrives.
        item = await spec.from_line(line, len(planned) + len(items) + 1)
        if item is not None:
            taken.add(key)
            items.append(item)
    return items


def repeats(key: str, taken: set[str]) -> bool:
    """A line that is, or contains (whole words), an item already planned: a top-up
    that echoes its prompt's list ("Ship small; Review daily") adds nothing new."""
    words = f" {re.sub(r'[^a-z0-9]+', ' ', key)} "
    return any(f" {re.sub(r'[^a-z0-9]+', ' ', title).strip()} " in words for title in taken)


def named(titles: Sequence[str]) -> str:
    """Titles for a prompt, one per line."""
    return "\n".join(f"- {title}" for title in titles)
