"""The carousel's PDF as an MCP resource (the tool that makes it, create_carousel, is
the operation operations.py declares). Registered by this package's feature.py."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer

from socialgen.mcp_server.access import KEY, Face
from socialgen.mcp_server.resources import read_resource


def register(server: MCPServer[Any], face: Face) -> None:
    @server.resource(
        "socialgen://carousels/{carouselId}/pdf",
        name="carousel_pdf",
        title="A carousel's PDF",
        description="The PDF create_carousel rendered, one page per slide.",
        mime_type="application/pdf",
    )
    async def carousel_pdf(carouselId: str, context: Context[Any, Any]) -> bytes:
        def read() -> bytes:
            from socialgen.carousels.repository import load_carousel

            who = face.caller(context, None, KEY)
            record = load_carousel(who.engine, who.workspace_id, carouselId)
            return who.files.read(who.workspace_id, record.carousel.pdf_file)

        return await read_resource(read)
