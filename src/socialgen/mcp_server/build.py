"""One MCP server: every feature's tools, resources and prompts, for one face (stdio
or HTTP). Each feature declares its own in its feature.py: its streamed operations
(`operations`: a tool each, from the declaration) and `mcp` ("module:register"
targets, each `register(server, face)`); this module names none of them."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer

from socialgen import __version__
from socialgen.app.features import features
from socialgen.app.registration import Feature, resolve
from socialgen.mcp_server.access import Face
from socialgen.mcp_server.operation_tools import add_operation_tool

INSTRUCTIONS = """socialgen writes, schedules and publishes LinkedIn-style posts.
Write with write_post (one), write_batch (five variations), create_calendar (a week or
a month) or create_carousel; find posts with list_posts (recent), search_posts (any age,
by text, status, dates) and get_post; change them with edit_post, schedule_post (at a
time, or "best"), unschedule_post, publish_post; bring history in with import_posts
and back it up with export_posts; learn what works with insights (findings, best times,
example posts; detail: true for every post's numbers). Drafts stay private until
published. Without workspaceId every tool works in the server's workspace."""


def build_server(face: Face, handed_in: tuple[Feature, ...] = ()) -> MCPServer[Any]:
    """The server with the tools of every feature found and of those `handed_in` (the
    Runtime's: a test's toy feature)."""
    server: MCPServer[Any] = MCPServer(
        "socialgen",
        title="socialgen",
        version=__version__,
        instructions=INSTRUCTIONS,
        log_level="WARNING",
    )
    for feature in features(handed_in):
        for target in feature.operations:
            add_operation_tool(server, face, resolve(target))
        for target in feature.mcp:
            resolve(target)(server, face)
    return server
