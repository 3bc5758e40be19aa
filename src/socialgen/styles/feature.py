"""Writing styles learned from example posts."""

from socialgen.app.registration import Feature, Group

FEATURE = Feature(
    name="styles",
    order=20,
    routers=("socialgen.styles.api:router",),
    groups=(
        Group("style", "socialgen.styles.cli:app", "Writing styles learned from example posts."),
    ),
    # Its MCP tools (and resources, prompts): styles/mcp_tools.py.
    mcp=("socialgen.styles.mcp_tools:register",),
)
