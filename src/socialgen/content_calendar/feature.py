"""7 or 30 days of drafts from a prompt, a video, articles or a PDF."""

from socialgen.app.registration import Feature

FEATURE = Feature(
    name="content_calendar",
    order=5,
    commands=(("calendar", "socialgen.content_calendar.cli:calendar"),),
    streams="socialgen.content_calendar.streams:STREAMS",
    # Declared once (content_calendar/operations.py): a route, an MCP tool, a command.
    operations=("socialgen.content_calendar.operations:CREATE_CALENDAR",),
    # Its MCP prompt (week_plan): content_calendar/mcp_tools.py.
    mcp=("socialgen.content_calendar.mcp_tools:register",),
)
