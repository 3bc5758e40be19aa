"""A request body that is JSON or multipart/form-data, read with a size cap; and the
app-wide check of the text every request brings (path, query, JSON bodies).

Endpoints that take files (calendar PDF, carousel images) accept either form:
JSON for text-only requests, multipart when files come along. The body is read
as it streams in and refused (413) as soon as it passes its route's cap (declared
on the route, `body_cap`; body_gate has refused a Content-Length over it already),
never after holding it all in memory; a form is parsed part by part (`form_parts`),
and large bodies are decoded in a worker thread. Every text is checked by
`socialgen.kit.text_check`. The pydantic model that parses and documents a body is in
`body_models`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fastapi import Depends
from fastapi.routing import APIRoute
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from socialgen.http.form_parts import FormParser, FormSpec, RequestBody, boundary_of
from socialgen.kit.errors import BadRequest
from socialgen.kit.limits import DEFAULT_BODY_LIMIT, JSON_BODY, BodyLimit
from socialgen.kit.text_check import check_text, decode_json
from socialgen.kit.uploads import read_capped

__all__ = [
    "FormSpec",
    "RequestBody",
    "body_cap",
    "json_object",
    "read_body",
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
    UTF-8, not JSON, not an object, or text with a lone surrogate, a NUL or another
    control character (kit/text_check.py)."""
    fields = decode_json(raw or b"{}")
    if not isinstance(fields, dict):
        raise BadRequest("The request body must be a JSON object")
    check_text(fields)
    return fields


async def check_request_text(request: Request) -> None:
    """App-wide dependency (server.py): the path parameters, the query string and the
    JSON body FastAPI decoded for a pydantic model hold no lone surrogate, NUL or other
    control character (but tab and line breaks).
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
