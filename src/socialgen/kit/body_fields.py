"""Fields of a request body that its service checks, documented by the type they take.

A body FastAPI reads for an endpoint (a JSON object) is taken loosely: a field takes
any string, or null, so that the service every face shares (the CLI's, the MCP
tools') refuses a bad value with SPEC.md's message, not pydantic's. Its OpenAPI schema
still says what the service accepts, and that is a type too: `ShownAs(shape)`, whose
schema pydantic generates from the shape's constraints as for any field (no schema is
written by hand, so the document cannot drift from the limits it names).
`CheckedBody` lists a field marked `ShownAs(..., required=True)` as required in the
document while the model keeps it optional (None): the service words a missing one.

Bodies an endpoint reads itself (multipart forms with files) are `body_models`'.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, GetJsonSchemaHandler, TypeAdapter
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema


class ShownAs:
    """Metadata: the field is documented as `shape` (a type; its constraints are the
    schema), and as required when `required`."""

    __slots__ = ("required", "shape")

    def __init__(self, shape: Any, *, required: bool = False) -> None:
        self.shape = shape
        self.required = required

    def __get_pydantic_json_schema__(
        self, _core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        # The shape's schema, made by the generator at work on the whole document.
        return handler(TypeAdapter(self.shape).core_schema)

    def __repr__(self) -> str:
        return f"ShownAs({self.shape!r}, required={self.required})"


class CheckedBody(BaseModel):
    """A request body whose service checks its fields: those marked
    `ShownAs(..., required=True)` are required in its schema, without a default."""

    @classmethod
    def __get_pydantic_json_schema__(
        cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        schema = handler(core_schema)
        shown = handler.resolve_ref_schema(schema)
        properties = shown.get("properties", {})
        required = list(shown.get("required", ()))
        for name, field in cls.model_fields.items():
            if not any(isinstance(item, ShownAs) and item.required for item in field.metadata):
                continue
            key = field.alias if field.alias in properties else name
            properties[key].pop("default", None)
            if key not in required:
                required.append(key)
        if required:
            shown["required"] = required
        return schema
