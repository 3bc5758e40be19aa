"""HTTP endpoints for chat, generate-post and generate-batch-posts (SSE)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Body, Depends
from starlette.responses import StreamingResponse

from socialgen.app.caller import Caller
from socialgen.files.backends import files_of
from socialgen.generation.batch import run_batch
from socialgen.generation.chat import run_chat
from socialgen.generation.plan import prepare_batch, prepare_chat, prepare_post
from socialgen.generation.schemas import BatchRequest, ChatRequest, GeneratePostRequest
from socialgen.generation.single import run_generate_post
from socialgen.http.guard import WorkspaceAccess, WorkspaceGuard
from socialgen.http.request_body import body_cap
from socialgen.http.stream_endpoint import plan_and_stream
from socialgen.http.support import (
    EngineDep,
    RuntimeDep,
    SettingsDep,
    TextModelDep,
    error_responses,
)

if TYPE_CHECKING:
    from socialgen.app.runtime import Runtime
    from socialgen.config.loading import AppSettings

router = APIRouter(prefix="/api/v1/ai-conversation", tags=["generation"])

WorkspaceCaller = Annotated[WorkspaceAccess, Depends(WorkspaceGuard(bearer_required=False))]
# SPEC.md: generate-batch-posts answers a bad API key with 400, not 401.
BatchCaller = Annotated[
    WorkspaceAccess, Depends(WorkspaceGuard(bearer_required=False, key_error_status=400))
]

_SSE: dict[int | str, dict[str, Any]] = {
    200: {"content": {"text/event-stream": {}}, "description": "Server-Sent Events"}
}


def _caller(
    engine: EngineDep, access: WorkspaceAccess, settings: AppSettings, runtime: Runtime
) -> Caller:
    """The request's settings (its overrides applied) and the app Runtime's rankers."""
    return Caller(
        engine=engine,
        workspace_id=access.workspace_id,
        user_id=access.user_id,
        settings=settings,
        files=files_of(runtime),
        rankers=runtime.held.rankers,
    )


@router.post(
    "/chat/{workspaceId}",
    response_class=StreamingResponse,
    responses={**_SSE, **error_responses(400, 401, 403, 404)},
    dependencies=[body_cap()],
)
async def chat(
    access: WorkspaceCaller,
    engine: EngineDep,
    model: TextModelDep,
    settings: SettingsDep,
    runtime: RuntimeDep,
    body: Annotated[ChatRequest, Body()],
) -> StreamingResponse:
    """A general answer (chat_delta, chat_response) or, when asked for, a post
    (content_delta, post_ids)."""
    return await plan_and_stream(
        prepare_chat,
        _caller(engine, access, settings, runtime),
        body,
        lambda plan: run_chat(plan, model),
    )


@router.post(
    "/generate-post/{workspaceId}",
    response_class=StreamingResponse,
    responses={**_SSE, **error_responses(400, 401, 403, 404)},
    dependencies=[body_cap()],
)
async def generate_post(
    access: WorkspaceCaller,
    engine: EngineDep,
    model: TextModelDep,
    settings: SettingsDep,
    runtime: RuntimeDep,
    body: Annotated[GeneratePostRequest, Body()],
) -> StreamingResponse:
    """One post, streamed as chat_delta, saved as a draft, then post_ids."""
    return await plan_and_stream(
        prepare_post,
        _caller(engine, access, settings, runtime),
        body,
        lambda plan: run_generate_post(plan, model),
    )


@router.post(
    "/generate-batch-posts/{workspaceId}",
    response_class=StreamingResponse,
    responses={**_SSE, **error_responses(400, 401, 403, 404)},
    dependencies=[body_cap()],
)
async def generate_batch_posts(
    access: BatchCaller,
    engine: EngineDep,
    model: TextModelDep,
    settings: SettingsDep,
    runtime: RuntimeDep,
    body: Annotated[BatchRequest, Body()],
) -> StreamingResponse:
    """Five variations (or the listed drafts regenerated): batch_progress,
    post_{N}_post_ids, batch_complete, chat_delta."""
    return await plan_and_stream(
        prepare_batch,
        _caller(engine, access, settings, runtime),
        body,
        lambda plan: run_batch(plan, model),
    )
