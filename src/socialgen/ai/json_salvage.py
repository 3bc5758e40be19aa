"""Keep the items of a structured answer that are right when some are not.

A plan is an object with a list of items (`{"slides": [...]}`). A small model gets
one item wrong (a field left out, a number for a text), or its answer is cut off
inside an item and json_repair kept that item only as far as it went: pydantic then
rejects the whole answer, and the items the model did write in full are lost to the
template. Here each list of items keeps the items that validate on their own, so
only the wrong ones are missing (and a plan's top-up asks for them again)."""

from __future__ import annotations

import logging
import types
import typing
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

logger = logging.getLogger("socialgen.ai")
T = TypeVar("T", bound=BaseModel)


def keep_valid_items(schema: type[T], data: object) -> T | None:
    """`data` as `schema` with each list of item objects cut down to its valid items;
    None when that is still not valid, or when no item at all is left (nothing the
    model wrote is worth keeping then, and the answer counts as unusable)."""
    if not isinstance(data, dict):
        return None
    kept: dict[str, Any] = dict(data)
    written = left = 0
    for name, field in schema.model_fields.items():
        item_schema = _item_model(field.annotation)
        items = data.get(field.alias or name)
        if item_schema is None or not isinstance(items, list):
            continue
        valid = [item for item in items if _validates(item_schema, item)]
        kept[field.alias or name] = valid
        written += len(items)
        left += len(valid)
    if left == 0:
        return None
    try:
        answer = schema.model_validate(kept)
    except ValidationError:
        return None  # wrong outside the items (a field of the plan itself)
    logger.info("structured answer %s: kept %d of its %d items", schema.__name__, left, written)
    return answer


def _item_model(annotation: object) -> type[BaseModel] | None:
    """The item model of a `list[Model]` field, else None."""
    if typing.get_origin(annotation) is not list:
        return None
    (item,) = typing.get_args(annotation) or (None,)
    # list[int] passes isinstance(..., type) on some Pythons, and issubclass raises on it.
    plain_class = isinstance(item, type) and not isinstance(item, types.GenericAlias)
    return item if plain_class and issubclass(item, BaseModel) else None


def _validates(schema: type[BaseModel], item: object) -> bool:
    try:
        schema.model_validate(item)
    except ValidationError:
        return False
    return True
