"""A streamed operation's MCP tool, made from its declaration (app/operations.py).

The tool is the operation's plan and stream run as one call (running.run_stream): the
caller of the tool's workspace, the models (built before the plan, in a worker
thread), the request made from the arguments, then the stream's last `completed`
event, shaped into the tool's result by the declaration's `answer`.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel

from socialgen.app.operations import Resources, StreamedOperation
from socialgen.mcp_server.access import KEY, Face
from socialgen.mcp_server.running import run_stream
from socialgen.mcp_server.tooling import WRITES, add_tool, in_thread


def add_operation_tool(
    server: MCPServer[Any], face: Face, operation: StreamedOperation[Any, Any, Any]
) -> None:
    tool = operation.tool

    async def call(context: Context[Any, Any], arguments: BaseModel) -> Any:
        who = await in_thread(face.caller, context, getattr(arguments, "workspaceId", None), KEY)
        runtime = face.runtime(context)
        text = await in_thread(runtime.text_model)
        images = await in_thread(runtime.image_model) if operation.uses_images else None
        resources = Resources(
            text=lambda: text,
            images=(lambda: images) if images is not None else runtime.image_model,
            cleanups=runtime.held.cleanups,
        )
        request = arguments if tool.request is None else await tool.request(arguments, runtime)
        done = await run_stream(
            context,
            operation.prepare,
            who,
            request,
            lambda plan: operation.run(plan, resources),
            operation.completed,
        )
        return done if tool.answer is None else await in_thread(tool.answer, done, who)

    add_tool(
        server,
        tool.name,
        tool.arguments,
        call,
        tool.result,
        WRITES,
        title=tool.title,
        description=tool.description,
    )
