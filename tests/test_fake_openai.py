"""The fake OpenAI server, exercised through litellm for real (real socket, no network).

These tests also pin down how litellm 1.106 behaves against an OpenAI-compatible
endpoint, which the project relies on:

- streamed reasoning arrives as `chunk.choices[0].delta.reasoning_content`;
- HTTP errors map to litellm exceptions by status (500 -> InternalServerError, ...);
- a stream whose connection drops mid-way raises `litellm.exceptions.MidStreamFallbackError`
  (a ServiceUnavailableError) whose `original_exception` is an APIConnectionError and
  whose `generated_content` is the text received so far;
- no byte before the timeout -> `Timeout`; a stream that stalls longer than the
  timeout between chunks -> MidStreamFallbackError (not Timeout);
- without `num_retries=0` the OpenAI client retries 429/5xx/timeouts twice (backoff
  ~0.5 s, ~1 s), so every call here passes num_retries=0.
"""

from __future__ import annotations

import os

# Before litellm is imported: otherwise importing it fetches the cost map from the network.
os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import litellm
import pytest
from litellm import CustomStreamWrapper, ModelResponse, ModelResponseStream
from litellm.exceptions import (
    APIConnectionError,
    AuthenticationError,
    BadRequestError,
    InternalServerError,
    MidStreamFallbackError,
    RateLimitError,
    ServiceUnavailableError,
    Timeout,
)
from litellm.types.utils import Choices

from tests.fakes.openai_server import (
    DEFAULT_TEXT,
    FakeOpenAI,
    Reply,
    last_user_message,
    wants_json,
)

litellm.telemetry = False
litellm.suppress_debug_info = True  # no "Give Feedback / Get Help" banner on errors

# litellm 1.106 itself trips these (pydantic 2.11 deprecations, a ReadOnly TypedDict item).
pytestmark = [
    pytest.mark.filterwarnings("ignore::pydantic.warnings.PydanticDeprecatedSince211"),
    pytest.mark.filterwarnings("ignore:Item .* is using the `ReadOnly` qualifier:UserWarning"),
]

TIMEOUT = 5.0
MESSAGES = [{"role": "user", "content": "Write a post about shipping weekly"}]


@pytest.fixture
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        yield server


@pytest.fixture(scope="module")
def warm() -> None:
    """One throwaway streamed call plus one failing call: litellm's first call in a
    process pays ~1 s of lazy imports and client set-up, which would skew timings."""
    with FakeOpenAI() as server:
        server.script(Reply(text="warm up"), Reply(text="abcdefgh", cut_after=1))
        asyncio.run(_stream(server))
        with pytest.raises(MidStreamFallbackError):
            asyncio.run(_stream(server))


async def _call(fake: FakeOpenAI, *, stream: bool, **kwargs: Any) -> Any:
    options: dict[str, Any] = {
        "messages": MESSAGES,
        "timeout": TIMEOUT,
        "num_retries": 0,
        **kwargs,
    }
    return await litellm.acompletion(
        model="openai/fake-model",
        api_base=fake.base_url,
        api_key="sk-fake",
        stream=stream,
        **options,
    )


async def _stream(fake: FakeOpenAI, **kwargs: Any) -> list[ModelResponseStream]:
    response = await _call(fake, stream=True, **kwargs)
    assert isinstance(response, CustomStreamWrapper)
    return [chunk async for chunk in response]


async def _complete(fake: FakeOpenAI, **kwargs: Any) -> ModelResponse:
    response = await _call(fake, stream=False, **kwargs)
    assert isinstance(response, ModelResponse)
    return response


def _contents(chunks: list[ModelResponseStream]) -> list[str]:
    return [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]


def _reasonings(chunks: list[ModelResponseStream]) -> list[str]:
    return [
        c.choices[0].delta.reasoning_content
        for c in chunks
        if c.choices and getattr(c.choices[0].delta, "reasoning_content", None)
    ]


