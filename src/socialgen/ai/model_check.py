"""Whether a model value can write, said in our words before litellm says it in its own.

A value litellm cannot route ("Qwen/Qwen2.5-1.5B-Instruct-GGUF/x.gguf", a typo'd
provider) otherwise fails on the first call with "LLM Provider NOT provided", which
names neither the value nor the way out. `models default` refuses such a value,
`models list` reports a configured one, and the remote model checks it before calling.
"""

from __future__ import annotations

from socialgen.errors import SocialgenError

LOCAL_PREFIX = "local/"
HOW_TO_NAME = (
    "name a provider first (openai/gpt-4o-mini, anthropic/claude-3-5-haiku-latest, "
    "ollama/llama3.2) or a pulled model (local/NAME); `socialgen models list` shows "
    "what can write"
)


def route_problem(model: str, api_base: str | None = None) -> str | None:
    """Why litellm cannot send anything to `model`, or None when it can route it."""
    from socialgen.ai.remote import load_litellm

    litellm = load_litellm()
    try:
        litellm.get_llm_provider(model, api_base=api_base)
    except Exception:  # litellm's BadRequestError, raised for any name it cannot place
        return f"{model!r} is not a model litellm can reach: {HOW_TO_NAME}"
    return None


def model_problem(model: str, api_base: str | None = None) -> str | None:
    """Why a configured model value cannot write, or None: a local model not on this
    machine, or a name litellm cannot route."""
    from socialgen.ai.model_files import resolve_local

    if model.startswith(LOCAL_PREFIX):
        try:
            resolve_local(model.removeprefix(LOCAL_PREFIX))
        except SocialgenError as error:
            return error.message
        return None
    return route_problem(model, api_base)
