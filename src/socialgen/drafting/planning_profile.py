"""Every choice that depends on how able a model is, made in one place from its
profile (ai.model_profile.profile_of), never from `model.small` in a slice.

The profile starts from the model's marking (small: the embedded model, or
SOCIALGEN_SMALL_MODEL) and learns from what the model does (two JSON plans in a row
were unusable, their lists were not: it plans in lists from then on), so a slice that asks
here follows what the process has learnt. Re-exported by drafting/planning.py.

Light (no pydantic): `socialgen post`'s head start (generation/head_start.py) asks
`short_prompts` before its request, with the rest of the process still importing.
"""

from __future__ import annotations

from socialgen.ai import settings
from socialgen.ai.model import TextModel
from socialgen.ai.model_profile import profile_of


def answers_in_lines(model: TextModel) -> bool:
    """Whether short structured answers (a plan, questions, an intent) are asked of
    `model` as lines or words under a grammar rather than as JSON."""
    return profile_of(model).plan_format == "lines"


def short_prompts(model: TextModel) -> bool:
    """Whether a post is asked for with the one-line system prompt and the topic
    named twice (drafting/writing.py): a small model drifts on the full rule list."""
    return profile_of(model).small


def variation_prompt(model: TextModel, name: str, instruction: str) -> str:
    """How a batch asks for one version: a small model gets the instruction alone
    (the version's name reads to it as part of the topic)."""
    if profile_of(model).small:
        return instruction
    return f"Style of this version ({name}): {instruction}"


def drafts_at_once(model: TextModel, configured: int | None) -> int:
    """How many drafts a batch or calendar writes at once (ai.settings.drafts_at_once):
    `configured` (batch_concurrency) when set, else one at a time for a small model,
    which runs on one local server."""
    return settings.drafts_at_once(profile_of(model).small, configured)


def second_draft_when_off_topic(model: TextModel) -> bool:
    """Whether a draft that misses its topic is written once more (small models
    drift; a capable model's off-topic-looking draft is a paraphrase)."""
    return profile_of(model).small
