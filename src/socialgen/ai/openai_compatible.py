"""OpenAI-compatible endpoints (`openai/…`, `hosted_vllm/…`: OpenAI itself, vLLM,
llama.cpp's and llama_cpp.server's servers, LM Studio, any `/v1/chat/completions`)
reached straight through httpx: one streamed POST, read as server-sent events.

Why not litellm here: importing litellm takes 3-4 s on a small machine, on every
`socialgen post`; httpx, a dependency anyway, takes under 0.1 s. Every other
provider (anthropic/, gemini/, ollama/, a bare model name ...) still goes through
litellm (remote.py), and this client keeps its contract: the same request fields
(format_options), no retries, the same timeout, and the same user-facing errors
("The AI provider failed: RateLimitError: …", FormatRefused, StreamCut, a stored key
never shown).
"""

from __future__ import annotations

import json
import sys
import types
from collections.abc import AsyncGenerator, AsyncIterator
from contextlib import aclosing
from functools import cache
from typing import TYPE_CHECKING, Any

from socialgen.ai.model import Chunk, FormatRefused, Message, ModelError, Output, StreamCut
from socialgen.ai.remote import format_options, refuses_format
from socialgen.config import environment
from socialgen.config.provider_keys import key_for

if TYPE_CHECKING:
    import ssl

    import httpx

OPENAI_BASE = "https://api.openai.com/v1"

# litellm's provider prefix -> where the key is read from and the base URL's variables
# (litellm's own reading order), when no api_base is configured.
_PROVIDERS: dict[str, tuple[str, tuple[str, ...]]] = {
    "openai": ("OPENAI_API_KEY", ("OPENAI_BASE_URL", "OPENAI_API_BASE")),
    "hosted_vllm": ("HOSTED_VLLM_API_KEY", ("HOSTED_VLLM_API_BASE",)),
}

# OpenAI's answers to statuses, by the names litellm (and OpenAI's SDK) give them.
_ERROR_NAMES = {
    400: "BadRequestError",
    401: "AuthenticationError",
    403: "PermissionDeniedError",
    404: "NotFoundError",
    408: "Timeout",
    409: "ConflictError",
    422: "UnprocessableEntityError",
    429: "RateLimitError",
    503: "ServiceUnavailableError",
}
_MAX_ERROR_BYTES = 64 * 1024  # an error page is read only this far

# OpenAI's reasoning models take only the default temperature (litellm refuses the
# call unless told to drop it); they are asked without one.
_FIXED_TEMPERATURE = ("o1", "o3", "o4", "gpt-5")


def serves(name: str) -> bool:
    """Whether `name` is for this client: a provider prefix that speaks OpenAI's API."""
    prefix, slash, rest = name.partition("/")
    return bool(slash and rest) and prefix.lower() in _PROVIDERS


