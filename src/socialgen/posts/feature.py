"""Posts and conversations: list, read, edit, schedule, export, delete."""

from socialgen.app.registration import Feature, Group

FEATURE = Feature(
    name="posts",
    order=10,
    routers=("socialgen.posts.api:router",),
    groups=(
        Group("posts", "socialgen.posts.cli:app", "List, read, edit, schedule and delete posts."),
    ),
    commands=(("conversations", "socialgen.posts.cli:conversations"),),
    # Its MCP tools (and resources, prompts): posts/mcp_tools.py, mcp_transfer_tools.py.
    mcp=("socialgen.posts.mcp_tools:register", "socialgen.posts.mcp_transfer_tools:register"),
)
