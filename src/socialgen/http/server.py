"""The FastAPI application: routers, and error bodies as SPEC.md shapes them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from socialgen import __version__
from socialgen.app.runtime import Runtime
from socialgen.auth.service import NOT_AUTHORIZED, TokenRejected
from socialgen.http.body_gate import BodyGate
from socialgen.http.request_body import check_request_text
from socialgen.kit.errors import NotAuthenticated, SocialgenError
from socialgen.kit.text_check import malformed_json


def create_app(runtime: Runtime) -> FastAPI:
    """Build the app on a migrated store. `runtime`: what requests run with (settings,
    models; `serve` makes it from its options, a test hands in one with the scripted
    model); its settings are read once, at the first request that needs them; it owns
    the store's engine, and the app's lifespan closes it."""
    from socialgen.http.feature_routes import include_routers

    app = FastAPI(
        title="socialgen",
        version=__version__,
        description="Generate and manage social posts with AI, inside workspaces.",
        lifespan=_lifespan,
        # Lone surrogates and NUL in path, query and JSON body: a 400 before any work.
        dependencies=[Depends(check_request_text)],
    )
    app.state.engine = runtime.open_store()
    app.state.runtime = runtime
    include_routers(app, runtime.features)  # every feature's routes
    # Key and access, content type, size cap and quota before any body is read (issue 19).
    app.add_middleware(BodyGate)
    app.add_exception_handler(SocialgenError, _domain_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _unexpected_error)
    return app


def worker_app(options: dict[str, Any]) -> FastAPI:
    """The app of one of `serve --workers N`'s processes (uvicorn's factory): a Runtime
    of its own from the command's options (handed over pickled, not through the
    environment), its settings read in this process."""
    return create_app(Runtime(options=options))


@asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    """While the app runs: every feature's lifespan work (abandoned quota given back,
    publishing's scheduler ...: each `feature.py` says). Then the Runtime closes: its
    engines are disposed, its lease keeper stops."""
    from socialgen.http.feature_routes import lifespans

    runtime: Runtime = app.state.runtime
    try:
        async with lifespans(app, runtime.features):
            yield
    finally:
        runtime.close()


def error_body(
    status_code: int, message: str, headers: dict[str, str] | None = None
) -> JSONResponse:
    return JSONResponse(
        {"success": False, "message": message}, status_code=status_code, headers=headers
    )


async def _domain_error(_request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, SocialgenError)
    headers = None
    if isinstance(error, NotAuthenticated) and error.message == NOT_AUTHORIZED:
        headers = {"WWW-Authenticate": 'Bearer realm="socialgen"'}
    if isinstance(error, TokenRejected):
        # The message stays SPEC.md's; the precise reason goes where RFC 6750 puts it.
        headers = {
            "WWW-Authenticate": f'Bearer error="invalid_token", error_description="{error.reason}"'
        }
    return error_body(error.status_code, error.message, headers)


async def _validation_error(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, RequestValidationError)
    errors = error.errors()
    first: dict[str, Any] = next(iter(errors), {})
    if first.get("type") == "missing" and tuple(first.get("loc", ())) == ("body",):
        return error_body(400, missing_body_message(request))
    return error_body(400, describe_validation_error(errors))


async def _http_error(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, StarletteHTTPException)
    if isinstance(error.__cause__, SocialgenError):
        # Raised while FastAPI read a body model (body_gate's 413 from `receive`):
        # FastAPI made it "There was an error parsing the body"; answer the real one.
        return await _domain_error(request, error.__cause__)
    if isinstance(error.__cause__, UnicodeDecodeError | RecursionError):
        # FastAPI's "There was an error parsing the body" for a JSON body model: say
        # what request_body says for the bodies it reads.
        return error_body(400, malformed_json(error.__cause__))
    headers = getattr(error, "headers", None)
    if error.status_code == 405:
        headers = {**(headers or {}), "Allow": allowed_methods(request)}
    return error_body(error.status_code, str(error.detail), headers)


HTTP_METHODS = ("DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT")


def allowed_methods(request: Request) -> str:
    """Every method of the request's path, for a 405's Allow header: those the OpenAPI
    document gives its path template (PUT and DELETE /post/{workspaceId}/{postId} are
    two routes, and Starlette names only the first route's). A template, not the
    URL: .../get-posts-from-social-profile also fits PUT /{workspaceId}/{styleId},
    which is not a method of that resource."""
    template = getattr(request.scope.get("route"), "path", None)
    documented = request.app.openapi()["paths"].get(template, {}) if template else {}
    methods = {method.upper() for method in documented} & set(HTTP_METHODS)
    if not methods:  # a route left out of the document (/docs ...): ask the routes
        routes = request.app.router.routes
        methods = {
            method
            for method in HTTP_METHODS
            if any(
                route.matches({**request.scope, "method": method})[0] is Match.FULL
                for route in routes
            )
        }
    return ", ".join(sorted(methods))


def missing_body_message(request: Request) -> str:
    """An endpoint's JSON body is absent: its model may name what SPEC.md answers then
    (`missing_body`, e.g. "Content is required" for PUT post)."""
    body_field = getattr(request.scope.get("route"), "body_field", None)
    model = getattr(getattr(body_field, "field_info", None), "annotation", None)
    message = getattr(model, "missing_body", None)
    return message if isinstance(message, str) else "The request body must be a JSON object"


async def _unexpected_error(_request: Request, _error: Exception) -> JSONResponse:
    return error_body(500, "Internal server error")


def describe_validation_error(errors: Any) -> str:
    """One clear sentence for the first problem in a request."""
    first = next(iter(errors))
    kind = first.get("type", "")
    loc = [str(part) for part in first.get("loc", ())]
    name = loc[-1] if loc else "request"
    if kind == "json_invalid":
        return "Malformed JSON body: " + str(first.get("ctx", {}).get("error", "invalid JSON"))
    if kind in ("int_parsing", "greater_than_equal") and loc[:1] == ["query"]:
        return f"{name} must be a positive integer"
    if kind == "less_than_equal" and loc[:1] == ["query"]:
        return f"{name} must be at most {first.get('ctx', {}).get('le')}"
    if kind == "model_attributes_type" or (loc == ["body"] and kind.endswith("_type")):
        return "The request body must be a JSON object"
    where = ".".join(part for part in loc if part != "body") or "body"
    return f"Invalid {where}: {first.get('msg', 'invalid value')}"
