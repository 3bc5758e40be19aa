"""AI settings from the environment (read on each call; cheap)."""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class AISettings:
    model: str | None  # None: the embedded default
    api_base: str | None
    max_tokens: int
    timeout: float
    batch_concurrency: int
    # SOCIALGEN_SMALL_MODEL: plan in line lists, as the embedded model does; None (unset)
    # lets the model's size decide (ai/model_files.py).
    small_model: bool | None


def _int(name: str, default: int) -> int:
    try:
        return max(1, int(os.environ.get(name, default)))
    except ValueError:
        return default


def _float(name: str, default: float) -> float:
    try:
        return max(0.001, float(os.environ.get(name, default)))
    except ValueError:
        return default


def _flag(name: str) -> bool:
    return (os.environ.get(name) or "").strip().lower() in {"1", "true", "yes", "on"}


def _optional_flag(name: str) -> bool | None:
    if not (os.environ.get(name) or "").strip():
        return None
    return _flag(name)


def drafts_at_once(small: bool) -> int:
    """How many drafts a batch or calendar writes at once: SOCIALGEN_BATCH_CONCURRENCY
    when set; else 5, or 1 for a small model (it runs on one local server, and
    llama_cpp.server cuts a running request short when another arrives)."""
    if os.environ.get("SOCIALGEN_BATCH_CONCURRENCY"):
        return ai_settings().batch_concurrency
    return 1 if small else 5


def ai_settings() -> AISettings:
    return AISettings(
        model=(os.environ.get("SOCIALGEN_MODEL") or "").strip() or None,
        api_base=(os.environ.get("SOCIALGEN_API_BASE") or "").strip() or None,
        max_tokens=_int("SOCIALGEN_MAX_TOKENS", 700),
        timeout=_float("SOCIALGEN_TIMEOUT", 120.0),
        batch_concurrency=_int("SOCIALGEN_BATCH_CONCURRENCY", 5),
        small_model=_optional_flag("SOCIALGEN_SMALL_MODEL"),
    )