def test_streamed_text_arrives_in_chunks(fake: FakeOpenAI) -> None:
    text = "Shipping weekly keeps the feedback loop short."
    fake.script(Reply(text=text, chunk_chars=5))

    chunks = asyncio.run(_stream(fake))

    contents = _contents(chunks)
    assert contents == [text[i : i + 5] for i in range(0, len(text), 5)]
    assert "".join(contents) == text
    assert chunks[-1].choices[0].finish_reason == "stop"
    (body,) = fake.requests
    assert body["model"] == "fake-model"
    assert body["stream"] is True
    assert body["messages"] == MESSAGES
    assert fake.headers[0]["authorization"] == "Bearer sk-fake"


def test_default_responder_and_script_order(fake: FakeOpenAI) -> None:
    fake.script("first", Reply(text="second"))
    assert fake.pending == 2

    texts = [asyncio.run(_complete(fake)).choices[0].message.content for _ in range(3)]

    assert texts == ["first", "second", DEFAULT_TEXT]
    assert fake.pending == 0
    assert len(fake.requests) == 3


def test_reasoning_is_streamed_as_reasoning_content(fake: FakeOpenAI) -> None:
    fake.script(Reply(text="The answer.", reasoning="Think first, then write.", chunk_chars=6))

    chunks = asyncio.run(_stream(fake))

    reasoning = _reasonings(chunks)
    assert reasoning == ["Think ", "first,", " then ", "write."]
    assert "".join(_contents(chunks)) == "The answer."
    # all reasoning arrives before any content
    kinds = ["r" if _reasonings([c]) else "c" for c in chunks if _reasonings([c]) or _contents([c])]
    assert kinds == sorted(kinds, reverse=True)
    # and litellm's own builder keeps it apart from the content
    built = litellm.stream_chunk_builder(chunks)
    assert built is not None
    choice = built.choices[0]
    assert isinstance(choice, Choices)
    message = choice.message
    assert message.content == "The answer."
    assert message.reasoning_content == "Think first, then write."


def test_non_stream_completion_with_reasoning_and_usage(fake: FakeOpenAI) -> None:
    usage = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}
    fake.script(Reply(text="Plain answer", reasoning="hmm", usage=usage))

    response = asyncio.run(_complete(fake))

    message = response.choices[0].message
    assert message.content == "Plain answer"
    assert message.reasoning_content == "hmm"
    assert response.usage.prompt_tokens == 11
    assert response.usage.completion_tokens == 7
    assert fake.requests[0].get("stream") in (None, False)


