"""A request body that is JSON or multipart/form-data, read with a size cap; and the
app-wide check of the text every request brings (path, query, JSON bodies).

Endpoints that take files (calendar PDF, carousel images) accept either form:
JSON for text-only requests, multipart when files come along. The body is read
as it streams in and refused (413) as soon as it passes its route's cap
(declared on the route, `body_cap`; body_gate has refused a Content-Length over it already), never
after holding it all in memory; a form is parsed part by part (`form_parts`), and
large bodies are decoded in a worker thread. Every text is checked by
`socialgen.text_check`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Annotated, Any, TypeVar, get_args, get_origin

from fastapi import Depends
from fastapi.routing import APIRoute
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
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from socialgen.errors import BadRequest
from socialgen.form_parts import FormParser, FormSpec, RequestBody, boundary_of
from socialgen.limits import BLANK_PATTERN, DEFAULT_BODY_LIMIT, JSON_BODY, BodyLimit
from socialgen.text_check import check_text, decode_json
from socialgen.uploads import read_capped

__all__ = [
    "Blank",
    "BodyModel",
    "FormOnly",
    "FormSpec",
    "HttpUrlText",
    "RequestBody",
    "documented_body",
    "form_fields",
    "json_object",
    "parse_fields",
    "parse_form",
    "parse_json",
    "read_body",
    "read_model",
    "reads",
    "unsupported_media_type",
]

BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
# A body this large is decoded (JSON) or finished (a form's fields) in a worker thread.
OFF_LOOP_BYTES = 1024 * 1024


def media_type(content_type: str) -> str:
    """`multipart/form-data; boundary=x` -> `multipart/form-data`."""
    return content_type.split(";", 1)[0].strip().lower()


def unsupported_media_type(media: str, *, form: bool) -> BadRequest:
    """The 415 of every endpoint that takes a body: what was sent, what to send."""
    wanted = "application/json, or multipart/form-data with files" if form else "application/json"
    return BadRequest(
        f"Unsupported Content-Type `{media}`: send the body as {wanted}", status_code=415
    )


# --- one pydantic model per body ----------------------------------------------------
#
# A body model's field types are its documentation (its JSON schema is the OpenAPI
# body); each field's `reads(...)` validator parses the value sent, with SPEC.md's
# messages (a BadRequest, which pydantic lets through as it is). A JSON object and a
# form's fields and files (`form_data`) go through the same model; the validators learn
# which one they read from the validation context (a form sends numbers as digits).
# A blank text field, like null, means the field was not given.

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


def body_cap(limit: BodyLimit = JSON_BODY) -> Any:
    """A route's body cap, declared on it: `dependencies=[body_cap(CALENDAR_BODY)]`.
    body_gate reads it before a byte of the body is taken."""
    return Depends(limit)


def declared_limit(route: Any) -> BodyLimit | None:
    """The cap a route declares (`body_cap`), or None."""
    dependant = getattr(route, "dependant", None)
    for dependency in getattr(dependant, "dependencies", ()):
        if isinstance(dependency.call, BodyLimit):
            return dependency.call
    return None


def body_limits(app: Any) -> dict[tuple[str, str], BodyLimit | None]:
    """Every route that takes a body (POST, PUT, PATCH), by method and path template,
    with the cap it declares (None: none, so the default one applies)."""
    return {
        (method, route.path): declared_limit(route)
        for route in _api_routes(app.routes)
        for method in sorted((route.methods or set()) & BODY_METHODS)
    }


def _api_routes(routes: Any) -> Iterator[APIRoute]:
    """The API routes, through included routers (FastAPI keeps an included router as
    one entry that holds the original; the routes' paths carry its prefix)."""
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        else:
            inner = getattr(route, "original_router", route)
            yield from _api_routes(getattr(inner, "routes", ()))


def route_limit(route: Any) -> BodyLimit:
    """The body limit of a matched route (None: not matched yet): its own, or the
    default."""
    return declared_limit(route) or DEFAULT_BODY_LIMIT


async def read_body(request: Request, spec: FormSpec) -> RequestBody:
    """JSON object, or the fields and files of a form `spec` describes, each read with
    its route's cap (`body_cap`) as it streams in."""
    limit = route_limit(request.scope.get("route"))
    content_type = request.headers.get("content-type", "")
    media = media_type(content_type)
    if media == "multipart/form-data" and limit.form_bytes is not None:
        return await read_form(request, spec, limit.form_bytes, limit.form_too_large)
    if media in ("application/json", ""):
        raw = await read_capped(request.stream(), limit.json_bytes, too_large=limit.json_too_large)
        if len(raw) > OFF_LOOP_BYTES:
            return RequestBody(fields=await run_in_threadpool(json_object, raw))
        return RequestBody(fields=json_object(raw))
    raise unsupported_media_type(media, form=limit.form_bytes is not None)


def json_object(raw: bytes) -> dict[str, Any]:
    """A JSON object body (an empty body is an empty object), or a clear 400: not
    UTF-8, not JSON, not an object, or text with a lone surrogate or a NUL."""
    fields = decode_json(raw or b"{}")
    if not isinstance(fields, dict):
        raise BadRequest("The request body must be a JSON object")
    check_text(fields)
    return fields


async def check_request_text(request: Request) -> None:
    """App-wide dependency (server.py): the path parameters, the query string and the
    JSON body FastAPI decoded for a pydantic model hold no lone surrogate or NUL.
    It runs before the endpoint's own dependencies and the endpoint.

    Bodies the endpoint reads itself (`read_body`, generate-pdf) are left alone here:
    reading them would defeat their streaming caps; `json_object` and `parse_form`
    check them."""
    for name, value in request.path_params.items():
        check_text(value, name)
    for name, value in request.query_params.multi_items():
        check_text(name, "A query parameter name")
        check_text(value, name)
    route = request.scope.get("route")
    if isinstance(route, APIRoute) and route.body_field is not None:
        raw = await request.body()  # FastAPI has read it already: this is its copy
        if raw and _is_json(request.headers.get("content-type", "")):
            # Decoded again, by the decoder `json_object` uses: strict UTF-8 (FastAPI's
            # json.loads lets UTF-8-encoded surrogates through) and one wording.
            check_text(decode_json(raw))


def _is_json(content_type: str) -> bool:
    """The media types FastAPI decodes as JSON for a body model."""
    media_type = content_type.split(";", 1)[0].strip().lower()
    return media_type == "application/json" or (
        media_type.startswith("application/") and media_type.endswith("+json")
    )


def optional_text(value: Any, name: str) -> str | None:
    """A text field, trimmed; None when absent or blank; 400 when not a string."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise BadRequest(f"{name} must be a string")
    return value.strip() or None


async def read_form(request: Request, spec: FormSpec, limit: int, too_large: str) -> RequestBody:
    """A multipart body, parsed part by part as it streams in (`form_parts`): refused
    (413, `too_large`) once it passes `limit` bytes, and at the first part that breaks
    `spec` or a per-part cap. The fields are finished in a worker thread when the body
    was large (decoding and checking a file's worth of text)."""
    parser = FormParser(boundary_of(request.headers.get("content-type", "")), spec)
    received = 0
    async for chunk in request.stream():
        received += len(chunk)
        if received > limit:
            raise BadRequest(too_large, status_code=413)
        parser.feed(chunk)
    if received > OFF_LOOP_BYTES:
        return await run_in_threadpool(parser.finish)
    return parser.finish()
