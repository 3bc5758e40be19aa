"""Which text model the settings name: SOCIALGEN_MODEL, or the embedded default."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from socialgen.ai.local import LlamaCppModel, embedded_model_path
from socialgen.ai.model import TextModel
from socialgen.ai.model_files import gguf_parameters, is_small, resolve_local
from socialgen.ai.ollama_tags import PREFIXES as OLLAMA_PREFIXES
from socialgen.ai.ollama_tags import ollama_parameters
from socialgen.ai.openai_compatible import OpenAICompatibleModel, serves
from socialgen.ai.remote import LiteLLMModel
from socialgen.ai.settings import ai_settings

if TYPE_CHECKING:
    from socialgen.config.loading import AppSettings

LOCAL_PREFIX = "local/"

ModelKey = tuple[str | None, str | None, float, bool | None, str | None, Path]


def model_key(configured: AppSettings, models: Path) -> ModelKey:
    """What tells two models apart: settings (and a models folder, where `local/NAME`
    is looked for) with the same key build the same model (the Runtime keeps one per
    key)."""
    settings = ai_settings(configured)
    return (
        settings.model,
        settings.api_base,
        settings.timeout,
        settings.small_model,
        configured.engine,
        models,
    )


def text_model(configured: AppSettings, models: Path) -> TextModel:
    """`local/NAME` runs a GGUF in-process (a path, or a pulled model's name in
    `models`, the Runtime's models folder: `Runtime.models_dir`);
    `openai/…` and `hosted_vllm/…` go to an OpenAI-compatible endpoint through httpx
    (openai_compatible.py); any other value is a litellm model string; unset means the
    embedded SmolLM2-135M-Instruct. A new model object each call: the Runtime keeps it."""
    return _build(*model_key(configured, models))


def _build(
    name: str | None,
    api_base: str | None,
    timeout: float,
    small: bool | None,
    engine: str | None,
    models: Path,
) -> TextModel:
    """SOCIALGEN_SMALL_MODEL decides whether the model plans as a small one when set;
    otherwise its size does: a GGUF's header, an Ollama tag's parameter size."""
    if name is None:
        return LlamaCppModel(embedded_model_path(), embedded=True, small=small, engine=engine)
    if name.startswith(LOCAL_PREFIX):
        path = resolve_local(name[len(LOCAL_PREFIX) :], models)
        if small is None:
            small = is_small(gguf_parameters(path))
        return LlamaCppModel(path, small=small, engine=engine)
    if serves(name):  # no litellm import: ~3 s of every command's start-up
        # The setting as it is (head_start.py builds the same model before the store).
        return OpenAICompatibleModel(name, api_base=api_base, timeout=timeout, small=small)
    if small is None:
        small = name.startswith(OLLAMA_PREFIXES) and is_small(ollama_parameters(name, api_base))
    return LiteLLMModel(name, api_base=api_base, timeout=timeout, small=small)
