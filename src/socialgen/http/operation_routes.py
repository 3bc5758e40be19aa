"""A streamed operation's POST route, made from its declaration (app/operations.py).

The route is the one shape of every streaming endpoint: the workspace guard, the
models (after the guard: a misconfigured model does not answer before auth does),
the body (a JSON model FastAPI reads, or the operation's own reader of a form), then
plan and stream (stream_endpoint.plan_and_stream). The endpoint's signature is built
from the declaration, so FastAPI documents and solves it as a hand-written one.
"""

from __future__ import annotations

import inspect
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import StreamingResponse

from socialgen.app.caller import Caller
from socialgen.app.operations import Resources, StreamedOperation
from socialgen.files.backends import files_of
from socialgen.http.body_models import documented_body
from socialgen.http.guard import WorkspaceAccess, WorkspaceGuard
from socialgen.http.request_body import body_cap
from socialgen.http.stream_endpoint import plan_and_stream
from socialgen.http.support import (
    EngineDep,
    ImageModelDep,
    RuntimeDep,
    TextModelDep,
    error_responses,
)
from socialgen.kit.limits import JSON_BODY

_KEYWORD = inspect.Parameter.KEYWORD_ONLY


def operation_router(operation: StreamedOperation[Any, Any, Any]) -> APIRouter:
    """A router holding the operation's route (included as a feature's routers are)."""
    http = operation.http
    guard = WorkspaceGuard(bearer_required=False, key_error_status=http.key_error_status)

    async def endpoint(**values: Any) -> StreamingResponse:
        access: WorkspaceAccess = values["access"]
        runtime = values["runtime"]
        # The file store is made at its first use (a bucket's client): off the loop.
        files = await run_in_threadpool(files_of, runtime)
        caller = Caller(
            engine=values["engine"],
            workspace_id=access.workspace_id,
            user_id=access.user_id,
            settings=runtime.settings,
            files=files,
            rankers=runtime.held.rankers,
        )
        read = http.read
        request = await read(values["request"], runtime) if read is not None else values["body"]
        text, images = values["text"], values.get("images")
        resources = Resources(
            text=lambda: text,
            images=(lambda: images) if images is not None else runtime.image_model,
            cleanups=runtime.held.cleanups,
        )
        return await plan_and_stream(
            operation.prepare,
            caller,
            request,
            lambda plan: operation.run(plan, resources),
            typed=http.typed,
        )

    parameters = [
        inspect.Parameter(
            "access", _KEYWORD, annotation=Annotated[WorkspaceAccess, Depends(guard)]
        ),
        inspect.Parameter("engine", _KEYWORD, annotation=EngineDep),
        inspect.Parameter("text", _KEYWORD, annotation=TextModelDep),
    ]
    if operation.uses_images:
        parameters.append(inspect.Parameter("images", _KEYWORD, annotation=ImageModelDep))
    parameters.append(inspect.Parameter("runtime", _KEYWORD, annotation=RuntimeDep))
    if http.read is not None:
        parameters.append(inspect.Parameter("request", _KEYWORD, annotation=Request))
    else:
        parameters.append(
            inspect.Parameter("body", _KEYWORD, annotation=Annotated[http.body, Body()])
        )
    endpoint.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        parameters, return_annotation=StreamingResponse
    )
    endpoint.__name__ = http.name  # the route's name, operationId and summary
    endpoint.__doc__ = http.doc

    documented = http.documented
    router = APIRouter(tags=[http.tag])
    router.add_api_route(
        http.path,
        endpoint,
        methods=["POST"],
        response_class=StreamingResponse,
        responses={
            200: {"content": {"text/event-stream": {}}, "description": http.stream_doc},
            **error_responses(*http.errors),
        },
        dependencies=[body_cap(http.cap or JSON_BODY)],
        openapi_extra=(
            documented_body(documented, takes_files=http.takes_files)
            if documented is not None
            else None
        ),
    )
    return router
