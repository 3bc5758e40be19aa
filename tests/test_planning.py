"""The one planning step (drafting.planning): a short plan is topped up with the
missing items only, the template stands in only for what is still missing and says
so, and how a model is asked comes from its profile, chosen once per model."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from socialgen.ai.model import ModelError
from socialgen.ai.structured import profile_of, strict_schema
from socialgen.carousels.outline import CarouselOutline, outline_carousel
from socialgen.content_calendar.themes import plan_themes
from socialgen.drafting.planning import looks_like_junk
from tests.doubles.scripted_model import ScriptedCall, ScriptedModel


def slides(*titles: str) -> dict[str, Any]:
    return {
        "name": "Ship weekly",
        "caption": "Small teams ship weekly.",
        "slides": [
            {"title": t, "text": f"What {t.lower()} means.", "image_prompt": f"{t}, drawn"}
            for t in titles
        ],
    }


def themes(*names: str) -> dict[str, Any]:
    return {"posts": [{"theme": n, "angle": f"Why {n.lower()} matters."} for n in names]}


def test_a_partial_outline_is_topped_up_with_the_missing_slides_only() -> None:
    model = ScriptedModel(
        slides("Ship small", "Review daily"),
        slides("Release on Friday", "Measure lead time", "Start this week"),
    )
    outline = asyncio.run(outline_carousel(model, "why small teams ship weekly", 5))
    assert [s.title for s in outline.slides] == [
        "Ship small",
        "Review daily",
        "Release on Friday",
        "Measure lead time",
        "Start this week",
    ]
    assert outline.template_slides == 0 and outline.source == "model"
    first, second = model.calls
    assert first.schema_name == second.schema_name == "carousel_outline"
    # The second request asks for the 3 missing slides and names the 2 it has.
    assert second.prompt.startswith("Plan a LinkedIn carousel of 3 slides")
    assert "slides 3 to 5 of 5. Slides 1 to 2 are written already" in second.prompt
    assert "Write only the 3 new slides" in second.prompt
    assert "- Ship small\n- Review daily" in second.prompt
    assert "Ship small" not in first.prompt
    assert outline.name == "Ship weekly"  # the first answer's name and caption stay


def test_partial_calendar_themes_are_topped_up_naming_the_ones_it_has() -> None:
    model = ScriptedModel(
        themes("Sourdough at dawn", "Pricing a loaf"),
        # A repeat in the top-up is dropped, not counted.
        themes("Pricing a loaf", "Hiring help", "Flour costs", "Weekend markets"),
    )
    planned = asyncio.run(plan_themes(model, "Topic: baking", "baking", 5))
    assert [t.theme for t in planned] == [
        "Sourdough at dawn",
        "Pricing a loaf",
        "Hiring help",
        "Flour costs",
        "Weekend markets",
    ]
    assert {t.source for t in planned} == {"model"}
    second = model.calls[1]
    assert second.prompt.startswith("Plan 3 LinkedIn posts")
    assert "- Sourdough at dawn\n- Pricing a loaf" in second.prompt


def test_what_the_top_up_did_not_give_is_template_marked() -> None:
    model = ScriptedModel(
        themes("Sourdough at dawn", "Pricing a loaf"),
        themes("Sourdough at dawn", "Hiring help"),  # one new theme of the 3 missing
        "",  # the top-up's last resort, a list: nothing
    )
    planned = asyncio.run(plan_themes(model, "Topic: baking", "baking", 5))
    assert [t.source for t in planned] == ["model"] * 3 + ["template"] * 2
    assert [t.theme for t in planned[:3]] == ["Sourdough at dawn", "Pricing a loaf", "Hiring help"]
    assert len(model.calls) == 2  # a top-up that gave something is not asked again
    assert len({t.theme for t in planned}) == 5


def test_a_json_top_up_with_nothing_usable_is_asked_once_as_a_list() -> None:
    def answer(call: ScriptedCall) -> Any:
        if call.schema_name == "carousel_outline":
            return slides("Ship small", "Review daily") if len(model.calls) == 1 else "no JSON"
        if call.schema_name == "carousel_slide":  # the slide asked alone: no JSON either
            return "no JSON"
        if call.purpose == "carousel_outline":  # the outline as a list of titles
            # The prompt's list echoed (seen from SmolLM2-135M), then two new titles.
            return (
                "Ship small; Review daily\nShip small\nRelease weekly on Friday\n"
                "Measure shipping lead time\n"
            )
        assert call.purpose == "carousel_slide_text", call.purpose
        return "It keeps every change small enough to ship weekly."

    model = ScriptedModel(responder=answer)
    outline = asyncio.run(outline_carousel(model, "why small teams ship weekly", 4))
    assert [s.source for s in outline.slides] == ["model"] * 4
    assert [s.title for s in outline.slides[2:]] == [
        "Release weekly on Friday",
        "Measure shipping lead time",
    ]
    listed = [c for c in model.calls_for("carousel_outline") if c.schema_name is None]
    assert len(listed) == 1 and "Ship small; Review daily" in listed[0].prompt
    assert listed[0].output is not None and listed[0].output.grammar is not None


def one_slide(title: str) -> dict[str, str]:
    return {"title": title, "text": f"Why {title.lower()}.", "image_prompt": f"{title}, drawn"}


def test_a_json_top_up_that_rewrites_the_planned_slides_asks_each_missing_one_alone() -> None:
    # Seen from Qwen2.5-Coder-0.5B on json_object: asked for slides 3 to 4 of 4, it
    # wrote slides 1 and 2 once more ("none new"), and the list after it echoed them.
    alone = iter([one_slide("Release on Friday"), one_slide("Start this week")])

    def answer(call: ScriptedCall) -> Any:
        if call.schema_name == "carousel_outline":
            return slides("Ship small", "Review daily")  # the first answer, and the top-up
        assert call.schema_name == "carousel_slide", call.purpose
        return next(alone)

    model = ScriptedModel(responder=answer)
    outline = asyncio.run(outline_carousel(model, "why small teams ship weekly", 4))
    assert [s.title for s in outline.slides] == [
        "Ship small",
        "Review daily",
        "Release on Friday",
        "Start this week",
    ]
    assert [s.source for s in outline.slides] == ["model"] * 4
    third, fourth = model.calls_for("carousel_slide")
    # Each by its number, the topic and the slides before it named; the last one closes.
    assert third.prompt.startswith("Write slide 3 of a LinkedIn carousel of 4 slides")
    assert "- Ship small\n- Review daily\n" in third.prompt
    assert "Topic: why small teams ship weekly" in third.prompt
    # A middle slide gets the plain outline's angle for its place as an example.
    assert 'makes one new point, for example "the common mistake"' in third.prompt
    assert "- Release on Friday\n" in fourth.prompt and "is the last slide" in fourth.prompt
    assert not [c for c in model.calls if c.purpose != "carousel_outline" and c.schema_name is None]


def test_a_slide_asked_alone_that_repeats_is_asked_once_more_then_the_list_gets_the_rest() -> None:
    alone = iter(
        [one_slide("Review daily"), one_slide("Release on Friday"), one_slide("Ship small")]
    )

    def answer(call: ScriptedCall) -> Any:
        if call.schema_name == "carousel_outline":
            return slides("Ship small", "Review daily")
        if call.schema_name == "carousel_slide":
            return next(alone, "no JSON")
        if call.purpose == "carousel_outline":
            return "Measure shipping lead time\n"
        return "It keeps every change small enough to ship weekly."

    model = ScriptedModel(responder=answer)
    outline = asyncio.run(outline_carousel(model, "why small teams ship weekly", 5))
    titles = [s.title for s in outline.slides]
    # Slide 3: a repeat, then a new one (warmer); slide 4: a repeat twice, which ends
    # the slides asked alone; the list gives one more; the template closes.
    assert titles == [
        "Ship small",
        "Review daily",
        "Release on Friday",
        "Measure shipping lead time",
        "Your turn",
    ]
    assert [s.source for s in outline.slides] == ["model"] * 4 + ["template"]
    temperatures = [c.temperature for c in model.calls_for("carousel_slide")]
    assert temperatures == [0.2, 0.7, 0.2, 0.7]


def test_a_failed_top_up_leaves_the_rest_to_the_template() -> None:
    from socialgen.ai.model import ModelError

    model = ScriptedModel(slides("Ship small", "Review daily"), ModelError("down"))
    outline = asyncio.run(outline_carousel(model, "shipping weekly", 4))
    assert [s.source for s in outline.slides] == ["model", "model", "template", "template"]
    assert outline.slides[-1].title == "Your turn"
    assert len(model.calls) == 2  # a provider failure is not asked again as a list


def test_the_plan_format_comes_from_the_models_profile_chosen_once() -> None:
    model = ScriptedModel(responder=lambda _call: "Sourdough at dawn\nPricing a loaf\n")
    profile = profile_of(model)
    assert profile is profile_of(model)  # kept on the model object
    # A new model object (a fresh Runtime's) starts afresh, whatever its name.
    assert profile_of(ScriptedModel(name=model.name)) is not profile
    assert profile.plan_format == "json" and profile_of(ScriptedModel(small=True)) is not profile
    assert profile_of(ScriptedModel(small=True)).plan_format == "lines"
    # What the process learnt about the model is what planning reads: no other check.
    profile.plan_format = "lines"
    planned = asyncio.run(plan_themes(model, "Topic: baking", "baking", 2))
    assert [t.theme for t in planned] == ["Sourdough at dawn", "Pricing a loaf"]
    assert all(call.schema_name is None for call in model.calls)


def junk_json_lines_fine(call: ScriptedCall) -> Any:
    """A model not marked small whose JSON plans hold nothing, whose lists are fine."""
    if call.schema_name is not None:
        return {"posts": []}
    if call.purpose == "carousel_outline":
        return "Ship small batches\nReview code daily\n"
    if call.purpose == "calendar_themes":
        return "Sourdough at dawn\nPricing a loaf\n"
    if call.purpose == "questions":
        return "Who is it for?\nWhat changed?\nAny numbers?\n"
    assert call.purpose == "carousel_slide_text", call.purpose
    return "Small batches keep every release calm."


def test_junk_json_plans_twice_in_a_row_switch_the_profile_to_lists_for_every_plan() -> None:
    model = ScriptedModel(responder=junk_json_lines_fine)
    first = asyncio.run(plan_themes(model, "Topic: baking", "baking", 2))
    assert {t.source for t in first} == {"model"}  # this plan asked as a list at once
    assert profile_of(model).plan_format == "json"  # one junk answer is not a verdict
    asyncio.run(plan_themes(model, "Topic: baking", "baking", 2))
    assert profile_of(model).plan_format == "lines"
    asked = len(model.calls)
    outline = asyncio.run(outline_carousel(model, "shipping small batches", 2))
    assert outline.template_slides == 0
    assert all(call.schema_name is None for call in model.calls[asked:])


def test_one_junk_json_plan_does_not_poison_the_process() -> None:
    # Qwen2.5-Coder-0.5B on llama_cpp.server: one unusable JSON answer switched every
    # later plan to lists, whose slide texts it echoes: whole outlines from the template.
    plans = [{"posts": []}, slides("Ship small", "Review daily"), {"posts": []}]
    plans.append(themes("Sourdough at dawn", "Pricing a loaf"))

    def answer(call: ScriptedCall) -> Any:
        if call.schema_name is not None:
            return plans.pop(0)
        return junk_json_lines_fine(call)

    model = ScriptedModel(responder=answer)
    asyncio.run(plan_themes(model, "Topic: baking", "baking", 2))  # junk, then a list
    outline = asyncio.run(outline_carousel(model, "shipping weekly", 2))
    assert [s.title for s in outline.slides] == ["Ship small", "Review daily"]
    assert profile_of(model).json_plan_misses == 0  # a usable JSON plan resets the count
    asyncio.run(plan_themes(model, "Topic: baking", "baking", 2))  # junk again: one miss
    planned = asyncio.run(plan_themes(model, "Topic: baking", "baking", 2))
    assert [t.theme for t in planned] == ["Sourdough at dawn", "Pricing a loaf"]
    assert profile_of(model).plan_format == "json"
    assert model.calls[-1].schema_name == "calendar_themes"


def test_junk_json_side_answers_do_not_switch_how_plans_are_asked() -> None:
    from socialgen.generation.writing import refinement_questions

    model = ScriptedModel(responder=junk_json_lines_fine)
    for _ in range(3):
        questions = asyncio.run(refinement_questions(model, "Ship weekly.", max_tokens=700))
        assert len(questions) == 3  # this answer asked as a list
    assert profile_of(model).plan_format == "json"
    assert profile_of(model).json_plan_misses == 0


def test_one_junk_rule_for_every_plan() -> None:
    for junk in ("See https://x.example", "<b>Bold</b>", "## Heading", "Grow #startups", "{x}"):
        assert looks_like_junk(junk)
    for fine in ("The #1 mistake", "C# for beginners", "Ship weekly"):
        assert not looks_like_junk(fine)
    assert not looks_like_junk("Ship it.\n\n#shipping", hashtags=True)  # a caption
    model = ScriptedModel(themes("Grow #startups", "Ship weekly"), themes("Hire slowly"))
    planned = asyncio.run(plan_themes(model, "Topic: startups", "startups", 2))
    assert [t.theme for t in planned] == ["Ship weekly", "Hire slowly"]
    model = ScriptedModel(slides("Grow #startups", "Ship weekly"), slides("Hire slowly"))
    outline = asyncio.run(outline_carousel(model, "startups", 2))
    assert [s.title for s in outline.slides] == ["Ship weekly", "Hire slowly"]


def test_a_small_models_list_top_up_still_short_asks_the_first_question_again() -> None:
    model = ScriptedModel(
        "Sourdough at dawn\nSourdough at dawn\n",  # the first list: one usable theme
        # The top-up (its prompt names the themes taken): an echo of the instruction.
        "Not these, they are taken: Sourdough at dawn\nSourdough at dawn\n",
        "Sourdough at dawn\nBaking bread at night\nPricing baking classes\n",
        small=True,
    )
    planned = asyncio.run(plan_themes(model, "Topic: baking", "baking", 3))
    assert [t.theme for t in planned] == [
        "Sourdough at dawn",
        "Baking bread at night",
        "Pricing baking classes",
    ]
    assert {t.source for t in planned} == {"model"}
    first, top_up, again = (call.prompt for call in model.calls)
    assert "Sourdough at dawn" in top_up and again == first


def test_a_line_repeats_a_planned_item_only_as_whole_words() -> None:
    from socialgen.drafting.planning import repeats

    assert repeats("ship small; review daily", {"ship small"})  # the list echoed
    assert repeats("review daily", {"ship small", "review daily"})
    assert not repeats("shipping weekly", {"ship"})  # a word that starts the same
    assert not repeats("hire slowly", {"ship small"})


def test_a_cut_outline_keeps_its_complete_slides_and_only_those_count_as_the_models() -> None:
    from socialgen.ai.model import ModelError

    answer = slides("Ship small", "Review daily", "Measure lead time")
    answer["slides"][1]["title"] = None  # one slide written wrong
    # Cut inside a fourth slide at the token limit (Qwen2.5-Coder-0.5B's verbose outlines).
    cut = json.dumps(answer)[: -len("]}")] + ', {"title": "Start this week", "text": "Pick'
    model = ScriptedModel(cut, ModelError("down"))  # and the top-up fails
    outline = asyncio.run(outline_carousel(model, "why small teams ship weekly", 4))
    assert [(s.title, s.source) for s in outline.slides[:2]] == [
        ("Ship small", "model"),
        ("Measure lead time", "model"),
    ]
    assert [s.source for s in outline.slides[2:]] == ["template", "template"]
    assert outline.slides[-1].title == "Your turn"  # the plain outline's, marked so
    assert "- Ship small\n- Measure lead time" in model.calls[1].prompt
    assert outline.name == "Ship weekly"


def test_slides_the_model_wrote_without_image_prompts_are_still_its_slides() -> None:
    answer = slides("Ship small", "Review daily")
    for slide in answer["slides"]:
        del slide["image_prompt"]  # seen from Qwen2.5-Coder-0.5B on json_object
    outline = asyncio.run(outline_carousel(ScriptedModel(answer), "shipping", 2))
    assert [(s.title, s.source) for s in outline.slides] == [
        ("Ship small", "model"),
        ("Review daily", "model"),
    ]
    assert outline.image_prompts == [
        "An abstract illustration of Ship small",
        "An abstract illustration of Review daily",
    ]
    # Only missing answers are filled in: the schema asked for still requires it.
    schema = strict_schema(CarouselOutline)["$defs"]["OutlinedSlide"]
    assert "image_prompt" in schema["required"] and "default" not in json.dumps(schema)


def test_an_over_long_slide_text_keeps_its_first_whole_sentences() -> None:
    # Seen from Qwen2.5-Coder-0.5B, a slide asked alone: five sentences, 400 characters.
    sentence = "Define the goals you bring to the talk before it starts. "
    answer = slides("Ship small", "Review daily")
    answer["slides"][0]["text"] = sentence * 7  # 399 characters
    answer["slides"][1]["text"] = "x" * 400  # no sentence ends within the limit
    outline = asyncio.run(outline_carousel(ScriptedModel(answer, ModelError("down")), "ship", 3))
    first = outline.slides[0]
    assert first.source == "model" and first.content == (sentence * 5).strip()
    assert [s.source for s in outline.slides[1:]] == ["template", "template"]
