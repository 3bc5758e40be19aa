"""Structured answers: ask with a JSON schema, validate with pydantic, retry once,
then give up quietly (the caller degrades, e.g. no suggested questions)."""

from __future__ import annotations

import json
import logging
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from socialgen.ai.json_repair import close_truncated
from socialgen.ai.model import Message, ModelError, TextModel, complete

logger = logging.getLogger("socialgen.ai")
T = TypeVar("T", bound=BaseModel)
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.MULTILINE)


async def ask_structured(
    model: TextModel,
    messages: list[Message],
    schema: type[T],
    *,
    max_tokens: int = 160,  # three short questions fit; small models ramble otherwise
    attempts: int = 2,
) -> T | None:
    json_schema = strict_schema(schema)
    for attempt in range(1, attempts + 1):
        try:
            text = await complete(
                model, messages, json_schema=json_schema, max_tokens=max_tokens, temperature=0.2
            )
            return _parse(schema, _FENCE.sub("", text.strip()))
        except (ValidationError, ValueError) as error:
            logger.info(
                "structured answer %s rejected (attempt %d): %s", schema.__name__, attempt, error
            )
        except ModelError as error:
            logger.info("structured answer %s failed: %s", schema.__name__, error.message)
            return None
    return None


def _parse(schema: type[T], text: str) -> T:
    """The answer as `schema`. Raw newlines or tabs inside strings (which small
    models write) are accepted: JSON forbids them, but the meaning is plain. An
    answer cut off at the token limit keeps its complete items."""
    try:
        return schema.model_validate_json(text)
    except ValidationError:
        try:
            data = json.loads(text, strict=False)
        except ValueError:
            repaired = close_truncated(text)
            if repaired is None:
                raise
            data = json.loads(repaired, strict=False)  # ValueError when still not JSON
            logger.info("structured answer %s was cut off: kept its complete part", schema.__name__)
        return schema.model_validate(data)


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
