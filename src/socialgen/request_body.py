"""A request body that is JSON or multipart/form-data, read with a size cap; and the
app-wide check of the text every request brings (path, query, JSON bodies).

Endpoints that take files (calendar PDF, carousel images) accept either form:
JSON for text-only requests, multipart when files come along. The body is read
as it streams in and refused (413) as soon as it passes its route's cap
(limits.BODY_LIMITS; body_gate has refused a Content-Length over it already), never
after holding it all in memory; a form is parsed part by part (`form_parts`), and
large bodies are decoded in a worker thread. Every text is checked by
`socialgen.text_check`.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import GenerateJsonSchema
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from socialgen.errors import BadRequest
from socialgen.form_parts import FormParser, FormSpec, RequestBody, boundary_of
from socialgen.limits import BLANK_PATTERN, BodyLimit, body_limit
from socialgen.text_check import check_text, decode_json
from socialgen.uploads import read_capped

__all__ = [
    "DESCRIBES_ONLY",
    "Blank",
    "FormSpec",
    "HttpUrlText",
    "RequestBody",
    "form_fields",
    "json_object",
    "openapi_body",
    "read_body",
    "unsupported_media_type",
]

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


# --- what a body read by hand accepts, as pydantic models -------------------------
#
# The readers (`read_body` and the slices' body.py) decide, with SPEC.md's messages;
# these models only describe them: their JSON schemas are the OpenAPI request bodies.
# A blank text field, like null, means the field was not given.

# Nothing is validated through them: pydantic builds them when a route asks for their
# schema (`openapi_body`, `form_fields`), not when a command imports its schemas.
DESCRIBES_ONLY = ConfigDict(defer_build=True)
Blank = Annotated[str, Field(pattern=BLANK_PATTERN)]
HttpUrlText = Annotated[
    str, Field(pattern="^[Hh][Tt][Tt][Pp][Ss]?://", json_schema_extra={"format": "uri"})
]


class _FieldsUntitled(GenerateJsonSchema):
    """No generated title per field ("Slidecount"): the descriptions say it."""

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False


def openapi_body(json: type[BaseModel], form: type[BaseModel] | None = None) -> dict[str, Any]:
    """An endpoint's `openapi_extra`: a required body, JSON or (when it takes files) a
    multipart form, each the schema of the model that describes it."""
    content = {"application/json": {"schema": _schema(json)}}
    if form is not None:
        content["multipart/form-data"] = {"schema": _schema(form)}
    return {"requestBody": {"required": True, "content": content}}


def _schema(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema(schema_generator=_FieldsUntitled)


def form_fields(form: type[BaseModel]) -> frozenset[str]:
    """The multipart form fields a form model (its OpenAPI body) lists."""
    return frozenset(_schema(form)["properties"])


def route_limit(request: Request) -> BodyLimit:
    """The body limit of the request's route (limits.BODY_LIMITS)."""
    route = request.scope.get("route")
    return body_limit(request.method, getattr(route, "path", request.url.path))


async def read_body(request: Request, spec: FormSpec) -> RequestBody:
    """JSON object, or the fields and files of a form `spec` describes, each read with
    its route's cap (limits.BODY_LIMITS) as it streams in."""
    limit = route_limit(request)
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
