"""The content calendar, declared once: served by the API (POST
/api/v1/content-calendar/generate/{workspaceId}, SSE), MCP (create_calendar) and the
command line (cli.py)."""

from __future__ import annotations

from typing import Any

from pydantic.json_schema import SkipJsonSchema

from socialgen.app.operations import AsTool, OverHttp, StreamedOperation
from socialgen.content_calendar.body import CalendarBody, read_calendar_request
from socialgen.content_calendar.events import CalendarComplete
from socialgen.content_calendar.plan import prepare_calendar
from socialgen.content_calendar.schemas import CalendarRequest
from socialgen.content_calendar.service import run_calendar
from socialgen.kit.limits import CALENDAR_BODY
from socialgen.mcp_server.inputs import InWorkspace


class CreateCalendarInput(CalendarBody, InWorkspace):
    """content-calendar's JSON body: the same model reads it."""

    pdf: SkipJsonSchema[None] = None  # a form's file: no tool argument


async def _from_arguments(arguments: CreateCalendarInput, _runtime: Any) -> CalendarRequest:
    return arguments.request()


CREATE_CALENDAR = StreamedOperation(
    prepare=prepare_calendar,
    run=lambda plan, using: run_calendar(plan, using.text()),
    completed=(CalendarComplete,),
    http=OverHttp(
        name="generate_calendar",
        path="/api/v1/content-calendar/generate/{workspaceId}",
        tag="content calendar",
        doc="7 or 30 days of drafts from a prompt, a video, article URLs and/or a PDF: "
        "generation_started, source_processing, calendar_progress, calendar_complete.",
        read=lambda request, _runtime: read_calendar_request(request),
        documented=CalendarBody,
        takes_files=True,
        cap=CALENDAR_BODY,
    ),
    tool=AsTool(
        name="create_calendar",
        title="Plan a content calendar",
        description="7 or 30 days of drafts, one a day from tomorrow, from a prompt, a "
        "video (youtubeUrl) and/or articles (articleUrls). Reports progress per day.",
        arguments=CreateCalendarInput,
        result=CalendarComplete,
        request=_from_arguments,
    ),
)
