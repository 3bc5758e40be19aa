"""Follow-ups: a post's first comment and its take-off reply (a plug), posted under it."""

from socialgen.app.registration import Feature

FEATURE = Feature(
    name="followups",
    order=73,  # after the outbox (71): they go under its publications
    routers=("socialgen.publishing.followups.api:router",),
    # posts first-comment, posts plug: added to the posts group.
    extends=(("posts", "socialgen.publishing.followups.cli:extend_posts_group"),),
    # Its MCP tools: publishing/followups/mcp_tools.py.
    mcp=("socialgen.publishing.followups.mcp_tools:register",),
)
