"""Small models plan in line lists: the grammar that holds them to it, the cleaning
of what they write, and the remote path (grammar as a body field; a provider that
refuses it is asked again without), through both remote clients."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from socialgen.ai.line_lists import ask_lines, clean_lines, line_grammar
from socialgen.ai.model import TextModel
from tests.fakes.openai_server import FAKE_API_KEY, FakeOpenAI, Reply
from tests.provider_clients import CLIENTS, ClientFake

TITLES = "1. Ship small batches\n2. Cut the release train\n- Review daily\n"


@pytest.fixture(params=CLIENTS)
def fake(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[ClientFake]:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_API_KEY)
    with ClientFake(request.param, lambda _body: Reply(text=TITLES)) as server:
        yield server


def small_model(fake: FakeOpenAI) -> TextModel:
    assert isinstance(fake, ClientFake)
    return fake.text_model(small=True)


def ask(fake: FakeOpenAI, count: int = 3, model: TextModel | None = None) -> list[str]:
    messages = [{"role": "user", "content": "Titles, one per line."}]
    model = small_model(fake) if model is None else model
    return asyncio.run(ask_lines(model, messages, count, purpose="titles"))


def test_a_remote_small_model_gets_the_grammar_as_a_body_field(fake: FakeOpenAI) -> None:
    assert ask(fake) == ["Ship small batches", "Cut the release train", "Review daily"]
    assert fake.requests[0]["grammar"] == line_grammar(3)
    assert "response_format" not in fake.requests[0]


def test_a_provider_that_refuses_the_grammar_is_asked_again_without_it(
    fake: FakeOpenAI,
) -> None:
    fake.refuses_grammar = True
    # The refusal is remembered on the model object (which a Runtime keeps), so the
    # same model is not offered the grammar again; a fresh model starts over.
    model = small_model(fake)
    assert ask(fake, model=model) == ["Ship small batches", "Cut the release train", "Review daily"]
    assert ["grammar" in body for body in fake.requests] == [True, False]
    ask(fake, model=model)
    assert ["grammar" in body for body in fake.requests] == [True, False, False]
    ask(fake)
    assert ["grammar" in body for body in fake.requests] == [True, False, False, True, False]


def test_a_failed_model_gives_no_lines(fake: FakeOpenAI) -> None:
    fake.responder = lambda _body: Reply(status=400, text="bad request")
    assert ask(fake) == []


def test_the_grammar_asks_for_exactly_count_lines_of_plain_words() -> None:
    grammar = line_grammar(4, max_words=8)
    assert grammar.startswith("root ::= line line line line\n")
    assert '(word " "){1,7} last' in grammar  # 2 to 8 words, ending between words
    assert "#" not in grammar and "*" not in grammar.split("word ::=")[1]  # no markup


def test_a_title_cut_by_the_word_cap_loses_its_dangling_and_glued_words() -> None:
    from socialgen.ai.line_lists import tidy_title

    assert tidy_title("Building a Business: Running Your Own Bakery at") == (
        "Building a Business: Running Your Own Bakery"
    )
    # "YourFirstJobOffa": words run together at the cap; what is left dangles.
    assert tidy_title("9 Key Factors To Consider YourFirstJobOffa") == "9 Key Factors To Consider"


def test_cleaning_drops_numbering_repeats_junk_and_extra_lines() -> None:
    text = (
        'Here are 3 titles:\n1) "Ship small"\n\n2. ship small\n* Review daily.\nx\n'
        + "y" * 90
        + "\nA\nOne more"
    )
    assert clean_lines(text, 3) == ["Ship small", "Review daily", "One more"]
    assert clean_lines("One\nTwo\nThree\nFour", 2) == ["One", "Two"]


def test_lines_about_the_task_instead_of_doing_it_are_dropped() -> None:
    text = (
        "Provide your response with bullet points only\nRelevant title for onboarding\n"
        "Onboarding junior engineers\nNote - This is just one example\n"
    )
    assert clean_lines(text, 4) == ["Onboarding junior engineers"]