def test_streamed_usage_with_include_usage(fake: FakeOpenAI) -> None:
    usage = {"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8}
    fake.script(Reply(text="counted", usage=usage))

    chunks = asyncio.run(_stream(fake, stream_options={"include_usage": True}))

    assert fake.requests[0]["stream_options"] == {"include_usage": True}
    last_usage = getattr(chunks[-1], "usage", None)
    assert last_usage is not None
    assert (last_usage.prompt_tokens, last_usage.completion_tokens) == (3, 5)


def test_json_schema_response_format(fake: FakeOpenAI) -> None:
    schema = {
        "type": "object",
        "properties": {"hook": {"type": "string"}, "hashtags": {"type": "array"}},
        "required": ["hook", "hashtags"],
        "additionalProperties": False,
    }
    response_format = {
        "type": "json_schema",
        "json_schema": {"name": "post", "schema": schema, "strict": True},
    }

    def responder(body: dict[str, Any]) -> Reply:
        if wants_json(body):
            return Reply.json({"hook": last_user_message(body).upper(), "hashtags": ["#ship"]})
        return Reply(text="not json")

    fake.responder = responder
    chunks = asyncio.run(_stream(fake, response_format=response_format))
    plain = asyncio.run(_complete(fake))

    received = fake.requests[0]["response_format"]
    assert received["type"] == "json_schema"
    assert received["json_schema"]["name"] == "post"
    assert received["json_schema"]["schema"] == schema
    assert json.loads("".join(_contents(chunks))) == {
        "hook": "WRITE A POST ABOUT SHIPPING WEEKLY",
        "hashtags": ["#ship"],
    }
    assert plain.choices[0].message.content == "not json"
    assert not wants_json(fake.requests[1])


@pytest.mark.parametrize(
    ("status", "error"),
    [
        (400, BadRequestError),
        (401, AuthenticationError),
        (429, RateLimitError),
        (500, InternalServerError),
        (503, ServiceUnavailableError),
    ],
)
def test_http_errors_raise_litellm_exceptions(
    fake: FakeOpenAI, status: int, error: type[Exception]
) -> None:
    fake.script(Reply(status=status, text="the fake says no"))

    with pytest.raises(error) as raised:
        asyncio.run(_stream(fake))

    assert getattr(raised.value, "status_code", None) == status
    assert "the fake says no" in str(raised.value)
    assert len(fake.requests) == 1  # num_retries=0: no retry


def test_cut_stream_raises_mid_stream_error(fake: FakeOpenAI) -> None:
    fake.script(Reply(text="abcdefghijklmnop", chunk_chars=4, cut_after=2))
    received: list[str] = []

    async def consume() -> None:
        response = await _call(fake, stream=True)
        assert isinstance(response, CustomStreamWrapper)
        async for chunk in response:
            if chunk.choices and chunk.choices[0].delta.content:
                received.append(chunk.choices[0].delta.content)

    with pytest.raises(MidStreamFallbackError) as raised:
        asyncio.run(consume())

    error = raised.value
    assert received == ["abcd", "efgh"]  # the chunks before the cut were delivered
    assert error.generated_content == "abcdefgh"
    assert not error.is_pre_first_chunk
    assert isinstance(error, ServiceUnavailableError)
    assert isinstance(error.original_exception, APIConnectionError)
    assert not isinstance(error, Timeout)
    assert len(fake.requests) == 1


def test_cut_before_any_chunk_and_non_stream_cut(fake: FakeOpenAI) -> None:
    fake.script(Reply(text="abcdefgh", cut_after=0), Reply(text="abcdefgh", cut_after=0))

    with pytest.raises(MidStreamFallbackError) as raised:
        asyncio.run(_stream(fake))
    assert raised.value.generated_content == ""
    # Non-stream: the connection closes with no response at all -> "Connection error."
    with pytest.raises(InternalServerError, match="Connection error"):
        asyncio.run(_complete(fake))


def test_token_delay_paces_the_stream(fake: FakeOpenAI, warm: None) -> None:
    fake.script(Reply(text="x" * 32, chunk_chars=4, token_delay=0.05))  # 8 chunks, 7 gaps
    stamps: list[float] = []

    async def consume() -> None:
        response = await _call(fake, stream=True)
        assert isinstance(response, CustomStreamWrapper)
        async for chunk in response:
            if chunk.choices and chunk.choices[0].delta.content:
                stamps.append(time.perf_counter())

    asyncio.run(consume())

    assert len(stamps) == 8
    # Lower bounds only (a sleep never ends early; a busy machine only adds): the
    # chunks came paced, not all at once after the delays.
    assert stamps[-1] - stamps[0] >= 7 * 0.05 * 0.9
    assert stamps[4] - stamps[0] >= 4 * 0.05 * 0.9


def test_first_delay_beyond_timeout_raises_timeout(fake: FakeOpenAI, warm: None) -> None:
    fake.script(Reply(text="late", first_delay=1.0))

    # No clock: had the timeout not fired, the reply comes at 1 s and nothing raises.
    with pytest.raises(Timeout):
        asyncio.run(_stream(fake, timeout=0.3))

    assert len(fake.requests) == 1


def test_stall_mid_stream_beyond_timeout_raises_mid_stream_error(
    fake: FakeOpenAI, warm: None
) -> None:
    """A stream that stalls after its first chunk fails within the timeout. litellm
    before 1.110 wrapped it as MidStreamFallbackError (with the text so far); 1.110 and
    later raise its Timeout. ai/remote.py maps either to a ModelError."""
    fake.script(Reply(text="abcdefgh", chunk_chars=4, token_delay=1.0))

    # No clock: had the timeout not fired, the stream ends at 1 s and nothing raises.
    with pytest.raises((MidStreamFallbackError, Timeout)) as raised:
        asyncio.run(_stream(fake, timeout=0.3))

    if isinstance(raised.value, MidStreamFallbackError):
        assert isinstance(raised.value.original_exception, APIConnectionError)
        assert raised.value.generated_content == "abcd"
    assert len(fake.requests) == 1  # failed where it stalled, not retried


def test_concurrent_streams_run_in_parallel(fake: FakeOpenAI, warm: None) -> None:
    delay, chunks_per_stream = 0.1, 6  # one stream alone takes ~0.5 s
    # Parallel by a barrier, not a clock: each reply waits until all five requests are
    # in the server at once; served one after another, the barrier breaks (a 500).
    together = threading.Barrier(5, timeout=20)

    def reply(body: dict[str, Any]) -> Reply:
        together.wait()
        return Reply(
            text=f"[{last_user_message(body)}]".ljust(4 * chunks_per_stream, "."),
            chunk_chars=4,
            token_delay=delay,
        )

    fake.responder = reply

    async def one(index: int) -> str:
        chunks = await _stream(fake, messages=[{"role": "user", "content": f"post {index}"}])
        return "".join(_contents(chunks))

    async def all_five() -> list[str]:
        return await asyncio.gather(*(one(i) for i in range(5)))

    texts = asyncio.run(all_five())

    assert fake.errors == []
    assert [text.rstrip(".") for text in texts] == [f"[post {i}]" for i in range(5)]
    assert sorted(last_user_message(body) for body in fake.requests) == [
        f"post {i}" for i in range(5)
    ]


def test_responder_failure_becomes_500(fake: FakeOpenAI) -> None:
    def broken(body: dict[str, Any]) -> Reply:
        raise RuntimeError("boom")

    fake.responder = broken

    with pytest.raises(InternalServerError, match="boom"):
        asyncio.run(_complete(fake))
    assert [str(error) for error in fake.errors] == ["boom"]


def test_models_endpoint_env_and_helpers(fake: FakeOpenAI) -> None:
    response = httpx.get(f"{fake.base_url}/models", timeout=TIMEOUT)

    assert response.status_code == 200
    assert [model["id"] for model in response.json()["data"]] == ["fake-model"]
    assert fake.base_url.startswith("http://127.0.0.1:")
    assert fake.base_url.endswith("/v1")
    assert fake.env() == {
        "SOCIALGEN_MODEL": "openai/fake-model",
        "SOCIALGEN_API_BASE": fake.base_url,
        "OPENAI_API_KEY": "sk-fake",
    }
    body = {
        "messages": [
            {"role": "system", "content": "be brief"},
            {
                "role": "user",
                "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
            },
            {"role": "assistant", "content": "ok"},
        ]
    }
    assert last_user_message(body) == "a\nb"
    assert last_user_message({"messages": []}) == ""
    assert not wants_json(body)


def test_close_stops_the_server() -> None:
    with FakeOpenAI() as server:
        url = f"{server.base_url}/models"
        assert httpx.get(url, timeout=TIMEOUT).status_code == 200
    with pytest.raises(httpx.ConnectError):
        httpx.get(url, timeout=TIMEOUT)


@pytest.mark.parametrize(
    "reply",
    [
        Reply(text="abcdefghijklmnop", chunk_chars=4, cut_after=2),  # the connection drops
        Reply(text="abcdefgh", finish_reason=None),  # [DONE] with no finish (llama_cpp.server)
    ],
    ids=["dropped", "no-finish-reason"],
)
def test_the_remote_model_calls_a_cut_answer_a_stream_cut(
    fake: FakeOpenAI, reply: Reply, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ai/remote.py: a stream that ends without a finish reason is a StreamCut (the
    batch writes that draft again, alone); any other failure is a plain ModelError."""
    from socialgen.ai.model import ModelError, StreamCut, complete
    from socialgen.ai.remote import LiteLLMModel

    monkeypatch.setenv("OPENAI_API_KEY", "sk-fake")
    model = LiteLLMModel(f"openai/{fake.model}", api_base=fake.base_url, timeout=10)
    ask = [{"role": "user", "content": "hi"}]
    fake.script(reply, Reply(status=500, text="boom"))
    with pytest.raises(StreamCut):
        asyncio.run(complete(model, ask))
    with pytest.raises(ModelError) as failed:
        asyncio.run(complete(model, ask))
    assert not isinstance(failed.value, StreamCut)
