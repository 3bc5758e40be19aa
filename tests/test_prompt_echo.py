"""A slide title that only echoes the outline prompt's instructions ("The Hook",
"Middle Slides: One Point", as Qwen2.5-Coder-0.5B wrote), or a calendar theme that
echoes its own ("Stories"), is not the model's: it goes through the top-up like any
unusable title. A real title that uses a prompt word, or a title on a topic about
that word, stays."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from socialgen.carousels.outline import outline_carousel, usable_title
from socialgen.content_calendar.themes import plan_themes
from socialgen.drafting.echo import PromptWords
from tests.doubles.scripted_model import ScriptedCall, ScriptedModel
from tests.test_planning import one_slide, slides, themes

TOPIC = "why small teams ship weekly"


def test_titles_that_echo_the_instructions_are_replaced_through_the_top_up() -> None:
    model = ScriptedModel(
        slides(
            "The Hook", "Ship small", "Middle Slides: One Point", "Hook: A Bold Promise or Question"
        ),
        slides("Review daily", "Release on Friday", "Start this week"),
    )
    outline = asyncio.run(outline_carousel(model, TOPIC, 4))
    assert [s.title for s in outline.slides] == [
        "Ship small",
        "Review daily",
        "Release on Friday",
        "Start this week",
    ]
    assert [s.source for s in outline.slides] == ["model"] * 4
    _first, second = model.calls
    # The top-up asks for the 3 echoed slides and names only the real one.
    assert second.prompt.startswith("Plan a LinkedIn carousel of 3 slides")
    assert "- Ship small\n" in second.prompt and "The Hook" not in second.prompt


def test_a_topic_about_hooks_keeps_its_hook_titles() -> None:
    titles = ("The Hook", "Hook: A Bold Promise or Question", "Test your hook")
    model = ScriptedModel(slides(*titles))
    outline = asyncio.run(outline_carousel(model, "writing LinkedIn hooks that stop the scroll", 3))
    assert [s.title for s in outline.slides] == list(titles)
    assert [s.source for s in outline.slides] == ["model"] * 3
    assert len(model.calls) == 1


def test_a_slide_asked_alone_that_echoes_its_role_is_asked_once_more_warmer() -> None:
    alone = iter([one_slide("The Last Slide"), one_slide("Start this week")])

    def answer(call: ScriptedCall) -> Any:
        if call.schema_name == "carousel_outline":
            return slides("Ship small", "Review daily")  # the first answer, and the top-up
        assert call.schema_name == "carousel_slide", call.purpose
        return next(alone)

    model = ScriptedModel(responder=answer)
    outline = asyncio.run(outline_carousel(model, TOPIC, 3))
    assert [s.title for s in outline.slides] == ["Ship small", "Review daily", "Start this week"]
    assert [c.temperature for c in model.calls_for("carousel_slide")] == [0.2, 0.7]


def test_an_outline_whose_titles_all_echo_is_asked_slide_by_slide_from_slide_1() -> None:
    # Seen from Qwen2.5-Coder-0.5B on a held-out topic: every title of the JSON outline
    # was a role ("The Hook", "Middle Slides: One Point"); switched to a line list, it
    # then lost every slide to the template.
    alone = iter([one_slide("Ship small"), one_slide("Review daily"), one_slide("Start now")])

    def answer(call: ScriptedCall) -> Any:
        if call.schema_name == "carousel_outline":
            return slides("The Hook", "Middle Slides: One Point", "Sum It Up")
        assert call.schema_name == "carousel_slide", call.purpose  # never a line list
        return next(alone)

    model = ScriptedModel(responder=answer)
    outline = asyncio.run(outline_carousel(model, TOPIC, 3))
    assert [s.title for s in outline.slides] == ["Ship small", "Review daily", "Start now"]
    assert [s.source for s in outline.slides] == ["model"] * 3
    assert outline.name == "Ship weekly"  # the JSON outline's name and caption stay
    first, second, third = model.calls_for("carousel_slide")
    assert first.prompt.startswith("Write slide 1 of a LinkedIn carousel of 3 slides")
    assert "The Hook" not in first.prompt
    assert second.prompt.startswith("Write slide 2 of") and "- Ship small" in second.prompt
    assert third.prompt.startswith("Write slide 3 of") and "sums up" in third.prompt


def test_an_outline_that_was_no_json_plan_goes_to_a_line_list_not_slide_by_slide() -> None:
    # Only a plan in form but with nothing usable is asked slide by slide: an outline
    # with no slide at all says nothing of the model's JSON.
    def answer(call: ScriptedCall) -> Any:
        if call.schema_name == "carousel_outline":
            return {"name": "Ship weekly", "caption": "Small teams ship weekly.", "slides": []}
        if call.purpose == "carousel_slide_text":
            return "Small releases are easy to review."
        return "Ship small\nReview daily\nStart now"

    model = ScriptedModel(responder=answer)
    outline = asyncio.run(outline_carousel(model, TOPIC, 3))
    assert [s.title for s in outline.slides] == ["Ship small", "Review daily", "Start now"]
    assert model.calls_for("carousel_slide") == []


def test_a_slide_asked_alone_that_copies_its_example_is_never_the_models() -> None:
    # Seen from Qwen2.5-Coder-0.5B: given the plain outline's angle as an example of a
    # point to make, it titled the slide with it ("What Works Instead").
    alone = iter(
        [one_slide("The Common Mistake"), one_slide("Release on Friday"), one_slide("Start now")]
    )

    def answer(call: ScriptedCall) -> Any:
        if call.schema_name == "carousel_outline":
            return slides("Ship small", "Review daily")  # the first answer, and the top-up
        return next(alone)

    model = ScriptedModel(responder=answer)
    outline = asyncio.run(outline_carousel(model, TOPIC, 4))
    assert [s.title for s in outline.slides] == [
        "Ship small",
        "Review daily",
        "Release on Friday",
        "Start now",
    ]
    assert [s.source for s in outline.slides] == ["model"] * 4
    first, second, _last = model.calls_for("carousel_slide")
    assert 'for example "the common mistake"' in first.prompt
    assert (first.temperature, second.temperature) == (0.2, 0.7)


@pytest.mark.parametrize(
    "title",
    [
        "Last Slide: Summarizes and Invites Followers",  # reworded, as Qwen wrote it
        "Summarizes and Invites Followers",
        "Conclusion",
        "Summing Up",  # "sums up", another form
        "Slides Will Make One Point",  # "will" is no content
        "Inviting readers to follow",
        "The Hook",
        "Hook: A Bold Promise or Question",
        "Middle Slides: One Point",
        "One new point",
        "Sum it up",
        "Follow and comment",
        "Slide title",
    ],
)
def test_the_instruction_labels_are_echoes(title: str) -> None:
    assert not usable_title(title, TOPIC)


@pytest.mark.parametrize(
    "title",
    [
        "Ship small",
        "Write short posts",  # prompt words, but paired as no prompt pairs them
        "Start small",
        "Ask a bold question",  # "ask" is not a prompt word
        "LinkedIn carousel tips",
        "Why it matters",
        "One point per release",  # "release" is in no prompt
    ],
)
def test_real_titles_that_use_prompt_words_stay(title: str) -> None:
    assert usable_title(title, TOPIC)


def test_a_title_with_a_topic_word_never_echoes() -> None:
    words = PromptWords.of(["Slide 1 is the hook: a bold promise or question."])
    assert words.echoed_by("The hook", "shipping weekly")
    assert not words.echoed_by("The hook", "hooks that work")
    assert not words.echoed_by("Bold promises", "Making bold promises you keep")


def test_the_words_come_from_the_prompts_and_follow_them() -> None:
    words = PromptWords.of(["Slide 1 asks a question. $topic"])
    assert words.echoed_by("A question", "shipping weekly")
    # "hook" is in no prompt given here: not an echo of these prompts.
    assert not words.echoed_by("The hook", "shipping weekly")
    assert not words.echoed_by("Topic", "shipping weekly")  # a placeholder is no word


def test_calendar_themes_that_echo_the_instructions_are_replaced_through_the_top_up() -> None:
    model = ScriptedModel(
        themes("Stories", "Sourdough at dawn", "Lessons and stories", "Theme 1"),
        themes("Pricing a loaf", "Hiring help", "Weekend markets"),
    )
    planned = asyncio.run(plan_themes(model, "Topic: baking", "baking", 4))
    assert [t.theme for t in planned] == [
        "Sourdough at dawn",
        "Pricing a loaf",
        "Hiring help",
        "Weekend markets",
    ]
    assert {t.source for t in planned} == {"model"}
    assert model.calls[1].prompt.startswith("Plan 3 LinkedIn posts")


def test_a_calendar_about_stories_keeps_its_story_themes() -> None:
    model = ScriptedModel(themes("Stories that sell", "Customer stories", "Three lessons"))
    topic = "telling customer stories and lessons"
    planned = asyncio.run(plan_themes(model, f"Topic: {topic}", topic, 3))
    assert [t.theme for t in planned] == ["Stories that sell", "Customer stories", "Three lessons"]
    assert len(model.calls) == 1
