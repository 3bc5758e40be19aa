"""A remote model through either client (litellm, or httpx straight to an
OpenAI-compatible endpoint: ai/openai_compatible.py), against the fake OpenAI server
on a real socket: the text streams, the request carries what was asked, failures
read the same, and the registry sends `openai/…` to httpx and the rest to litellm."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel

from socialgen.ai.model import Chunk, FormatRefused, ModelError, Output, StreamCut, TextModel
from socialgen.ai.openai_compatible import OpenAICompatibleModel
from socialgen.ai.remote import LiteLLMModel
from socialgen.ai.structured import ask_structured
from socialgen.app.runtime import Runtime
from tests.fakes.openai_server import FAKE_API_KEY, Reply
from tests.provider_clients import CLIENTS, ClientFake

ASK = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "A hook?"}]


class Plan(BaseModel):
    titles: list[str]
    hook: str


@pytest.fixture(params=CLIENTS)
def fake(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[ClientFake]:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_API_KEY)
    with ClientFake(request.param) as server:
        yield server


def chunks(model: TextModel, output: Output | None = None, **options: object) -> list[Chunk]:
    async def run() -> list[Chunk]:
        return [chunk async for chunk in model.stream(ASK, output=output, **options)]  # type: ignore[arg-type]

    return asyncio.run(run())


def failure(model: TextModel, output: Output | None = None) -> ModelError:
    with pytest.raises(ModelError) as failed:
        chunks(model, output)
    return failed.value


def test_the_answer_streams_chunk_by_chunk_with_its_reasoning(fake: ClientFake) -> None:
    fake.script(Reply(text="Start with a number.", reasoning="Hooks...", chunk_chars=5))

    got = chunks(fake.text_model(), max_tokens=50, temperature=0.3)

    assert [c.text for c in got if c.text] == ["Start", " with", " a nu", "mber."]
    assert "".join(c.reasoning for c in got) == "Hooks..."
    body = fake.requests[0]
    assert body["model"] == "fake-model"  # the provider prefix is not sent
    assert body["messages"] == ASK
    assert body["stream"] is True
    assert body["max_tokens"] == 50
    assert body["temperature"] == 0.3
    assert fake.headers[0]["authorization"] == f"Bearer {FAKE_API_KEY}"


def test_a_json_schema_plan_is_asked_for_and_parses(fake: ClientFake) -> None:
    plan = {"titles": ["Ship small", "Ship often"], "hook": "Fridays are boring now."}
    fake.script(Reply.json(plan, chunk_chars=7))

    answer = asyncio.run(ask_structured(fake.text_model(), ASK, Plan))

    assert answer == Plan(**plan)
    response_format = fake.requests[0]["response_format"]
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["name"] == "plan"
    assert response_format["json_schema"]["strict"] is True
    assert response_format["json_schema"]["schema"]["required"] == ["titles", "hook"]


def test_a_grammar_goes_as_a_body_field(fake: ClientFake) -> None:
    fake.script(Reply(text="one\ntwo\n"))
    chunks(fake.text_model(small=True), Output(mode="text", grammar='root ::= "one"'))
    assert fake.requests[0]["grammar"] == 'root ::= "one"'
    assert "extra_body" not in fake.requests[0]


@pytest.mark.parametrize(
    ("status", "kind"),
    [
        (400, "BadRequestError"),
        (401, "AuthenticationError"),
        (429, "RateLimitError"),
        (500, "InternalServerError"),
    ],
)
def test_a_provider_error_reads_the_same_through_either_client(
    fake: ClientFake, status: int, kind: str
) -> None:
    fake.script(Reply(status=status, text="upstream said no"))
    error = failure(fake.text_model())
    assert type(error) is ModelError
    assert error.message.startswith(f"The AI provider failed: {kind}")
    assert "upstream said no" in error.message


def test_a_refused_format_is_a_format_refusal(fake: ClientFake) -> None:
    fake.refused_formats = {"json_schema"}  # llama_cpp.server's validation error, a 500
    error = failure(fake.text_model(), Output(mode="json_schema", schema={"type": "object"}))
    assert isinstance(error, FormatRefused)
    assert error.message.startswith("The AI provider failed: InternalServerError")


@pytest.mark.parametrize(
    "reply",
    [
        Reply(text="abcdefghijklmnop", chunk_chars=4, cut_after=2),  # the connection drops
        Reply(text="abcdefgh", finish_reason=None),  # [DONE] with no finish (llama_cpp.server)
    ],
    ids=["dropped", "no-finish-reason"],
)
def test_an_unfinished_answer_is_a_stream_cut(fake: ClientFake, reply: Reply) -> None:
    fake.script(reply)
    assert isinstance(failure(fake.text_model()), StreamCut)


def test_no_server_at_the_address_is_a_plain_failure(fake: ClientFake) -> None:
    model = fake.text_model(timeout=5)
    fake.close()
    error = failure(model)
    assert type(error) is ModelError
    assert error.message.startswith("The AI provider failed: InternalServerError")
    assert "Connection error" in error.message


def test_a_stalled_provider_times_out(fake: ClientFake) -> None:
    fake.script(Reply(text="late", first_delay=1.5))
    error = failure(fake.text_model(timeout=0.3))
    assert type(error) is ModelError
    assert error.message.startswith("The AI provider failed: Timeout")


# ------------------------------------------------------------- the client's own choices


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("openai/gpt-4o-mini", OpenAICompatibleModel),
        ("hosted_vllm/Qwen/Qwen2.5-7B-Instruct", OpenAICompatibleModel),
        ("anthropic/claude-3-5-haiku-latest", LiteLLMModel),
        ("gemini/gemini-2.0-flash", LiteLLMModel),
        ("gpt-4o-mini", LiteLLMModel),  # a bare name: litellm finds its provider
        ("openrouter/openai/gpt-4o-mini", LiteLLMModel),
    ],
)
def test_the_registry_sends_openai_compatible_models_to_httpx_and_the_rest_to_litellm(
    name: str, kind: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALGEN_MODEL", name)
    monkeypatch.setenv("SOCIALGEN_SMALL_MODEL", "0")
    assert type(Runtime().text_model()) is kind


def test_openais_own_api_gets_its_own_field_names() -> None:
    """On api.openai.com: max_completion_tokens (its reasoning models take nothing
    else), and no temperature for the models that take only the default."""
    ask = [{"role": "user", "content": "hi"}]
    mini = OpenAICompatibleModel("openai/gpt-4o-mini", api_base=None, timeout=5)
    assert mini.body(ask, None, 10, 0.2, official=True) | {"messages": []} == {
        "model": "gpt-4o-mini",
        "messages": [],
        "stream": True,
        "max_completion_tokens": 10,
        "temperature": 0.2,
    }
    reasoning = OpenAICompatibleModel("openai/gpt-5-mini", api_base=None, timeout=5)
    assert "temperature" not in reasoning.body(ask, None, 10, 0.2, official=True)
    assert reasoning.body(ask, None, 10, 0.2, official=False)["max_tokens"] == 10


def test_without_a_key_openai_is_not_called(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_BASE", raising=False)
    model = OpenAICompatibleModel("openai/gpt-4o-mini", api_base=None, timeout=5)
    error = failure(model)
    assert error.message.startswith("The AI provider failed: AuthenticationError")
    assert "socialgen provider-key set openai" in error.message


def test_a_self_hosted_model_without_an_address_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HOSTED_VLLM_API_BASE", raising=False)
    model = OpenAICompatibleModel("hosted_vllm/qwen", api_base=None, timeout=5)
    assert "set api_base (SOCIALGEN_API_BASE)" in failure(model).message


def test_a_post_through_an_openai_compatible_provider_never_imports_litellm(
    tmp_path: Path,
) -> None:
    """The point of the httpx client: `socialgen post` with an `openai/…` model
    reaches the provider and exits without importing litellm (3-4 s of start-up)."""
    script = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('litellm imported:', 'litellm' in sys.modules,"
        " file=sys.stderr))\n"
        "from socialgen.cli.main import main\n"
        "sys.argv = ['socialgen', 'post', 'why small teams ship weekly', '--json']\n"
        "main()\n"
    )
    with ClientFake("httpx") as server:
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith(("SOCIALGEN_", "OPENAI_"))
        }
        env |= server.env() | {"SOCIALGEN_HOME": str(tmp_path / "home")}
        done = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120
        )
        asked = [body["messages"][-1]["content"] for body in server.requests]
    assert done.returncode == 0, done.stderr
    assert "litellm imported: False" in done.stderr
    assert any(prompt.startswith("Write a LinkedIn post") for prompt in asked)
    events = [json.loads(line)["event"] for line in done.stdout.splitlines()]
    assert events[-1] == "post_ids"
