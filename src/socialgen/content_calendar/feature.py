"""7 or 30 days of drafts from a prompt, a video, articles or a PDF."""

from socialgen.app.registration import Feature

FEATURE = Feature(
    name="content_calendar",
    order=5,
    routers=("socialgen.content_calendar.api:router",),
    commands=(("calendar", "socialgen.content_calendar.cli:calendar"),),
    streams="socialgen.content_calendar.streams:STREAMS",
    # Its MCP tools (and resources, prompts): content_calendar/mcp_tools.py.
    mcp=("socialgen.content_calendar.mcp_tools:register",),
)
