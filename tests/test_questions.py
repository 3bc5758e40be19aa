"""Suggested and refinement questions go through the planning step: the model's
profile decides how they are asked (JSON, or lines under a grammar), and only whole
questions written as questions are kept; none kept, none shown (issues 29 and 30)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from fastapi.testclient import TestClient

from socialgen.ai.line_lists import prose_grammar
from socialgen.ai.structured import profile_of, remember_plans_in_lines
from socialgen.generation.intent import classify_intent
from socialgen.generation.questions import LINE_CHARS, is_whole_question
from socialgen.generation.writing import refinement_questions, suggested_questions
from tests.conftest import Store
from tests.doubles.scripted_model import ScriptedCall, ScriptedModel
from tests.generation_support import parse_sse
from tests.scripted_support import POST_TEXT, QUESTIONS, ScriptedAI

# The sighting: a piece of the answer cut mid-word, "?" added.
ANSWER = "Shipping weekly keeps a team honest. It speaks to the importance of small steps."
FRAGMENTS = ["It speaks to the import", "ance of small steps?", "It speaks to the import?"]
LINES = "Who is the post for?\nWhat changed after the switch?\nAny numbers to share?\n"


def lines_model(reply: str = LINES) -> ScriptedModel:
    """A model not marked small whose profile learnt to plan in lines."""
    model = ScriptedModel(responder=lambda _call: reply, name="learnt-lines")
    remember_plans_in_lines(model)
    return model


def test_a_model_whose_profile_plans_in_lines_gets_its_questions_as_lines() -> None:
    model = lines_model()
    questions = asyncio.run(
        suggested_questions(model, "How do I ship weekly?", ANSWER, max_tokens=700)
    )
    assert questions == LINES.splitlines()
    (call,) = model.calls
    assert call.purpose == "questions"
    assert call.schema_name is None  # not the JSON ladder
    assert call.output is not None
    assert call.output.grammar == prose_grammar(3, LINE_CHARS)
    assert call.prompt.endswith("One question per line.")


def test_refinement_questions_follow_the_profile_too() -> None:
    model = lines_model()
    assert len(asyncio.run(refinement_questions(model, POST_TEXT, max_tokens=700))) == 3
    assert [call.schema_name for call in model.calls] == [None]


def test_a_json_model_still_gets_json() -> None:
    model = ScriptedModel({"questions": QUESTIONS}, name="json-questions")
    assert asyncio.run(refinement_questions(model, POST_TEXT, max_tokens=700)) == QUESTIONS
    (call,) = model.calls
    assert call.schema_name == "questions"
    assert call.output is not None and call.output.mode == "json_schema"
    assert profile_of(model).plan_format == "json"


def test_fragments_of_the_answer_are_dropped_from_a_json_answer() -> None:
    model = ScriptedModel(
        {"questions": [*FRAGMENTS[1:], "It speaks to the import\nance?", "Who is it for?"]},
        name="json-fragments",
    )
    assert asyncio.run(suggested_questions(model, "Why ship weekly?", ANSWER, max_tokens=700)) == [
        "Who is it for?"
    ]
    assert len(model.calls) == 1  # one question kept: no top-up for a side answer


def test_fragments_are_dropped_from_lines() -> None:
    model = lines_model("It speaks to the import\nance of small steps?\nWhat changed?\n")
    assert asyncio.run(suggested_questions(model, "Why ship weekly?", ANSWER, max_tokens=700)) == [
        "What changed?"
    ]


def test_when_no_question_survives_none_is_shown() -> None:
    # JSON with nothing whole, then the list the planning step tries: nothing whole
    # either. No template stands in for the model's questions.
    model = ScriptedModel(
        {"questions": FRAGMENTS}, "It speaks to the import\nance?\n", name="json-nothing"
    )
    assert asyncio.run(suggested_questions(model, "Why ship weekly?", ANSWER, max_tokens=700)) == []
    assert [call.schema_name for call in model.calls] == ["questions", None]


def test_a_post_shows_only_whole_refinement_questions(
    ai_client: TestClient, store: Store, scripted_ai: ScriptedAI
) -> None:
    cut = POST_TEXT.split("\n")[0][:40]  # "Small teams ship weekly because nobody w"
    copied = "What is stopping your team from shipping?"  # the post's own question
    reply = {"questions": [f"{cut}?", copied, "Who is it for?", "more detail"]}
    standard = scripted_ai.respond

    def respond(call: ScriptedCall) -> Any:
        return reply if call.purpose == "questions" else standard(call)

    scripted_ai.model.responder = respond
    response = ai_client.post(
        f"/api/v1/ai-conversation/generate-post/{store.workspace_id}",
        headers={"x-api-key": store.api_key()},
        json={"userInput": "Write about shipping weekly"},
    )
    assert response.status_code == 200, response.text
    ids = next(e.data for e in parse_sse(response.text) if e.name == "post_ids")
    assert ids["refinementQuestions"] == ["Who is it for?"]


def test_a_model_whose_profile_plans_in_lines_classifies_intent_in_one_word() -> None:
    model = lines_model("post")
    assert asyncio.run(classify_intent(model, "shipping weekly, small teams")) == "post"
    (call,) = model.calls
    assert call.schema_name is None
    assert call.output is not None and call.output.grammar is not None


@pytest.mark.parametrize(
    "question",
    [
        "Who is it for?",
        "What changed?",
        "Any numbers?",
        "And what did the team learn first?",
        "In the post, which number matters most?",
        "Could you add an example (e.g. 4x faster)?",
        "Does shipping weekly keep a team honest?",
        "What is it about?",
        "What's the most memorable moment you've witnessed?",
        "How\u2019s the team doing a year on?",
        'Which "small step" came first?',
    ],
)
def test_whole_questions_are_kept(question: str) -> None:
    assert is_whole_question(question, ANSWER)


@pytest.mark.parametrize(
    "question",
    [
        "It speaks to the import\nance?",  # a line break
        "It speaks to the import?",  # a piece of the answer, no question word
        "ance of small steps?",  # starts mid-word
        "Who is it for",  # not written as a question
        "Shipping weekly keeps a team honest?",  # a sentence of the answer with "?"
        "Why? Because it works. What now?",  # more than one sentence
        "Why?",  # too short
        "What " + "else " * 30 + "?",  # too long
        " Who is it for?",  # space around it
        # Seen from the embedded model before this check (bench/quality.py):
        "How did you overcome it in a team (a detail to add, audience and 30?",
        "How can I make a cake more fun for others, even if it\u2019?",
        'A detail: "What makes this blog unique?',
        "What is the best way to grow the?",
    ],
)
def test_pieces_and_non_questions_are_dropped(question: str) -> None:
    assert not is_whole_question(question, ANSWER)


def test_questions_written_as_one_field_objects_are_still_the_models() -> None:
    # Seen from Qwen2.5-Coder-0.5B on json_object: one question per object.
    answer = {"questions": [{"question": q} for q in QUESTIONS]}
    model = ScriptedModel(answer, name="json-objects")
    assert asyncio.run(refinement_questions(model, POST_TEXT, max_tokens=700)) == QUESTIONS
    assert len(model.calls) == 1  # not asked again, nor as a list
