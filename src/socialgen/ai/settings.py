"""AI settings, from the Runtime's settings object (config: option > environment > file)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from socialgen.config.loading import AppSettings


@dataclass(frozen=True)
class AISettings:
    model: str | None  # None: the embedded default
    api_base: str | None
    max_tokens: int
    timeout: float
    batch_concurrency: int
    # small_model: plan in line lists, as the embedded model does; None (unset) lets
    # the model's size decide (ai/model_files.py).
    small_model: bool | None


def drafts_at_once(small: bool, configured: int | None) -> int:
    """How many drafts a batch or calendar writes at once: batch_concurrency when set;
    else 5, or 1 for a small model (it runs on one local server, and
    llama_cpp.server cuts a running request short when another arrives)."""
    if configured is not None:
        return configured
    return 1 if small else 5


def ai_settings(settings: AppSettings) -> AISettings:
    return AISettings(
        model=(settings.model or "").strip() or None,
        api_base=(settings.api_base or "").strip() or None,
        max_tokens=settings.max_tokens,
        timeout=settings.timeout,
        batch_concurrency=settings.batch_concurrency or 5,
        small_model=settings.small_model,
    )
