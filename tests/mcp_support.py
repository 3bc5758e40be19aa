"""Driving socialgen's MCP server with the SDK's own client (PyPI `mcp`): over stdio
(`socialgen mcp` in a process of its own) and over Streamable HTTP (`/mcp` on a real
socket). Each helper runs one async body with a ready, initialised ClientSession."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp_types import CallToolResult, TextContent

T = TypeVar("T")
SRC = str(Path(__file__).resolve().parents[1] / "src")


@asynccontextmanager
async def stdio_session(env: dict[str, str], *args: str) -> AsyncIterator[ClientSession]:
    """`python -m socialgen mcp ARGS` with `env` added to this environment."""
    environment = {**os.environ, **env}
    environment["PYTHONPATH"] = os.pathsep.join(
        part for part in (SRC, environment.get("PYTHONPATH", "")) if part
    )
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "socialgen", "mcp", *args], env=environment
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


@asynccontextmanager
async def http_session(base_url: str, headers: dict[str, str]) -> AsyncIterator[ClientSession]:
    async with (
        create_mcp_http_client(headers=headers) as http,
        streamable_http_client(f"{base_url}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


# A raw client's first message and the Accept header Streamable HTTP asks for (the
# tests and benches that speak MCP by hand).
INITIALIZE: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"},
    },
}
ACCEPT = {"accept": "application/json, text/event-stream"}


def run(body: Callable[[], Awaitable[T]]) -> T:
    return anyio.run(body)


def structured(result: CallToolResult) -> dict[str, Any]:
    assert not result.is_error, text_of(result)
    assert result.structured_content is not None
    return result.structured_content


def text_of(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))


def error_of(result: CallToolResult) -> str:
    assert result.is_error, f"expected a tool error, got {text_of(result)[:300]}"
    return text_of(result)


def loads(text: str) -> Any:
    return json.loads(text)
