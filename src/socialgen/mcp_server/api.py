"""`/mcp` on `socialgen serve`: the MCP server over Streamable HTTP.

Every request to /mcp carries the API key as every endpoint does (`x-api-key`,
plus `Authorization: Bearer` for a user); without a valid one the answer is a 401
in SPEC.md's error shape, before the SDK sees the request. Each tool call is then
checked as its HTTP endpoint is (access.Need, through auth.api.WorkspaceGuard), with
that request's headers: a key of one workspace reads and changes nothing of another.
An MCP session belongs to the credentials that opened it (the SDK answers 404 to
anyone else), and each caller keeps at most `mcp_sessions_per_caller` of them open
(session_gate.py), idle ones closed after `mcp_session_idle`: one key cannot fill
the SDK's server-wide cap and lock the other workspaces out.

The SDK (a second of imports) is loaded at the first request to /mcp, not when the
app starts: `create_app` in every test and `serve`'s start stay as fast as before.
Its session manager then runs in the task group this router's lifespan keeps open
for the app's life (the SDK's rule: one manager per app, run once).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio
from anyio.abc import TaskGroup, TaskStatus
from fastapi import APIRouter
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from socialgen.app.caller import Caller
from socialgen.auth.secrets import hash_secret
from socialgen.files.backends import files_of
from socialgen.http.guard import WorkspaceGuard, authenticated_user
from socialgen.kit.errors import BadRequest, NotAuthenticated, SocialgenError
from socialgen.mcp_server.access import Need
from socialgen.mcp_server.session_gate import SessionGate, TooManySessions
from socialgen.mcp_server.sessions import Credential, SessionBook
from socialgen.store.engine import read_session

if TYPE_CHECKING:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from sqlalchemy import Engine

    from socialgen.app.registration import Feature
    from socialgen.app.runtime import Runtime

PATH = "/mcp"
UNBOUND_KEY = "workspaceId is required: this API key is not bound to a workspace"


@asynccontextmanager
async def _lifespan(app: Any) -> AsyncIterator[None]:
    async with anyio.create_task_group() as group:
        app.state.mcp = McpHost(group, app.state.runtime)
        try:
            yield
        finally:
            group.cancel_scope.cancel()


class McpHost:
    """The app's MCP server and its session manager, made at first use."""

    def __init__(self, group: TaskGroup, runtime: Runtime) -> None:
        self.group = group
        self.runtime = runtime
        self.lock = anyio.Lock()
        self.session_manager: StreamableHTTPSessionManager | None = None
        settings = runtime.settings
        self.idle_seconds = settings.mcp_session_idle.total_seconds()
        self.gate = SessionGate(SessionBook(settings.mcp_sessions_per_caller, self.idle_seconds))

    async def manager(self) -> StreamableHTTPSessionManager:
        async with self.lock:
            if self.session_manager is None:
                manager = await run_in_threadpool(
                    _make_manager, self.runtime.features, self.idle_seconds
                )  # the imports: off the loop
                await self.group.start(_keep_running, manager)
                self.session_manager = manager
            return self.session_manager


def _make_manager(
    handed_in: tuple[Feature, ...], idle_seconds: float
) -> StreamableHTTPSessionManager:
    from mcp.server.transport_security import TransportSecuritySettings

    from socialgen.mcp_server.build import build_server

    server = build_server(HttpFace(), handed_in)
    # No DNS-rebinding check on the Host header: `serve` answers on any interface and
    # behind proxies, and a rebound page cannot send the API key every request needs.
    server.streamable_http_app(
        streamable_http_path=PATH,
        transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        # The SDK closes a session idle this long; the gate's book forgets it then too.
        # Its server-wide cap (10,000) stays: the per-caller cap is the gate's.
        session_idle_timeout=idle_seconds,
    )
    return server.session_manager


async def _keep_running(
    manager: StreamableHTTPSessionManager, *, task_status: TaskStatus[None]
) -> None:
    async with manager.run():
        task_status.started()
        await anyio.sleep_forever()


class McpEndpoint:
    """The ASGI app at /mcp: the key first, then the SDK's transport."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        app = scope["app"]
        host: McpHost | None = getattr(app.state, "mcp", None)
        if host is None:  # an app whose lifespan did not run
            await _error(503, "MCP is not running on this server")(scope, receive, send)
            return
        try:
            scope["user"] = await run_in_threadpool(
                _principal, app.state.engine, Headers(scope=scope)
            )
        except SocialgenError as error:
            await _error(error.status_code, error.message)(scope, receive, send)
            return
        manager = await host.manager()
        try:
            await host.gate.handle(manager, _credential(scope["user"]), scope, receive, send)
        except TooManySessions as error:  # raised before anything was sent
            await _error(error.status_code, error.message)(scope, receive, send)


def _principal(engine: Engine, headers: Headers) -> Any:
    """The caller as the SDK keeps it with a session: the key (its hash, never the
    secret) and the user. Refuses a missing or bad key or token, as every endpoint."""
    from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
    from mcp.server.auth.provider import AccessToken

    key = headers.get("x-api-key")
    user = authenticated_user(engine, x_api_key=key, authorization=headers.get("authorization"))
    assert key is not None  # authenticated_user refuses a missing key
    principal = AccessToken(
        token="", client_id=hash_secret(key.strip()), scopes=[], subject=user.user_id
    )
    return AuthenticatedUser(principal)


def _credential(user: Any) -> Credential:
    """The caller a session is counted for: what the SDK binds it to (`_principal`)."""
    token = user.access_token
    return token.client_id, token.subject


def _error(status: int, message: str) -> JSONResponse:
    headers = {"WWW-Authenticate": 'Bearer realm="socialgen"'} if status == 401 else None
    return JSONResponse({"success": False, "message": message}, status, headers=headers)


router = APIRouter(lifespan=_lifespan)
router.routes.append(
    Route(PATH, endpoint=McpEndpoint(), methods=["GET", "POST", "DELETE"], include_in_schema=False)
)


class HttpFace:
    """Tools over HTTP: the app's Runtime and store, the request's credentials."""

    local_files = False  # a path would name the server's files: content only

    def runtime(self, context: Any) -> Runtime:
        runtime: Runtime = _request(context).app.state.runtime
        return runtime

    def caller(self, context: Any, workspace_ref: str | None, need: Need) -> Caller:
        request = _request(context)
        engine: Engine = request.app.state.engine
        key = request.headers.get("x-api-key")
        authorization = request.headers.get("authorization")
        workspace_id = (workspace_ref or "").strip()
        if not workspace_id:
            from socialgen.auth.service import authenticate_api_key

            with read_session(engine) as session:
                workspace_id = authenticate_api_key(session, key).workspace_id or ""
            if not workspace_id:
                raise BadRequest(UNBOUND_KEY)
        guard = WorkspaceGuard(bearer_required=need.bearer_required, roles=need.roles)
        if need.forbidden_message is not None:
            guard.forbidden_message = need.forbidden_message
        access = guard(engine, workspace_id, x_api_key=key, authorization=authorization)
        return Caller(
            engine=engine,
            workspace_id=access.workspace_id,
            user_id=access.user_id,
            settings=self.runtime(context).settings,
            files=files_of(self.runtime(context)),
            rankers=self.runtime(context).held.rankers,
        )


def _request(context: Any) -> Request:
    request = context.request_context.request
    if not isinstance(request, Request):
        raise NotAuthenticated("An MCP call over HTTP carries its request")
    return request
