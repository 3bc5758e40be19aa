"""The MCP tool that plans a content calendar (create_calendar), its HTTP endpoint's
plan and stream run as one call, and the prompt that plans a week with it
(week_plan). Registered by this package's feature.py."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic.json_schema import SkipJsonSchema

from socialgen.content_calendar.body import CalendarBody
from socialgen.content_calendar.events import CalendarComplete
from socialgen.content_calendar.plan import prepare_calendar
from socialgen.content_calendar.service import run_calendar
from socialgen.mcp_server.access import KEY, Face
from socialgen.mcp_server.inputs import InWorkspace
from socialgen.mcp_server.running import run_stream
from socialgen.mcp_server.tooling import WRITES, add_tool, in_thread

WEEK_PLAN = """Plan my LinkedIn posts for the coming week about: {topic}

1. Call create_calendar with calendarLength 7 and prompt "{topic}"{style}. It writes
   one draft a day from tomorrow; its result lists them with a suggested date each.
2. Read the drafts. Where one is weak, rewrite it with edit_post (at most 3000
   characters), or write it again with write_post (postId: the draft's id).
3. Show me the week: day, theme, the first line of each post. Ask before anything goes
   out.
4. When I agree, schedule each post at its suggested date with schedule_post; name the
   accounts from list_accounts in accountIds if I want them published automatically.
"""


class CreateCalendarInput(CalendarBody, InWorkspace):
    """content-calendar's JSON body: the same model reads it."""

    pdf: SkipJsonSchema[None] = None  # a form's file: no tool argument


def register(server: MCPServer[Any], face: Face) -> None:
    async def create_calendar(
        context: Context[Any, Any], request: CreateCalendarInput
    ) -> CalendarComplete:
        who = await in_thread(face.caller, context, request.workspaceId, KEY)
        model = await in_thread(face.runtime(context).text_model)
        return await run_stream(
            context,
            prepare_calendar,
            who,
            request.request(),
            lambda plan: run_calendar(plan, model),
            CalendarComplete,
        )

    add_tool(
        server, "create_calendar", CreateCalendarInput, create_calendar, CalendarComplete,
        WRITES,
        title="Plan a content calendar",
        description="7 or 30 days of drafts, one a day from tomorrow, from a prompt, a video "
        "(youtubeUrl) and/or articles (articleUrls). Reports progress per day.",
    )  # fmt: skip

    @server.prompt(
        name="week_plan",
        title="Plan a week of posts",
        description="A week of drafts on a topic, reviewed with you, then scheduled.",
    )
    def week_plan(topic: str, contentStyleId: str | None = None) -> str:
        style = f' and contentStyleId "{contentStyleId}"' if contentStyleId else ""
        return WEEK_PLAN.format(topic=topic.strip(), style=style)
