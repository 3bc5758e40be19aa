"""The MCP prompt that plans a week with create_calendar (week_plan); the tool itself
is the operation declared in operations.py. Registered by this package's feature.py."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer

from socialgen.mcp_server.access import Face

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


def register(server: MCPServer[Any], face: Face) -> None:
    @server.prompt(
        name="week_plan",
        title="Plan a week of posts",
        description="A week of drafts on a topic, reviewed with you, then scheduled.",
    )
    def week_plan(topic: str, contentStyleId: str | None = None) -> str:
        style = f' and contentStyleId "{contentStyleId}"' if contentStyleId else ""
        return WEEK_PLAN.format(topic=topic.strip(), style=style)