class OpenAICompatibleModel:
    def __init__(
        self, name: str, *, api_base: str | None, timeout: float, small: bool | None = None
    ) -> None:
        self.name = name
        self.api_base = api_base
        self.timeout = timeout
        # small: the small_model setting; unset is not small (these servers do not say
        # how large their model is). Read through its profile (ai/model_profile.py).
        self.small = bool(small)
        prefix, _, self.model_id = name.partition("/")
        self.provider = prefix.lower()

    def base_url(self) -> str:
        """SOCIALGEN_API_BASE, else the provider's variables, else OpenAI itself."""
        if self.api_base:
            return self.api_base.rstrip("/")
        for variable in _PROVIDERS[self.provider][1]:
            if value := environment(variable):
                return value.rstrip("/")
        if self.provider != "openai":
            raise ModelError(
                f"The AI provider failed: {self.name} needs the server's address: "
                "set api_base (SOCIALGEN_API_BASE), e.g. http://127.0.0.1:8000/v1"
            )
        return OPENAI_BASE

    def api_key(self) -> tuple[str | None, str]:
        """The key and what to show instead of it: a stored one (`provider-key set`)
        unless the provider's variable is exported, as remote.py does."""
        stored = key_for(self.provider)
        if stored:
            return stored, "[stored key]"
        variable = _PROVIDERS[self.provider][0]
        return environment(variable) or None, f"[{variable}]"

    def body(
        self,
        messages: list[Message],
        output: Output | None,
        max_tokens: int | None,
        temperature: float | None,
        official: bool,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model_id, "messages": messages, "stream": True}
        if max_tokens is not None:
            # OpenAI's own API wants max_completion_tokens (its reasoning models take
            # nothing else); other servers know max_tokens.
            body["max_completion_tokens" if official else "max_tokens"] = max_tokens
        if temperature is not None and not (
            official and self.model_id.lower().startswith(_FIXED_TEMPERATURE)
        ):
            body["temperature"] = temperature
        options = format_options(output)
        body.update(options.pop("extra_body", {}))  # the grammar, as a body field
        body.update(options)
        return body

    async def stream(
        self,
        messages: list[Message],
        *,
        output: Output | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        purpose: str | None = None,  # not sent: providers have no use for it
    ) -> AsyncIterator[Chunk]:
        base = self.base_url()
        key, shown_as = self.api_key()
        if key is None and base == OPENAI_BASE:
            raise ModelError(
                "The AI provider failed: AuthenticationError: no API key for openai: run "
                "`socialgen provider-key set openai` or export OPENAI_API_KEY"
            )
        headers = {"Accept": "text/event-stream"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        if organization := environment("OPENAI_ORGANIZATION"):
            headers["OpenAI-Organization"] = organization
        body = self.body(messages, output, max_tokens, temperature, base == OPENAI_BASE)
        url = f"{base}/chat/completions"
        try:
            # aclosing: a caller that stops reading (a cancelled stream, a client gone)
            # hangs up at once, and the server stops writing.
            async with aclosing(_post_stream(url, body, headers, self.timeout)) as chunks:
                async for chunk in chunks:
                    yield chunk
        except _Failure as failure:
            message = f"The AI provider failed: {failure.name}: {failure.text}"
            if key:  # a provider that echoes the key it refused must not show it
                message = message.replace(key, shown_as)
            if failure.cut:
                raise StreamCut(message) from None
            if refuses_format(failure, output):
                raise FormatRefused(message) from None
            raise ModelError(message) from None


class _Failure(Exception):
    """What went wrong, in the words a user reads: litellm's class name and the
    provider's own message. `cut`: the answer had begun and ended unfinished."""

    def __init__(self, name: str, text: str, *, cut: bool = False) -> None:
        self.name = name
        self.text = " ".join(text.split())[:300] or name
        self.cut = cut
        super().__init__(f"{name}: {self.text}")


@cache
def _httpx() -> types.ModuleType:
    """httpx, imported on the first request: `import httpx` also imports httpx's own
    command-line tool (httpx._main: rich's console, progress bars and syntax colours,
    pygments' lexers; ~0.1 s of CPU, a tenth of `socialgen post --json`'s start-up)
    whenever rich and click are installed, as they are here. socialgen never runs
    that tool: an empty module stands in for it, when httpx is not loaded yet."""
    if "httpx" not in sys.modules and "httpx._main" not in sys.modules:
        stand_in = types.ModuleType("httpx._main")

        def main() -> None:
            raise SystemExit("httpx's command line is not loaded inside socialgen")

        stand_in.main = main  # type: ignore[attr-defined]
        sys.modules["httpx._main"] = stand_in
    import httpx

    return httpx


def prepare_client() -> None:
    """Import (and set up) now what the first request would: for a caller that sends
    it from another thread while this one goes on importing (generation/head_start.py),
    so that the two threads never import at the same time."""
    _httpx()
    _tls()
    # httpx's async transport loads its network backend (anyio's, for asyncio) on the
    # first connection.
    import anyio._backends._asyncio  # noqa: F401
    import httpcore._backends.anyio  # noqa: F401


@cache
def _tls() -> ssl.SSLContext:
    """One TLS context per process (loading the CA bundle costs ~20 ms a client)."""
    context: ssl.SSLContext = _httpx().create_ssl_context()
    return context


async def _post_stream(
    url: str, body: dict[str, Any], headers: dict[str, str], timeout: float
) -> AsyncGenerator[Chunk, None]:
    httpx = _httpx()
    finished = False
    begun = False
    try:
        async with (
            httpx.AsyncClient(timeout=httpx.Timeout(timeout), verify=_tls()) as client,
            client.stream("POST", url, json=body, headers=headers) as response,
        ):
            if response.status_code != 200:
                raise _Failure(*await _error_of(response))
            begun = True
            async for line in response.aiter_lines():
                if not line.startswith("data:"):
                    continue  # blank separators, `event:` names, `:` keep-alives
                data = line[5:].strip()
                if data == "[DONE]":
                    break
                part = _parse(data)
                if error := part.get("error"):
                    raise _Failure("APIError", _error_text(error))
                choices = part.get("choices")
                if not choices:  # the usage chunk at the end
                    continue
                choice = choices[0]
                delta = choice.get("delta") or {}
                text = delta.get("content") or ""
                # reasoning_content: DeepSeek, llama.cpp; reasoning: vLLM, OpenRouter.
                reasoning = delta.get("reasoning_content") or delta.get("reasoning") or ""
                if text or reasoning:
                    yield Chunk(text=str(text), reasoning=str(reasoning))
                finished = finished or bool(choice.get("finish_reason"))
    except _Failure:
        raise
    except httpx.TimeoutException as error:
        raise _Failure("Timeout", f"no answer within {timeout:g} s ({error!r})") from None
    except httpx.HTTPError as error:  # litellm's words for a connection that failed
        detail = f"Connection error. ({type(error).__name__}: {error})"
        raise _Failure("InternalServerError", detail, cut=begun) from None
    if not finished:
        raise _Failure("APIError", "the stream ended before a finish_reason", cut=True)


def _parse(data: str) -> dict[str, Any]:
    try:
        part = json.loads(data)
    except ValueError:
        raise _Failure("APIError", f"not a JSON event: {data[:200]}") from None
    if not isinstance(part, dict):
        raise _Failure("APIError", f"not a JSON object: {data[:200]}")
    return part


async def _error_of(response: httpx.Response) -> tuple[str, str]:
    """The status's name and the provider's message (OpenAI's {"error": {"message"}},
    FastAPI's {"detail"}, or the body's text)."""
    raw = b""
    async for piece in response.aiter_bytes():
        raw += piece
        if len(raw) >= _MAX_ERROR_BYTES:
            break
    status = response.status_code
    name = _ERROR_NAMES.get(status, "InternalServerError" if status >= 500 else "APIError")
    text = raw.decode("utf-8", errors="replace")
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if isinstance(data, dict):
        found = data.get("error", data.get("detail", data.get("message")))
        if found is not None:
            text = _error_text(found)
    return name, f"{text} (HTTP {status})" if text else f"HTTP {status}"


def _error_text(error: Any) -> str:
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])
    return error if isinstance(error, str) else json.dumps(error)
