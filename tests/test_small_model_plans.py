"""Small models plan in line lists: carousel titles then one request per slide text,
calendar themes one per line, questions three lines, intent one word; and every
slide or theme a template stood in for says so."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from socialgen.ai.line_lists import line_grammar, prose_grammar
from socialgen.ai.model import Chunk, Message, ModelError, Output
from socialgen.carousels.outline import outline_carousel
from socialgen.content_calendar.themes import plan_themes
from socialgen.generation.intent import classify_intent, intent_from_wording
from socialgen.generation.questions import LINE_CHARS
from socialgen.generation.writing import suggested_questions

DATA = Path(__file__).parent / "data"


@dataclass(frozen=True)
class LineCall:
    prompt: str
    output: Output | None
    purpose: str | None


class LineModel:
    """A small model that answers each request with `answer(call)`."""

    name = "test/small"
    small = True

    def __init__(self, answer: Callable[[LineCall], str]) -> None:
        self.answer = answer
        self.calls: list[LineCall] = []

    async def stream(
        self,
        messages: list[Message],
        *,
        output: Output | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        purpose: str | None = None,
    ) -> AsyncIterator[Chunk]:
        call = LineCall(messages[-1]["content"], output, purpose)
        self.calls.append(call)
        text = self.answer(call)
        if text == "FAIL":
            raise ModelError("The embedded model failed: test")
        for start in range(0, len(text), 5):
            yield Chunk(text=text[start : start + 5])


def carousel_answers(call: LineCall) -> str:
    if call.purpose == "carousel_outline":
        return (
            "1. Teams that ship weekly\n2. Small batches win\n3. Review every day\n"
            "4. Ship on Friday\n5. Start this week\n"
        )
    if call.purpose == "carousel_slide_text":
        title = call.prompt.split('titled "', 1)[1].split('"', 1)[0]
        return f"Why {title.lower()} matters to a small team.\n"
    raise AssertionError(f"a small model's outline does not ask for {call.purpose!r}")


def test_a_small_model_outlines_a_carousel_title_by_title() -> None:
    model = LineModel(carousel_answers)
    outline = asyncio.run(outline_carousel(model, "5 habits of teams that ship every week", 5))
    assert [slide.title for slide in outline.slides] == [
        "Teams that ship weekly",
        "Small batches win",
        "Review every day",
        "Ship on Friday",
        "Start this week",
    ]
    assert outline.slides[1].content == "Why small batches win matters to a small team."
    assert outline.source == "model"
    assert outline.template_slides == 0
    assert outline.caption.startswith("Teams that ship weekly\n\n")  # its own titles, listed
    assert "- Start this week" in outline.caption
    # One titles request under a 5-line grammar, then one short request per slide.
    titles_output = model.calls[0].output
    assert titles_output is not None and titles_output.grammar is not None
    assert titles_output.grammar.startswith("root ::= line line line line line\n")
    assert [call.purpose for call in model.calls] == ["carousel_outline"] + [
        "carousel_slide_text"
    ] * 5


def test_slides_a_small_model_could_not_write_come_from_the_plain_outline() -> None:
    def answers(call: LineCall) -> str:
        if call.purpose == "carousel_outline":
            return "Teams that ship weekly\nSmall batches win\n"
        return carousel_answers(call)

    outline = asyncio.run(outline_carousel(LineModel(answers), "shipping weekly", 5))
    assert [slide.source for slide in outline.slides] == ["model"] * 2 + ["template"] * 3
    assert outline.template_slides == 3
    assert outline.source == "template"
    assert outline.slides[-1].title == "Your turn"  # the plain outline's closing slide


def test_a_failed_small_model_gives_a_plain_outline_marked_as_such() -> None:
    outline = asyncio.run(outline_carousel(LineModel(lambda _call: "FAIL"), "shipping", 4))
    assert outline.template_slides == 4
    assert {slide.source for slide in outline.slides} == {"template"}


def test_a_small_model_plans_calendar_themes_one_per_line() -> None:
    def answers(call: LineCall) -> str:
        assert call.purpose == "calendar_themes"
        assert call.prompt.startswith(("List 7 short titles", "List 6 more short titles"))
        assert "about baking." in call.prompt
        return "Sourdough at dawn\nPricing a loaf\n<b>junk</b>\nPricing a loaf\nHiring help\n"

    model = LineModel(answers)
    themes = asyncio.run(plan_themes(model, "Topic: baking", "baking", 7))
    assert [t.theme for t in themes[:3]] == ["Sourdough at dawn", "Pricing a loaf", "Hiring help"]
    assert [t.source for t in themes] == ["model"] * 3 + ["template"] * 4
    assert len({t.theme for t in themes}) == 7
    # The 4 days the repeats left empty are asked once more, with 2 spare lines only,
    # naming the themes it has; still short, the first question once more, warmer
    # (the answers repeat the themes: the template stands in).
    grammars = [call.output.grammar if call.output else None for call in model.calls]
    assert grammars == [line_grammar(7), line_grammar(6), line_grammar(6)]
    first, top_up, again = (call.prompt for call in model.calls)
    assert "Sourdough at dawn; Pricing a loaf; Hiring help" in top_up
    assert again == first


def test_a_small_model_suggests_questions_as_three_lines() -> None:
    # A line not written as a question is dropped, not given a "?" (issue 30).
    model = LineModel(lambda _call: "Who is it for\nWhat changed?\nAny numbers?\n")
    questions = asyncio.run(
        suggested_questions(model, "How do I ship weekly?", "Small batches.", max_tokens=700)
    )
    assert questions == ["What changed?", "Any numbers?"]
    assert [call.purpose for call in model.calls] == ["questions"]
    output = model.calls[0].output
    assert output is not None and output.grammar == prose_grammar(3, LINE_CHARS)


def labelled(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (DATA / name).read_text().splitlines()]


@pytest.mark.parametrize("name", ["chat_intent.jsonl", "chat_intent_heldout.jsonl"])
def test_the_labelled_sets_are_balanced_and_large_enough(name: str) -> None:
    rows = labelled(name)
    assert len(rows) >= 40
    assert sum(row["intent"] == "post" for row in rows) * 2 == len(rows)
    chat = [row["message"].lower() for row in rows if row["intent"] == "chat"]
    assert sum(any(w in m for w in ("post", "hook", "linkedin")) for m in chat) >= 8


def test_clear_wording_never_asks_the_model_and_open_wording_does() -> None:
    model = LineModel(lambda _call: "post")
    assert (
        asyncio.run(classify_intent(model, "What makes a good hook in the first line?")) == "chat"
    )
    assert asyncio.run(classify_intent(model, "Draft an update announcing my new role")) == "post"
    assert model.calls == []
    open_message = "just got my AWS cert!! want to share it with my network, keep it humble"
    assert intent_from_wording(open_message) is None
    assert asyncio.run(classify_intent(model, open_message)) == "post"
    prompt, output = model.calls[0].prompt, model.calls[0].output
    assert model.calls[0].purpose == "intent"
    assert open_message in prompt
    assert output is not None and output.grammar == 'root ::= " "? ("post" | "chat")'


def test_a_failing_model_routes_an_open_message_to_an_answer() -> None:
    model = LineModel(lambda _call: "FAIL")
    assert asyncio.run(classify_intent(model, "nvm the launch thing")) == "chat"


@pytest.mark.parametrize(
    "message",
    [
        "How long should a LinkedIn post be?",
        "Is it weird to post about being laid off?",
        "I keep starting my drafts with 'I'm excited to announce' - is that a bad habit?",
        "Do emojis make a post look unprofessional?",
        "thanks, that helps",
    ],
)
def test_questions_that_mention_posts_are_chat(message: str) -> None:
    assert intent_from_wording(message) == "chat"


@pytest.mark.parametrize(
    "message",
    [
        "linkedin post on remote work pls",
        "Could you write up my thoughts on AI in recruiting?",
        "help me announce that our startup closed a seed round",
        "Here's the blog post I wrote. Can I get a version of this for linkedin?",
        "Okay let's go with the storytelling angle. Write it.",
    ],
)
def test_requests_in_varied_words_are_posts(message: str) -> None:
    assert intent_from_wording(message) == "post"


class JsonFailingModel(LineModel):
    """A model not marked small whose JSON plans are junk but whose lists are fine
    (a tiny model behind a server nobody marked small)."""

    name = "test/tiny-behind-a-server"
    small = False


def test_a_model_whose_json_plans_are_junk_twice_plans_in_lists_from_then_on() -> None:
    from socialgen.ai.structured import plans_in_lines

    def answers(call: LineCall) -> str:
        if call.output is not None and call.output.schema is not None:
            return '{"name": "x", "caption": "y", "slides": []}'  # valid JSON, no slides
        return carousel_answers(call)

    model = JsonFailingModel(answers)
    outline = asyncio.run(outline_carousel(model, "shipping weekly", 4))
    assert outline.template_slides == 0
    assert not plans_in_lines(model)  # one junk JSON plan is not a verdict
    asyncio.run(outline_carousel(model, "shipping weekly", 4))
    assert plans_in_lines(model)  # two in a row are
    asked = len(model.calls)
    asyncio.run(outline_carousel(model, "shipping weekly", 4))
    assert all(c.output is None or c.output.schema is None for c in model.calls[asked:])


def test_a_provider_failure_does_not_switch_to_lists() -> None:
    from socialgen.ai.structured import plans_in_lines

    model = JsonFailingModel(lambda _call: "FAIL")
    outline = asyncio.run(outline_carousel(model, "shipping weekly", 3))
    assert outline.template_slides == 3
    assert len(model.calls) == 1  # the JSON request only
    assert not plans_in_lines(model)


def test_a_slide_text_labelled_with_its_number_keeps_the_text_after_the_label() -> None:
    # Qwen2.5-Coder-0.5B, asked for "slide 4 of 5", wrote "Slide 4: ..." every time.
    texts = {
        "Teams that ship weekly": "Slide 1: Teams that ship weekly.",  # an echo, once more
        "Small batches win": "Slide 2 - The.",  # too short to be a slide's text
        "Ship on Friday": "Slide 4: Keep the code alive: a step forward for a.",  # cut
    }

    def answers(call: LineCall) -> str:
        if call.purpose == "carousel_slide_text":
            title = call.prompt.split('titled "', 1)[1].split('"', 1)[0]
            return texts.get(title, f"Slide 3: Small changes reach users every {title}.") + "\n"
        return carousel_answers(call)

    outline = asyncio.run(outline_carousel(LineModel(answers), "shipping weekly", 5))
    assert [(s.title, s.source) for s in outline.slides[:2]] == [
        ("Review every day", "model"),
        ("Start this week", "model"),
    ]
    assert outline.slides[0].content == "Small changes reach users every Review every day."
    assert {s.source for s in outline.slides[2:]} == {"template"}
