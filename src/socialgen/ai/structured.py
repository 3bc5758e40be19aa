"""Structured answers on any provider: a ladder of output formats.

1. json_schema: the provider enforces the schema (OpenAI, Gemini, llama.cpp ...).
2. json_object: any JSON, with the schema written into the prompt.
3. text: the schema in the prompt, and the JSON found in the prose around it.

A provider that refuses a format (FormatRefused: its error names response_format)
steps down one rung at once, without spending an attempt, and the rung that worked
is remembered in the model's profile (model_profile.py's `profile_of`) for the life of
the model object (the Runtime keeps its model; a test's fresh model starts from the
first rung).
The answer is validated with pydantic; an answer with some wrong items keeps the
valid ones (json_salvage); None means the model gave nothing usable and the caller
must say so.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from socialgen.ai.json_salvage import keep_valid_items
from socialgen.ai.json_text import find_json
from socialgen.ai.model import (
    FormatRefused,
    Message,
    ModelError,
    Output,
    OutputMode,
    TextModel,
    complete,
)
from socialgen.ai.model_profile import RUNGS, profile_of

logger = logging.getLogger("socialgen.ai")
T = TypeVar("T", bound=BaseModel)

# Qwen2.5-Coder-0.5B (llama_cpp.server, json_object) writes most plans as good JSON and
# now and then one it cannot: after one miss the rest of the process got lists, whose
# slide texts it echoes ("Slide 2: <title>"), so whole outlines came from the template.
JSON_MISSES_TO_LINES = 2


def current_rung(model: TextModel) -> OutputMode:
    """The format this process asks `model` for first (what it last accepted)."""
    return profile_of(model).output_mode


def takes_grammar(model: TextModel) -> bool:
    return profile_of(model).takes_grammar


def remember_grammar_refused(model: TextModel) -> None:
    profile_of(model).takes_grammar = False


def plans_in_lines(model: TextModel) -> bool:
    """Whether plans are asked of `model` as line lists (see ModelProfile)."""
    return profile_of(model).plan_format == "lines"


def remember_plans_in_lines(model: TextModel) -> None:
    profile_of(model).plan_format = "lines"


def remember_json_plan(model: TextModel, *, usable: bool, lists_work: bool = False) -> bool:
    """What one JSON plan taught: a usable one resets the misses; an unusable one
    counts, and the JSON_MISSES_TO_LINES-th in a row, when the list asked instead
    worked (`lists_work`), switches plans to lists. Whether it switched."""
    profile = profile_of(model)
    if usable:
        profile.json_plan_misses = 0
        return False
    profile.json_plan_misses += 1
    if lists_work and profile.json_plan_misses >= JSON_MISSES_TO_LINES:
        remember_plans_in_lines(model)
        return True
    return False


@dataclass(frozen=True)
class StructuredAnswer(Generic[T]):
    """What the ladder got: the validated answer, or None with the reason: the
    provider failed (`failed`), or the model answered nothing usable."""

    value: T | None
    failed: bool = False


async def ask_structured(
    model: TextModel,
    messages: list[Message],
    schema: type[T],
    *,
    max_tokens: int = 160,  # three short questions fit; small models ramble otherwise
    attempts: int = 2,
) -> T | None:
    answer = await ask_structured_answer(
        model, messages, schema, max_tokens=max_tokens, attempts=attempts
    )
    return answer.value


async def ask_structured_answer(
    model: TextModel,
    messages: list[Message],
    schema: type[T],
    *,
    max_tokens: int = 160,
    attempts: int = 2,
    temperature: float = 0.2,
) -> StructuredAnswer[T]:
    json_schema = strict_schema(schema)
    name = schema_name(schema)
    profile = profile_of(model)
    spent = 0
    while spent < attempts:
        rung = profile.rung
        mode = RUNGS[rung]
        asked = (
            messages if mode == "json_schema" else with_schema_prompt(messages, name, json_schema)
        )
        try:
            text = await complete(
                model,
                asked,
                output=Output(mode=mode, schema=json_schema, name=name),
                max_tokens=max_tokens,
                temperature=temperature,
                purpose=name,
            )
        except FormatRefused as refusal:
            if rung + 1 >= len(RUNGS):
                logger.info("structured answer %s: every format refused", name)
                return StructuredAnswer(None, failed=True)
            profile.rung = rung + 1
            logger.info(
                "%s refused %s (%s); asking in %s", model.name, mode, refusal, RUNGS[rung + 1]
            )
            continue
        except ModelError as error:
            logger.info("structured answer %s failed: %s", name, error.message)
            return StructuredAnswer(None, failed=True)
        spent += 1
        try:
            data = find_json(text)
        except ValueError as error:
            logger.info("structured answer %s rejected (attempt %d): %s", name, spent, error)
            continue
        try:
            return StructuredAnswer(schema.model_validate(data))
        except ValidationError as error:
            # Some items wrong (or one cut off): the others are still the model's.
            salvaged = keep_valid_items(schema, data)
            if salvaged is not None:
                return StructuredAnswer(salvaged)
            logger.info("structured answer %s rejected (attempt %d): %s", name, spent, error)
    return StructuredAnswer(None)


def with_schema_prompt(
    messages: list[Message], name: str, json_schema: dict[str, Any]
) -> list[Message]:
    """The messages with the schema written into the last user message, for the
    rungs where the provider does not enforce it."""
    # An example of the object, not the JSON schema itself: given a schema, small
    # models write the schema back (seen with Qwen2.5-Coder-0.5B on llama_cpp.server,
    # every carousel outline), and no key of it is a field of the answer.
    instruction = (
        f"Answer with one JSON object only, no other text: a {name} matching this shape, "
        "each <...> replaced by your own words:\n"
        + json.dumps(example_of(json_schema), ensure_ascii=False)
    )
    for index in range(len(messages) - 1, -1, -1):
        if messages[index]["role"] == "user":
            changed = dict(messages[index])
            changed["content"] = f"{changed['content']}\n\n{instruction}"
            return [*messages[:index], changed, *messages[index + 1 :]]
    return [*messages, {"role": "user", "content": instruction}]


def example_of(json_schema: dict[str, Any]) -> Any:
    """An instance shaped as `json_schema` says, each text a placeholder naming its field
    (and its description): `{"title": "<title: at most 8 words>"}`; a list holds one
    item. `$ref`s are followed into `$defs`."""
    definitions = json_schema.get("$defs", {})

    def walk(node: dict[str, Any], field: str) -> Any:
        if "$ref" in node:
            return walk(definitions.get(node["$ref"].rsplit("/", 1)[-1], {}), field)
        for key in ("anyOf", "oneOf", "allOf"):
            if choices := [c for c in node.get(key, []) if c.get("type") != "null"]:
                return walk(choices[0], field)
        if "enum" in node:
            return node["enum"][0]
        kind = node.get("type")
        if kind == "object" or "properties" in node:
            return {name: walk(sub, name) for name, sub in node.get("properties", {}).items()}
        if kind == "array":
            return [walk(node.get("items", {}), field)]
        if kind == "integer":
            return 1
        if kind == "number":
            return 1.0
        if kind == "boolean":
            return True
        description = (node.get("description") or "").rstrip(".").lower()
        return f"<{field.replace('_', ' ')}{': ' + description if description else ''}>"

    return walk(json_schema, "text")


def schema_name(schema: type[BaseModel]) -> str:
    """The schema's real name in snake_case (`CarouselOutline` -> `carousel_outline`):
    providers show it to the model, and fakes route on it."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", schema.__name__).lower()


def strict_schema(schema: type[BaseModel]) -> dict[str, Any]:
    """The pydantic schema with every object closed and every field required, as
    OpenAI's strict mode wants (and llama.cpp's grammar handles)."""
    result: dict[str, Any] = json.loads(json.dumps(schema.model_json_schema()))

    def close(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "object" and "properties" in node:
                node["additionalProperties"] = False
                node["required"] = list(node["properties"])
            for value in node.values():
                close(value)
        elif isinstance(node, list):
            for value in node:
                close(value)

    close(result)
    return result
