"""The MCP server for AI assistants: `socialgen mcp` (stdio) and `/mcp` on `serve`."""

from socialgen.app.registration import Feature

FEATURE = Feature(
    name="mcp",
    order=80,
    routers=("socialgen.mcp_server.api:router",),
    commands=(("mcp", "socialgen.mcp_server.cli:mcp"),),
)
