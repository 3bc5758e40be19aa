"""The gate in front of every endpoint that takes a body (a pure ASGI middleware).

FastAPI reads and decodes a pydantic body before it solves an endpoint's
dependencies, so the API key used to be checked only after a 20 MB body had been
read and parsed on the event loop. The gate wraps `receive`: at its first call, when
whoever reads the body starts (FastAPI for a body model, `request_body` for the
endpoints that read their own) and before a byte is taken, it

1. checks the caller: the route's own access dependency (`WorkspaceGuard`,
   `authenticated_user`: key, bearer token, workspace, role), run in a thread, so
   every refusal keeps its status and message (401, generate-batch-posts' 400, 403);
2. checks the Content-Type: application/json or none (read as JSON), or
   multipart/form-data where the endpoint takes files; anything else is a 415;
3. refuses a Content-Length over the cap the route declares (`request_body.body_cap`)
   with a 413;
4. refuses a workspace with less quota than the request can use (403);

then counts the bytes and raises the 413 as soon as they pass the cap, for bodies
that do not say their length. Errors are raised from `receive`, so the app's
handlers answer them (server.py unwraps the 400 FastAPI makes of an error raised
while it reads a body model). By the first `receive` the router has matched the
route, so the gate needs no routing of its own.

An answer given before the body was all read closes the connection: uvicorn would
otherwise read (and throw away) the rest of a 100 MB body to keep it alive.

The route's access dependency is found by its shape, not its type (the face helpers
sit below the faces that define it): a dependency of the route that reads the
`x-api-key` header, whose own parameters are path parameters, headers and
dependencies on the request alone (the engine). The route runs it again in its turn
(a key lookup: cheap).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from socialgen.http.request_body import (
    BODY_METHODS,
    media_type,
    route_limit,
    unsupported_media_type,
)
from socialgen.kit.errors import BadRequest, QuotaExceeded
from socialgen.kit.limits import BodyLimit
from socialgen.store.engine import read_session
from socialgen.workspaces.service import get_usage

KEY_HEADER = "x_api_key"


class BodyGate:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in BODY_METHODS:
            await self.app(scope, receive, send)
            return
        # The checks run at the first `receive`, when whoever reads the body starts:
        # by then the router has matched the route (scope["route"], its path
        # parameters), and not a byte of the body has been taken. Their errors are
        # raised from `receive`, so the app's handlers answer them as ever.
        headers = Headers(scope=scope)
        checked = False
        cap = 0
        too_large = ""
        received = 0
        finished = _no_body(headers)

        async def gated_receive() -> Message:
            nonlocal checked, cap, too_large, received, finished
            if not checked:
                checked = True
                cap, too_large = await _check(scope, headers)
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > cap:
                    raise BadRequest(too_large, status_code=413)
                finished = not message.get("more_body", False)
            return message

        async def closing_send(message: Message) -> None:
            # An answer given before the body was all read closes the connection.
            if message["type"] == "http.response.start" and not finished:
                message = {**message, "headers": [*message.get("headers", []), _CLOSE]}
            await send(message)

        await self.app(scope, gated_receive, closing_send)


_CLOSE = (b"connection", b"close")


async def _check(scope: Scope, headers: Headers) -> tuple[int, str]:
    """Steps 1 to 4 of the module's docstring; the cap and 413 message of the body."""
    route = scope.get("route")
    path_params: dict[str, Any] = scope.get("path_params", {})
    limit = route_limit(route)
    if isinstance(route, APIRoute):
        await _check_access(scope, route, path_params)
    cap, too_large = _check_content_type(scope, headers, limit)
    declared = headers.get("content-length", "")
    if declared.isdigit() and int(declared) > cap:
        raise BadRequest(too_large, status_code=413)
    if limit.needs_posts and "workspaceId" in path_params:
        engine = scope["app"].state.engine
        workspace_id = path_params["workspaceId"]
        await run_in_threadpool(_check_quota, engine, workspace_id, limit.needs_posts)
    return cap, too_large


