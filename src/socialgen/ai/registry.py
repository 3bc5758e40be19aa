"""Which text model this process uses: SOCIALGEN_MODEL, or the embedded default."""

from __future__ import annotations

from pathlib import Path

from socialgen.ai.local import LlamaCppModel, embedded_model_path
from socialgen.ai.model import TextModel
from socialgen.ai.remote import LiteLLMModel
from socialgen.ai.settings import ai_settings

LOCAL_PREFIX = "local/"

_cache: dict[tuple[str | None, str | None, float, bool], TextModel] = {}


def text_model() -> TextModel:
    """`local/PATH.gguf` runs that file in-process; any other value is a litellm model
    string; unset means the embedded SmolLM2-135M-Instruct."""
    settings = ai_settings()
    key = (settings.model, settings.api_base, settings.timeout, settings.small_model)
    model = _cache.get(key)
    if model is None:
        model = _build(*key)
        _cache[key] = model
    return model


def _build(name: str | None, api_base: str | None, timeout: float, small: bool) -> TextModel:
    if name is None:
        return LlamaCppModel(embedded_model_path(), embedded=True)
    if name.startswith(LOCAL_PREFIX):
        return LlamaCppModel(Path(name[len(LOCAL_PREFIX) :]).expanduser(), small=small)
    return LiteLLMModel(name, api_base=api_base, timeout=timeout, small=small)
