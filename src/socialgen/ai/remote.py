"""Any provider litellm knows (openai/, anthropic/, gemini/, ollama/, an
OpenAI-compatible server through api_base). litellm is imported on first use."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from typing import Any

from socialgen.ai.model import Chunk, FormatRefused, Message, ModelError, Output, StreamCut
from socialgen.config.provider_keys import PROVIDERS, key_for, provider_prefix

# Imported by the warm-up: once it is loaded, litellm is warm (the mark is litellm's
# own state, in sys.modules, not a flag of ours).
WARM_MODULE = "litellm.litellm_core_utils.default_encoding"


def load_litellm() -> Any:
    # Never fetch the model cost map from the network, never send telemetry. A write,
    # not a read: litellm reads it when it is imported.
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.telemetry = False
    litellm.suppress_debug_info = True
    if WARM_MODULE not in sys.modules:
        _warm_up(litellm)
    return litellm


def _warm_up(litellm: Any) -> None:
    """Load what litellm otherwise loads lazily when the first answer arrives (its
    tokenizer table for cost figures, its service logger): ~250 ms that would
    otherwise delay the first token of a fresh process. Internals: best effort."""
    try:
        from litellm.litellm_core_utils.default_encoding import encoding  # noqa: F401

        litellm.litellm_core_utils.logging_utils._get_service_logger()
    except (ImportError, AttributeError):
        pass


class LiteLLMModel:
    def __init__(
        self, name: str, *, api_base: str | None, timeout: float, small: bool = False
    ) -> None:
        self.name = name
        self.api_base = api_base
        self.timeout = timeout
        self.small = small

    async def stream(
        self,
        messages: list[Message],
        *,
        output: Output | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        purpose: str | None = None,  # not sent: providers have no use for it
    ) -> AsyncIterator[Chunk]:
        litellm = load_litellm()
        problem = route_problem(self.name, self.api_base)
        if problem is not None:  # before litellm's "LLM Provider NOT provided"
            raise ModelError(f"The model cannot write: {problem}")
        options: dict[str, Any] = {"num_retries": 0, "timeout": self.timeout}
        if self.api_base:
            options["api_base"] = self.api_base
        api_key = stored_api_key(litellm, self.name)
        if api_key:
            options["api_key"] = api_key
        if max_tokens is not None:
            options["max_tokens"] = max_tokens
        if temperature is not None:
            options["temperature"] = temperature
        options.update(format_options(output))
        try:
            response = await litellm.acompletion(
                model=self.name, messages=messages, stream=True, **options
            )
            async for part in response:
                if not part.choices:
                    continue
                delta = part.choices[0].delta
                text = getattr(delta, "content", None) or ""
                reasoning = getattr(delta, "reasoning_content", None) or ""
                if text or reasoning:
                    yield Chunk(text=text, reasoning=reasoning)
        except ModelError:
            raise
        except Exception as error:  # litellm maps every provider failure to its own classes
            message = f"The AI provider failed: {describe_error(error)}"
            if api_key:  # a provider that echoes the key it refused must not show it
                message = message.replace(api_key, "[stored key]")
            if refuses_format(error, output):
                raise FormatRefused(message) from error
            if was_cut(error):
                raise StreamCut(message) from error
            raise ModelError(message) from error


# Prefixes litellm routes whatever follows: the stored-key providers, and the servers
# socialgen's docs name. Anything else is asked of litellm itself.
ROUTED_PREFIXES = frozenset(
    {*PROVIDERS, "ollama", "ollama_chat", "hosted_vllm", "lm_studio", "azure", "bedrock"}
)
HOW_TO_NAME = (
    "name a provider first (openai/gpt-4o-mini, anthropic/claude-3-5-haiku-latest, "
    "ollama/llama3.2) or a pulled model (local/NAME); `socialgen models list` shows "
    "what can write"
)


def route_problem(model: str, api_base: str | None = None) -> str | None:
    """Why litellm cannot send anything to `model` (in our words, before litellm's "LLM
    Provider NOT provided"), or None when it can route it. A known provider's prefix
    (openai/, ollama/ ...) routes: no need to import litellm (seconds) to say so."""
    prefix, slash, rest = model.partition("/")
    if slash and rest.strip() and prefix.lower() in ROUTED_PREFIXES:
        return None
    litellm = load_litellm()
    try:
        litellm.get_llm_provider(model, api_base=api_base)
    except Exception:  # litellm's BadRequestError, raised for any name it cannot place
        return f"{model!r} is not a model litellm can reach: {HOW_TO_NAME}"
    return None


def stored_api_key(litellm: Any, model: str) -> str | None:
    """The key `provider-key set` stored for the model's provider (None when the
    provider's variable is exported: litellm reads that itself). A bare model name
    ("gpt-4o-mini") gets its provider from litellm."""
    provider = provider_prefix(model)
    if provider is None and "/" not in model:
        try:
            provider = litellm.get_llm_provider(model)[1]
        except Exception:  # a name litellm cannot place: it will say so on the call
            return None
    return key_for(provider)


def format_options(output: Output | None) -> dict[str, Any]:
    """The request fields that ask for `output`: OpenAI's response_format, and a
    llama.cpp grammar as an extra body field (llama_cpp.server and llama.cpp's
    server enforce it; it is only sent for models marked small)."""
    if output is None:
        return {}
    options: dict[str, Any] = {}
    if output.mode == "json_schema" and output.schema is not None:
        options["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": output.name, "schema": output.schema, "strict": True},
        }
    elif output.mode == "json_object":
        options["response_format"] = {"type": "json_object"}
    if output.grammar is not None:
        options["extra_body"] = {"grammar": output.grammar}
    return options


_FORMAT_WORDS = ("response_format", "json_schema", "json_object", "response format", "grammar")


def refuses_format(error: Exception, output: Output | None) -> bool:
    """A provider's refusal of the output format we asked for (any status): its
    error names the format field. Other failures are not the format's fault."""
    if output is None or (output.mode == "text" and output.grammar is None):
        return False
    text = str(error).lower()
    return any(word in text for word in _FORMAT_WORDS)


def was_cut(error: Exception) -> bool:
    """litellm's word for a stream that ended without a finish reason."""
    return type(error).__name__ == "MidStreamFallbackError" or (
        "ended before a finish_reason" in str(error)
    )


def describe_error(error: Exception) -> str:
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text[:300]}" if text else type(error).__name__