def _no_body(headers: Headers) -> bool:
    """True when the request has no body at all (nothing is left unread)."""
    return "transfer-encoding" not in headers and headers.get("content-length", "0") == "0"


def _check_content_type(scope: Scope, headers: Headers, limit: BodyLimit) -> tuple[int, str]:
    """The cap and 413 message for the body's type, or a 415."""
    media = media_type(headers.get("content-type", ""))
    if media == "multipart/form-data" and limit.form_bytes is not None:
        return limit.form_bytes, limit.form_too_large
    if media == "application/json":
        return limit.json_bytes, limit.json_too_large
    if "content-type" not in headers:
        # No Content-Type reads as JSON; FastAPI would not decode it: say it is JSON.
        # Request objects built from this scope read its headers afresh.
        scope["headers"] = [*scope["headers"], (b"content-type", b"application/json")]
        return limit.json_bytes, limit.json_too_large
    raise unsupported_media_type(media or "(empty)", form=limit.form_bytes is not None)


async def _check_access(scope: Scope, route: APIRoute, path_params: dict[str, Any]) -> None:
    """Run the route's access dependencies now, as the route will run them later."""
    request = Request(scope)
    overrides = getattr(scope["app"], "dependency_overrides", {})
    for dependant in _access_dependencies(route):
        call = overrides.get(dependant.call, dependant.call)
        assert call is not None  # _access_dependencies keeps those with a call
        arguments = _arguments(dependant, request, path_params, overrides)
        if arguments is None:
            continue  # a shape the gate cannot fill: the route checks it in its turn
        result = await run_in_threadpool(call, **arguments)
        if inspect.isawaitable(result):
            await result


def _access_dependencies(route: APIRoute) -> tuple[Dependant, ...]:
    return tuple(
        dependant
        for dependant in route.dependant.dependencies
        if dependant.call is not None
        and any(field.name == KEY_HEADER for field in dependant.header_params)
    )


def _arguments(
    dependant: Dependant,
    request: Request,
    path_params: dict[str, Any],
    overrides: dict[Callable[..., Any], Callable[..., Any]],
) -> dict[str, Any] | None:
    """The keyword arguments FastAPI would pass, or None when it would need more than
    path parameters, headers and request-only dependencies."""
    if dependant.query_params or dependant.cookie_params or dependant.body_params:
        return None
    arguments: dict[str, Any] = {}
    for field in dependant.path_params:
        if field.alias not in path_params:
            return None
        arguments[field.name] = path_params[field.alias]
    for field in dependant.header_params:
        convert = getattr(field.field_info, "convert_underscores", True)
        name = field.alias.replace("_", "-") if convert else field.alias
        arguments[field.name] = request.headers.get(name)
    for sub in dependant.dependencies:
        if sub.call is None or sub.request_param_name is None or _has_params(sub):
            return None
        if sub.name is None:
            return None
        value = overrides.get(sub.call, sub.call)(**{sub.request_param_name: request})
        if inspect.isawaitable(value):
            return None
        arguments[sub.name] = value
    return arguments


def _has_params(dependant: Dependant) -> bool:
    return bool(
        dependant.path_params
        or dependant.query_params
        or dependant.header_params
        or dependant.cookie_params
        or dependant.body_params
        or dependant.dependencies
    )


def _check_quota(engine: Any, workspace_id: str, needs: int) -> None:
    """Refuse a workspace that cannot afford even the smallest such request. The exact
    count (a 30-day calendar) is known from the body; the plan reserves it later."""
    with read_session(engine) as session:
        usage = get_usage(session, workspace_id)
        quota, used = usage.post_quota, usage.posts_used
    if quota is None:
        return
    left = max(0, quota - used)
    if left < needs:
        requested = f"at least {needs}" if needs > 1 else str(needs)
        raise QuotaExceeded(f"Post quota exceeded: {requested} requested, {left} left of {quota}")
