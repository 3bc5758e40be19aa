"""One pydantic model per request body that an endpoint reads itself (JSON or a
multipart form with files): it parses the body and documents it.

A body model's field types are its documentation (its JSON schema is the OpenAPI
body, `documented_body`); each field's `reads(...)` validator parses the value sent,
with SPEC.md's messages (a BadRequest, which pydantic lets through as it is). A JSON
object and a form's fields and files (`form_data`) go through the same model; the
validators learn which one they read from the validation context (a form sends
numbers as digits). A blank text field, like null, means the field was not given.
The body itself is read, with its route's cap, by `request_body`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar, get_args, get_origin

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetJsonSchemaHandler,
    ValidationError,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    WrapValidator,
    model_validator,
)
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import CoreSchema
from starlette.requests import Request

from socialgen.http.form_parts import FormSpec, RequestBody
from socialgen.http.request_body import media_type, read_body
from socialgen.kit.errors import BadRequest
from socialgen.kit.limits import BLANK_PATTERN

Blank = Annotated[str, Field(pattern=BLANK_PATTERN)]
HttpUrlText = Annotated[
    str, Field(pattern="^[Hh][Tt][Tt][Pp][Ss]?://", json_schema_extra={"format": "uri"})
]
M = TypeVar("M", bound="BodyModel")
_FORM = "form"
_FORM_ONLY = "x-form-only"


class BodyModel(BaseModel):
    """A request body. Every field goes through its validator: a required one that is
    missing as None (the validator, not pydantic, answers with SPEC.md's message), an
    optional one that is missing as its default."""

    model_config = ConfigDict(validate_default=True)

    @model_validator(mode="before")
    @classmethod
    def _missing_is_none(cls, data: Any) -> Any:
        if isinstance(data, dict):
            missing = (name for name, field in cls.model_fields.items() if field.is_required())
            return {**data, **{name: None for name in missing if name not in data}}
        return data


class Reads(WrapValidator):
    """A body field's validator (`reads`)."""


def reads(parse: Callable[[Any, bool], Any]) -> Reads:
    """A field's validator: `parse(value, form)` gives the field's value or raises
    SPEC.md's BadRequest; `form` is True for a multipart form's fields and files."""

    def validate(value: Any, _handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
        return parse(value, bool(info.context and info.context.get(_FORM)))

    return Reads(validate)


def without_readers(annotation: Any) -> Any:
    """A field's annotation without its `reads` validator: the type alone, for a
    framework that validates arguments before the model does (the MCP SDK, which
    would take a BadRequest there for a crash and hide its message)."""
    if get_origin(annotation) is not Annotated:
        return annotation
    inner, *metadata = get_args(annotation)
    kept = [item for item in metadata if not isinstance(item, Reads)]
    return Annotated[(inner, *kept)] if kept else inner


class FormOnly:
    """Metadata: the field, or this alternative of a union, is sent only in a form (a
    file; a blank text where JSON would send null); the JSON body's schema leaves it
    out."""

    def __get_pydantic_json_schema__(
        self, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        return {**handler(core_schema), _FORM_ONLY: True}


def parse_json(model: type[M], fields: dict[str, Any]) -> M:
    """A JSON object's fields (`json_object`) read by the body model."""
    return parse_fields(model, fields, form=False)


def parse_form(model: type[M], body: RequestBody) -> M:
    """A form's fields and files read by the same body model."""
    return parse_fields(model, form_data(body), form=True)


def form_data(body: RequestBody) -> dict[str, Any]:
    """A parsed form as one dict: text fields as text (a repeated list field as a list),
    a file field as the list of its files' bytes (a file wins over a text part of the
    same name)."""
    return {**body.fields, **body.files}


def parse_fields(model: type[M], data: dict[str, Any], *, form: bool) -> M:
    """`data` read by the body model, as a form's text (`form`: numbers as digits) or
    as JSON; the CLI hands in its options this way."""
    try:
        return model.model_validate(data, context={_FORM: form})
    except ValidationError as error:
        # Every field has its `reads` validator; this is the net under a field that
        # was declared without one.
        first = error.errors()[0]
        name = ".".join(str(part) for part in first["loc"]) or "The request body"
        raise BadRequest(f"{name}: {first['msg']}") from None


async def read_model(request: Request, model: type[M], spec: FormSpec) -> M:
    """The body, JSON or (when the route takes one) a form `spec` describes, read with
    its route's cap and parsed by `model`."""
    body = await read_body(request, spec)
    if is_form(request):
        return parse_form(model, body)
    return parse_json(model, body.fields)


def is_form(request: Request) -> bool:
    """A multipart form gives every field as text; JSON gives numbers as numbers."""
    return media_type(request.headers.get("content-type", "")) == "multipart/form-data"


class _FieldsUntitled(GenerateJsonSchema):
    """No generated title per field ("Slidecount"): the descriptions say it."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False


def body_schema(model: type[BaseModel], *, form: bool) -> dict[str, Any]:
    """The body model's JSON schema as JSON or as a form sends it: JSON leaves out what
    is marked `FormOnly`; a form cannot send null."""
    schema = model.model_json_schema(schema_generator=_FieldsUntitled)
    shaped = _for_media(schema, form=form)
    assert isinstance(shaped, dict)
    return shaped


def documented_body(model: type[BaseModel], *, takes_files: bool) -> dict[str, Any]:
    """An endpoint's `openapi_extra` for a body it reads itself: required, JSON or
    (when it takes files) a multipart form, both from the one model's schema."""
    content = {"application/json": {"schema": body_schema(model, form=False)}}
    if takes_files:
        content["multipart/form-data"] = {"schema": body_schema(model, form=True)}
    return {"requestBody": {"required": True, "content": content}}


def form_fields(model: type[BaseModel]) -> frozenset[str]:
    """The multipart form fields a body model lists."""
    return frozenset(body_schema(model, form=True)["properties"])


def _form_only(node: Any) -> bool:
    return isinstance(node, dict) and bool(node.get(_FORM_ONLY))


def _for_media(node: Any, *, form: bool) -> Any:
    if isinstance(node, list):
        return [_for_media(item, form=form) for item in node]
    if not isinstance(node, dict):
        return node
    shaped: dict[str, Any] = {}
    for key, value in node.items():
        if key == _FORM_ONLY:
            continue
        if key == "anyOf":
            kept = [_for_media(item, form=form) for item in value if form or not _form_only(item)]
            shaped[key] = [item for item in kept if not (form and item == {"type": "null"})]
        elif key == "properties":
            shaped[key] = {
                name: _for_media(field, form=form)
                for name, field in value.items()
                if form or not _form_only(field)
            }
        else:
            shaped[key] = _for_media(value, form=form)
    if len(shaped.get("anyOf", ())) == 1:
        only = shaped.pop("anyOf")[0]
        shaped = {**only, **shaped}
    return shaped
