"""Issue 27: `socialgen mcp` over stdio, a process of its own driven by the SDK's own
client, as Claude Desktop or Cursor start it. The process cannot take the in-process
scripted model, so its provider is the fake OpenAI server (through the environment,
as a user configures one); test_mcp_http.py drives the same tools on the scripted
model over HTTP."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from sqlmodel import select

from socialgen.store.engine import read_session
from socialgen.store.tables import Post
from socialgen.workspaces.service import get_usage
from tests.conftest import Store
from tests.fakes.openai_server import FakeOpenAI, Reply, wants_json
from tests.mcp_support import error_of, run, stdio_session, structured
from tests.scripted_support import POST_TEXT, QUESTIONS


def answers(body: dict[str, Any]) -> Reply:
    """Questions when asked for JSON, the post otherwise."""
    if wants_json(body):
        return Reply(text=json.dumps({"questions": QUESTIONS}))
    return Reply(text=POST_TEXT)


@pytest.fixture
def provider() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(responder=answers) as fake:
        yield fake


def test_write_then_read_edit_and_delete_over_stdio(store: Store, provider: FakeOpenAI) -> None:
    other = store.workspace("Side project")
    reports: list[tuple[float, float | None]] = []

    async def progress(done: float, total: float | None, _message: str | None) -> None:
        reports.append((done, total))

    async def body() -> dict[str, Any]:
        async with stdio_session(provider.env()) as mcp:
            tools = {tool.name for tool in (await mcp.list_tools()).tools}
            written = structured(await mcp.call_tool("write_post", {"userInput": "Ship weekly"}))
            post_id = written["postId"]
            listed = structured(await mcp.call_tool("list_posts", {"view": "recent"}))
            long = error_of(
                await mcp.call_tool("edit_post", {"postId": post_id, "content": "y" * 3001})
            )
            missing = error_of(await mcp.call_tool("get_post", {"postId": "nope"}))
            edited = structured(
                await mcp.call_tool("edit_post", {"postId": post_id, "content": "Shorter."})
            )
            batch = structured(
                await mcp.call_tool(
                    "write_batch",
                    {"userInput": "Side project news", "workspaceId": "Side project"},
                    progress_callback=progress,
                )
            )
            deleted = structured(await mcp.call_tool("delete_post", {"postId": post_id}))
            prompt = await mcp.get_prompt("week_plan", {"topic": "remote work"})
            return {
                "tools": tools,
                "written": written,
                "listed": listed,
                "errors": (long, missing),
                "edited": edited,
                "batch": batch,
                "deleted": deleted,
                "prompt": prompt,
            }

    seen = run(body)
    assert {"write_post", "delete_post", "publish_post", "list_accounts"} <= seen["tools"]
    assert seen["written"]["content"] == POST_TEXT
    assert seen["written"]["refinementQuestions"] == QUESTIONS
    assert [post["id"] for post in seen["listed"]["posts"]] == [seen["written"]["postId"]]
    assert "character limit of 3000 characters" in seen["errors"][0]
    assert "Post not found" in seen["errors"][1]
    assert seen["edited"]["content"] == "Shorter."
    # workspaceId by name, as --workspace takes it: the batch went there.
    assert seen["batch"]["summary"]["generated"] == 5
    assert reports[-1] == (5, 5)
    assert seen["deleted"]["deletedPostId"] == seen["written"]["postId"]
    assert "create_calendar" in seen["prompt"].messages[0].content.text
    with read_session(store.engine) as session:
        assert session.get(Post, seen["written"]["postId"]) is None
        left = session.exec(select(Post)).all()
        assert {post.workspace_id for post in left} == {other}
        assert get_usage(session, other).posts_used == 5


def test_help_never_imports_the_sdk() -> None:
    """`socialgen --help` lists `mcp` but loads neither the SDK nor the server."""
    code = (
        "import sys\n"
        "from socialgen.cli.main import app\n"
        "try:\n"
        "    app(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'mcp_types')\n"
        "    or m.startswith('socialgen.mcp_server.') and not m.endswith(('.feature', '.cli'))))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "  mcp " in done.stdout  # the command is listed
    assert done.stdout.strip().splitlines()[-1] == "[]"
