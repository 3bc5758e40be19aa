"""Insights: what works in the creator's own published posts, and when to post."""

from socialgen.app.registration import Feature, Group

FEATURE = Feature(
    name="insights",
    order=75,
    routers=("socialgen.insights.api:router", "socialgen.insights.rank_api:router"),
    groups=(
        Group(
            "insights",
            "socialgen.insights.cli:app",
            "What works in your own published posts, and the best times to post.",
        ),
    ),
    extends=(("insights", "socialgen.insights.rank_cli:extend_insights_group"),),
    # Its MCP tools (and resources, prompts): insights/mcp_tools.py.
    mcp=("socialgen.insights.mcp_tools:register",),
)
