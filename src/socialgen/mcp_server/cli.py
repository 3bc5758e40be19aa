"""`socialgen mcp`: the MCP server over stdio, for Claude Desktop, Claude Code, Cursor
and other assistants that start it themselves (docs/mcp.md).

stdout carries the protocol, so nothing else may be printed there: notes and logs go
to stderr. The transport is socialgen's (stdio.py): it answers a line it cannot read
and caps a line's size, where the SDK's drops the one and reads the other whole. The
SDK is imported when the command runs, never by `socialgen --help`.
"""

from __future__ import annotations

from socialgen.cli.support import WorkspaceOpt


def mcp(workspace: WorkspaceOpt = None) -> None:
    """Serve the MCP tools over stdio (for AI assistants; see docs/mcp.md)."""
    import anyio

    from socialgen.cli.support import current_runtime, open_workspace
    from socialgen.mcp_server.access import LocalFace
    from socialgen.mcp_server.build import build_server
    from socialgen.mcp_server.stdio import serve_stdio

    engine, workspace_id = open_workspace(workspace)
    runtime = current_runtime()
    server = build_server(LocalFace(runtime, engine, workspace_id), runtime.features)
    anyio.run(serve_stdio, server)
