"""One MCP server: every tool, resource and prompt, for one face (stdio or HTTP)."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer

from socialgen import __version__
from socialgen.mcp_server import (
    insight_tools,
    post_tools,
    resources,
    style_tools,
    writing_tools,
)
from socialgen.mcp_server.access import Face

INSTRUCTIONS = """socialgen writes, schedules and publishes LinkedIn-style posts.
Write with write_post (one), write_batch (five variations), create_calendar (a week or
a month) or create_carousel; find posts with list_posts and get_post; change them with
edit_post, schedule_post (at a time, or "best"), publish_post; learn what works
with insights. Drafts stay private until published. Without
workspaceId every tool works in the server's workspace."""


def build_server(face: Face) -> MCPServer[Any]:
    server: MCPServer[Any] = MCPServer(
        "socialgen",
        title="socialgen",
        version=__version__,
        instructions=INSTRUCTIONS,
        log_level="WARNING",
    )
    writing_tools.register(server, face)
    post_tools.register(server, face)
    style_tools.register(server, face)
    insight_tools.register(server, face)
    resources.register(server, face)
    return server
