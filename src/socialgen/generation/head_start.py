"""`socialgen post`: the provider request sent before the store is open.

A command's start-up used to run in a line: settings, model, then the store (SQLModel
and SQLAlchemy imported, tables defined, migrations checked, quota reserved: ~0.6 s
on a small machine), and only then the request to the provider, which then took its
own time to the first token. When the post's prompt needs nothing from the store (no
--conversation, --post or --style, no URL in the topic), the request goes first: a
thread sends it and keeps what the provider streams, while the main thread opens the
store and runs the plan's checks. The provider's time to its first token (and its
writing) and the store's start-up overlap. Before the request only what it needs is
loaded: the settings it reads one by one, the prompt templates, httpx; the settings
object, the event models and the store come after it (bench/generation_overhead.py:
the child's CPU time before its request went from ~630 ms to ~190 ms).

Nothing changes for what the user sees or what is stored: the chunks are handed out
only when the post's stream asks the model for exactly this answer, after the plan
reserved the quota. A refused plan (quota, an unknown workspace, a store that cannot
open) cancels the early request: nothing is printed, nothing reserved or saved, and
its answer is dropped. Only the OpenAI-compatible client (openai_compatible.py) is
started early; its imports are done on the main thread first, so the thread imports
nothing while the main thread imports the store's packages. `serve` never does this:
it opened its store once, at start.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from socialgen.ai.early_stream import EarlyStream

if TYPE_CHECKING:
    from socialgen.app.runtime import Runtime


def head_start(runtime: Runtime, topic: str) -> EarlyStream | None:
    """The post request for `topic` sent now, or None when it cannot be: the model is
    not one the early client serves, the topic is one the plan refuses, or it has a
    URL to read first. The caller knows whether the prompt needs the store (a
    conversation, a post or a style named): then it never asks.

    The model is built from the settings read one by one (Runtime.light_setting), not
    from the settings object: pydantic-settings and the event models are imported
    after the request is out. The settings object stays the authority: the caller
    hands the model it builds to `adopt`, and an early request that differs from it
    is dropped."""
    from socialgen.ai.openai_compatible import OpenAICompatibleModel, prepare_client, serves
    from socialgen.drafting.planning_profile import short_prompts
    from socialgen.drafting.post_prompt import post_messages
    from socialgen.kit.limits import MAX_INPUT_CHARS
    from socialgen.sources.urls import find_urls

    values = _light_settings(runtime)
    if values is None or runtime.given_text_model is not None:
        return None  # an unreadable setting (the settings object says why), a test's model
    name = str(values["model"] or "").strip()
    user_input = topic.strip()
    if not serves(name) or not user_input or len(user_input) > MAX_INPUT_CHARS:
        return None  # another client, or the plan's own refusal
    if find_urls(user_input, limit=1):
        return None  # sources to read first: the usual way
    api_base = str(values["api_base"] or "").strip() or None
    # The small_model setting as it is, as registry.py hands it: the model reads it.
    model = OpenAICompatibleModel(
        name, api_base=api_base, timeout=float(values["timeout"]), small=values["small_model"]
    )
    short = short_prompts(model)  # as the post's stream asks: the model's profile
    messages = post_messages(user_input, style=None, sources="", history=[], small=short)
    prepare_client()  # its imports here, not in the thread beside the store's
    return EarlyStream(model, messages, max_tokens=int(values["max_tokens"]), purpose="post")


_LIGHT_SETTINGS = ("model", "api_base", "timeout", "small_model", "max_tokens")


def _light_settings(runtime: Runtime) -> dict[str, Any] | None:
    """The settings the early request needs, or None when one cannot be read. A value
    the settings object will warn about is not warned about here as well."""
    config_logger = logging.getLogger("socialgen.config")
    was = config_logger.disabled
    config_logger.disabled = True
    try:
        return {name: runtime.light_setting(name) for name in _LIGHT_SETTINGS}
    except Exception:  # a broken config file: the settings object reports it
        return None
    finally:
        config_logger.disabled = was
