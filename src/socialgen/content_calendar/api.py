"""POST /api/v1/content-calendar/generate/{workspaceId} (SSE)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from starlette.responses import StreamingResponse

from socialgen.app.caller import Caller
from socialgen.content_calendar.body import CalendarBody, read_calendar_request
from socialgen.content_calendar.plan import prepare_calendar
from socialgen.content_calendar.service import run_calendar
from socialgen.http.body_models import documented_body
from socialgen.http.guard import WorkspaceAccess, WorkspaceGuard
from socialgen.http.request_body import body_cap
from socialgen.http.stream_endpoint import plan_and_stream
from socialgen.http.support import EngineDep, FilesDep, SettingsDep, TextModelDep, error_responses
from socialgen.kit.limits import CALENDAR_BODY

router = APIRouter(prefix="/api/v1/content-calendar", tags=["content calendar"])

CalendarCaller = Annotated[WorkspaceAccess, Depends(WorkspaceGuard(bearer_required=False))]


@router.post(
    "/generate/{workspaceId}",
    response_class=StreamingResponse,
    openapi_extra=documented_body(CalendarBody, takes_files=True),
    responses={
        200: {"content": {"text/event-stream": {}}, "description": "Server-Sent Events"},
        **error_responses(400, 401, 403, 404),
    },
    dependencies=[body_cap(CALENDAR_BODY)],
)
async def generate_calendar(
    access: CalendarCaller,
    engine: EngineDep,
    model: TextModelDep,
    settings: SettingsDep,
    files: FilesDep,
    request: Request,
) -> StreamingResponse:
    """7 or 30 days of drafts from a prompt, a video, article URLs and/or a PDF:
    generation_started, source_processing, calendar_progress, calendar_complete."""
    calendar_request = await read_calendar_request(request)
    caller = Caller(
        engine=engine,
        workspace_id=access.workspace_id,
        user_id=access.user_id,
        settings=settings,
        files=files,
    )
    return await plan_and_stream(
        prepare_calendar, caller, calendar_request, lambda plan: run_calendar(plan, model)
    )
