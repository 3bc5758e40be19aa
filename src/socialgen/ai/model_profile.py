"""A model's profile: what this process knows about one model, where every
small-model decision about prompts, plans and formats is read (`profile_of`), never
`model.small` directly.

Apart from the structured-output ladder (structured.py, which keeps the profile up to
date) and standard library only, so that `socialgen post`'s head start
(generation/head_start.py) asks the profile before pydantic is imported.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from socialgen.ai.model import OutputMode, TextModel

RUNGS: tuple[OutputMode, ...] = ("json_schema", "json_object", "text")
PlanFormat = Literal["json", "lines"]


@dataclass
class ModelProfile:
    """What this process knows about one model, chosen once, when the model is first
    asked for something, and updated only by what the model does:

    rung: the structured-output format to ask first (the last one it accepted);
    plan_format: "lines" for small models (they can write a short list, not a JSON
        plan), and for models whose JSON plans were unusable twice in a row
        (structured.JSON_MISSES_TO_LINES) while their lists were not; "json" otherwise;
    json_plan_misses: JSON plans in a row that held nothing usable (a usable one
        resets it): one junk answer must not switch the whole process to lists;
    takes_grammar: False once its provider refused a llama.cpp grammar.

    Every `small` decision about plans and formats reads this profile (`profile_of`),
    never `model.small` directly."""

    small: bool
    rung: int = 0
    plan_format: PlanFormat = "json"
    json_plan_misses: int = 0
    takes_grammar: bool = True

    @property
    def output_mode(self) -> OutputMode:
        return RUNGS[self.rung]


PROFILE_ATTRIBUTE = "_socialgen_profile"


def profile_of(model: TextModel) -> ModelProfile:
    """The model's profile, made at the first call and kept on the model object itself:
    what we learn about a model lives as long as the model (the Runtime's, for a server
    or a command), and no table in this module outlives a test."""
    attributes = getattr(model, "__dict__", None)
    found = attributes.get(PROFILE_ATTRIBUTE) if attributes is not None else None
    if found is None or found.small != model.small:
        found = ModelProfile(small=model.small, plan_format="lines" if model.small else "json")
        if attributes is not None:  # a model with __slots__ is asked afresh each time
            attributes[PROFILE_ATTRIBUTE] = found
    return found
