"""Whether a model value can write, said in our words before litellm says it in its own.

A value litellm cannot route ("Qwen/Qwen2.5-1.5B-Instruct-GGUF/x.gguf", a typo'd
provider) otherwise fails on the first call with "LLM Provider NOT provided", which
names neither the value nor the way out (remote.route_problem says it in our words).
`models default` refuses such a value, `models list` reports a configured one, and
the remote model checks it before calling.
"""

from __future__ import annotations

from pathlib import Path

from socialgen.ai.remote import route_problem
from socialgen.kit.errors import SocialgenError

LOCAL_PREFIX = "local/"


def model_problem(model: str, api_base: str | None, models: Path) -> str | None:
    """Why a configured model value cannot write, or None: a local model not on this
    machine (`models`: the models folder), or a name litellm cannot route."""
    from socialgen.ai.model_files import resolve_local

    if model.startswith(LOCAL_PREFIX):
        try:
            resolve_local(model.removeprefix(LOCAL_PREFIX), models)
        except SocialgenError as error:
            return error.message
        return None
    return route_problem(model, api_base)
