"""Issue 27: the MCP server at /mcp on `serve`, driven by the SDK's own client over a
real socket (the app on the scripted model). The stdio face: test_mcp_stdio.py."""

from __future__ import annotations

import time
from typing import Any

import anyio
import httpx
from sqlmodel import select

from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import Post, QuotaReservation
from socialgen.workspaces.service import get_usage, set_post_quota
from tests.conftest import LiveServer, Store
from tests.doubles.scripted_model import Streamed
from tests.mcp_support import ACCEPT, INITIALIZE, error_of, http_session, run, structured, text_of
from tests.scripted_support import POST_TEXT, ScriptedAI

TOOLS = {
    "write_post",
    "write_batch",
    "chat",
    "list_posts",
    "search_posts",
    "get_post",
    "edit_post",
    "delete_post",
    "schedule_post",
    "unschedule_post",
    "publish_post",
    "post_stats",
    "preview_post",
    "post_followups",
    "set_first_comment",
    "set_plug",
    "remove_followup",
    "queue_post",
    "list_queue",
    "set_queue_slots",
    "suggest_queue_slots",
    "move_queued_post",
    "remove_from_queue",
    "set_evergreen",
    "list_evergreen",
    "evergreen_candidates",
    "import_posts",
    "export_posts",
    "create_calendar",
    "create_carousel",
    "list_styles",
    "create_style",
    "add_style_posts",
    "list_accounts",
    "insights",
    "rank_drafts",
}
MCP_HEADERS = ACCEPT


def test_the_tools_their_schemas_and_annotations(ai_live_server: LiveServer, store: Store) -> None:
    async def body() -> Any:
        async with http_session(ai_live_server.base_url, {"x-api-key": store.api_key()}) as mcp:
            return (await mcp.list_tools()).tools

    tools = {tool.name: tool for tool in run(body)}
    assert set(tools) >= TOOLS
    destructive = {name for name, tool in tools.items() if tool.annotations.destructive_hint}
    # remove_followup drops the text the creator wrote for a first comment or a plug.
    assert destructive == {"delete_post", "publish_post", "remove_followup"}
    read_only = {name for name, tool in tools.items() if tool.annotations.read_only_hint}
    assert read_only == {
        "list_posts",
        "search_posts",
        "get_post",
        "export_posts",
        "post_stats",
        "preview_post",
        "list_evergreen",
        "evergreen_candidates",
        "list_styles",
        "list_accounts",
        "list_queue",
        "post_followups",
        "insights",
        "rank_drafts",
    }
    assert tools["edit_post"].annotations.idempotent_hint is True
    # SPEC.md's names, required as the HTTP bodies require them.
    write = tools["write_post"].input_schema
    assert {"userInput", "conversationId", "postId", "contentStyleId", "workspaceId"} <= set(
        write["properties"]
    )
    assert write["required"] == ["userInput"]
    assert tools["create_calendar"].input_schema["required"] == ["calendarLength"]
    assert "accountIds" in tools["publish_post"].input_schema["properties"]
    assert tools["edit_post"].input_schema["properties"]["content"]["maxLength"] == 3000
    assert all(tool.output_schema for tool in tools.values())


def test_write_post_on_the_scripted_model_then_read_it(
    ai_live_server: LiveServer, store: Store, scripted_ai: ScriptedAI
) -> None:
    async def body() -> Any:
        async with http_session(ai_live_server.base_url, {"x-api-key": store.api_key()}) as mcp:
            written = structured(
                await mcp.call_tool("write_post", {"userInput": "Why small teams ship weekly"})
            )
            shown = structured(await mcp.call_tool("get_post", {"postId": written["postId"]}))
            resource = await mcp.read_resource(f"socialgen://posts/{written['postId']}")
            return written, shown, resource

    written, shown, resource = run(body)
    assert written["content"] == POST_TEXT
    assert len(written["refinementQuestions"]) == 3
    assert shown["id"] == written["postId"] and shown["status"] == "draft"
    assert shown["postContent"] == POST_TEXT
    assert POST_TEXT.splitlines()[0] in resource.contents[0].text
    with read_session(store.engine) as session:
        saved = session.get(Post, written["postId"])
        assert saved is not None and saved.workspace_id == store.workspace_id
    assert len(scripted_ai.calls_for("post")) == 1


def test_no_key_or_a_bad_one_is_a_401(ai_live_server: LiveServer, store: Store) -> None:
    url = f"{ai_live_server.base_url}/mcp"
    missing = httpx.post(url, json=INITIALIZE, headers=MCP_HEADERS)
    assert missing.status_code == 401
    assert missing.json() == {
        "success": False,
        "message": "API key required: send it in the x-api-key header",
    }
    assert missing.headers["www-authenticate"].startswith("Bearer")
    wrong = httpx.post(url, json=INITIALIZE, headers={**MCP_HEADERS, "x-api-key": "sk-nope"})
    assert (wrong.status_code, wrong.json()["message"]) == (401, "Invalid API key")
    # A key bound to no workspace needs a user's bearer token, as every endpoint does.
    unbound = httpx.post(
        url, json=INITIALIZE, headers={**MCP_HEADERS, "x-api-key": store.api_key(None)}
    )
    assert unbound.status_code == 401
    bad_token = httpx.post(
        url,
        json=INITIALIZE,
        headers={**MCP_HEADERS, "x-api-key": store.api_key(), "authorization": "Bearer nope"},
    )
    assert bad_token.status_code == 401


def test_a_key_of_one_workspace_reads_and_changes_nothing_of_another(
    ai_live_server: LiveServer, store: Store, scripted_ai: ScriptedAI
) -> None:
    other = store.workspace("Theirs")
    theirs = store.post("Their draft", workspace_id=other)
    headers = {"x-api-key": store.api_key(), "authorization": f"Bearer {store.token()}"}

    async def body() -> list[str]:
        async with http_session(ai_live_server.base_url, headers) as mcp:
            calls: list[tuple[str, dict[str, Any]]] = [
                ("get_post", {"postId": theirs.id}),  # in the key's workspace: not there
                ("get_post", {"postId": theirs.id, "workspaceId": other}),
                ("list_posts", {"view": "timeline", "workspaceId": other}),
                ("list_posts", {"view": "recent", "workspaceId": other}),
                ("edit_post", {"postId": theirs.id, "content": "Mine", "workspaceId": other}),
                ("delete_post", {"postId": theirs.id, "workspaceId": other}),
                ("delete_post", {"postId": theirs.id}),
                ("schedule_post", {"postId": theirs.id, "at": "2031-01-01T09:00:00Z"}),
                ("write_post", {"userInput": "Hello", "workspaceId": other}),
                ("list_styles", {"workspaceId": other}),
                ("list_accounts", {"workspaceId": other}),
            ]
            return [error_of(await mcp.call_tool(name, arguments)) for name, arguments in calls]

    errors = run(body)
    assert all(
        "Post not found" in error
        or "Not authorized to access this workspace" in error
        or "Access denied" in error
        for error in errors
    ), errors
    assert "Post not found" in errors[0]
    with read_session(store.engine) as session:
        kept = session.get(Post, theirs.id)
        assert kept is not None and kept.content == "Their draft" and kept.status == "draft"
        assert get_usage(session, other).posts_used == 0
    assert scripted_ai.calls == []


def test_bad_arguments_are_tool_errors_with_the_services_words(
    ai_live_server: LiveServer, store: Store
) -> None:
    post = store.post("A draft")
    published = store.post("Out there", status="published")
    headers = {"x-api-key": store.api_key(), "authorization": f"Bearer {store.token()}"}

    async def body() -> tuple[list[str], str]:
        async with http_session(ai_live_server.base_url, headers) as mcp:
            calls: list[tuple[str, dict[str, Any]]] = [
                ("edit_post", {"postId": post.id, "content": "x" * 3001}),
                ("edit_post", {"postId": "no-such-post", "content": "Hello"}),
                ("edit_post", {"postId": published.id, "content": "Hello"}),
                ("delete_post", {"postId": published.id}),
                ("write_post", {}),
                ("write_post", {"userInput": "   "}),
                ("list_posts", {"limit": 0}),
                ("schedule_post", {"postId": post.id, "at": "next tuesday"}),
                ("create_calendar", {"calendarLength": 7}),
                ("no_such_tool", {}),
                ("write_post", {"userInput": "Ship\x00weekly"}),
                # OSC 52 (write the terminal's clipboard): refused, as in every body
                ("edit_post", {"postId": post.id, "content": "Hi\x1b]52;c;aGk=\x07"}),
            ]
            errors = [error_of(await mcp.call_tool(name, args)) for name, args in calls]
            # The session goes on: the next call is answered as ever.
            listed = structured(await mcp.call_tool("list_posts", {}))
            return errors, listed["posts"][0]["id"]

    errors, first = run(body)
    assert errors[0].endswith("Content exceeds the character limit of 3000 characters (3001 given)")
    assert "Post not found" in errors[1]
    assert "only draft and scheduled posts" in errors[2].lower() or "cannot be edited" in errors[2]
    assert "social network" in errors[3]
    assert "userInput" in errors[4]
    assert "userInput is required" in errors[5]
    assert "limit" in errors[6]
    assert "Not an ISO 8601 time" in errors[7] and '"best"' in errors[7]
    assert "Give at least one source" in errors[8]
    assert "no_such_tool" in errors[9]
    assert "userInput" in errors[10] and "NUL" in errors[10]
    assert errors[11].endswith(
        "content contains a control character (U+001B) at character 3: "
        "only tab and line breaks may be used"
    )
    assert first in {post.id, published.id}
    with read_session(store.engine) as session:
        assert session.get(Post, post.id).content == "A draft"  # type: ignore[union-attr]


def test_a_batch_reports_progress(ai_live_server: LiveServer, store: Store) -> None:
    reports: list[tuple[float, float | None, str | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        reports.append((done, total, message))

    async def body() -> dict[str, Any]:
        async with http_session(ai_live_server.base_url, {"x-api-key": store.api_key()}) as mcp:
            result = await mcp.call_tool(
                "write_batch", {"userInput": "Shipping weekly"}, progress_callback=progress
            )
            return structured(result)

    batch = run(body)
    assert batch["summary"] == {"total": 5, "generated": 5, "failed": 0}
    assert len(batch["posts"]) == 5
    assert len(reports) == 10  # before and after each post
    assert reports[-1][:2] == (5, 5)
    assert [done for done, _, _ in reports] == sorted(done for done, _, _ in reports)
    assert any("Story-driven" in (message or "") for _, _, message in reports)


def test_a_cancelled_batch_gives_its_quota_back(
    ai_live_server: LiveServer, store: Store, scripted_ai: ScriptedAI
) -> None:
    with transaction(store.engine) as session:
        set_post_quota(session, store.workspace_id, 10)
    scripted_ai.post_reply = lambda _call: Streamed(POST_TEXT, first_delay=30)
    reserved_seen: list[int] = []

    async def body() -> None:
        async with http_session(ai_live_server.base_url, {"x-api-key": store.api_key()}) as mcp:
            started = anyio.Event()

            async def progress(done: float, total: float | None, message: str | None) -> None:
                started.set()

            async with anyio.create_task_group() as group:
                scope = anyio.CancelScope()

                async def call() -> None:
                    with scope:
                        await mcp.call_tool(
                            "write_batch", {"userInput": "Shipping"}, progress_callback=progress
                        )

                group.start_soon(call)
                with anyio.fail_after(20):
                    await started.wait()
                reserved_seen.append(_used(store))
                scope.cancel()
            # The server keeps answering on the same session.
            assert not (await mcp.call_tool("list_styles", {})).is_error

    run(body)
    assert reserved_seen == [5]  # the batch held five posts of the quota
    deadline = time.monotonic() + 10
    while (_used(store), _reservations(store)) != (0, 0):
        assert time.monotonic() < deadline, (_used(store), _reservations(store))
        time.sleep(0.05)
    with read_session(store.engine) as session:
        assert session.exec(select(Post)).all() == []


def _used(store: Store) -> int:
    with read_session(store.engine) as session:
        return get_usage(session, store.workspace_id).posts_used


def _reservations(store: Store) -> int:
    with read_session(store.engine) as session:
        return len(session.exec(select(QuotaReservation)).all())


def test_an_unknown_post_resource_says_so(ai_live_server: LiveServer, store: Store) -> None:
    async def body() -> str:
        async with http_session(ai_live_server.base_url, {"x-api-key": store.api_key()}) as mcp:
            try:
                await mcp.read_resource("socialgen://posts/nope")
            except Exception as error:  # the SDK's McpError
                message = str(error)
            else:
                raise AssertionError("read an unknown post")
            assert not (await mcp.call_tool("list_styles", {})).is_error
            return message

    assert "Post not found" in run(body)
    assert text_of  # imported for the helpers' sake


def test_no_quota_left_is_the_tools_error(
    ai_live_server: LiveServer, store: Store, scripted_ai: ScriptedAI
) -> None:
    with transaction(store.engine) as session:
        set_post_quota(session, store.workspace_id, 3)

    async def body() -> str:
        async with http_session(ai_live_server.base_url, {"x-api-key": store.api_key()}) as mcp:
            return error_of(await mcp.call_tool("write_batch", {"userInput": "Five of them"}))

    assert "Post quota exceeded: 5 requested, 3 left of 3" in run(body)
    assert scripted_ai.calls == [] and _used(store) == 0 and _reservations(store) == 0


def test_a_session_answers_only_the_credentials_that_opened_it(
    ai_live_server: LiveServer, store: Store
) -> None:
    url = f"{ai_live_server.base_url}/mcp"
    mine = store.api_key()
    opened = httpx.post(url, json=INITIALIZE, headers={**MCP_HEADERS, "x-api-key": mine})
    assert opened.status_code == 200
    session = {**MCP_HEADERS, "mcp-session-id": opened.headers["mcp-session-id"]}
    listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
    # Another valid key of the same workspace: as if the session did not exist.
    other = httpx.post(url, json=listing, headers={**session, "x-api-key": store.api_key()})
    assert other.status_code == 404
    ready = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert httpx.post(url, json=ready, headers={**session, "x-api-key": mine}).status_code == 202
    again = httpx.post(url, json=listing, headers={**session, "x-api-key": mine})
    assert again.status_code == 200 and "write_post" in again.text


def test_a_key_bound_to_no_workspace_names_one_and_acts_as_the_tokens_user(
    ai_live_server: LiveServer, store: Store
) -> None:
    other = store.workspace("Not theirs")
    outsider_email = "eve@example.com"
    store.user(outsider_email, workspace_id=other)
    mine = store.post("In the default workspace")
    owner = {"x-api-key": store.api_key(None), "authorization": f"Bearer {store.token()}"}
    eve = {
        "x-api-key": store.api_key(None),
        "authorization": f"Bearer {store.token(outsider_email)}",
    }

    async def calls(headers: dict[str, str], arguments: dict[str, Any]) -> Any:
        async with http_session(ai_live_server.base_url, headers) as mcp:
            return await mcp.call_tool("get_post", arguments)

    assert "workspaceId is required" in error_of(run(lambda: calls(owner, {"postId": mine.id})))
    here = {"postId": mine.id, "workspaceId": store.workspace_id}
    assert structured(run(lambda: calls(owner, here)))["id"] == mine.id
    # A member of another workspace only: this one is not theirs.
    refused = error_of(run(lambda: calls(eve, here)))
    assert "Not authorized to access this workspace" in refused


def test_an_oversized_message_is_refused_by_the_body_cap(
    ai_live_server: LiveServer, store: Store
) -> None:
    """/mcp is behind body_gate as every endpoint: a JSON body over 256 KB is a 413
    before it is read, and the session goes on."""
    url = f"{ai_live_server.base_url}/mcp"
    headers = {**MCP_HEADERS, "x-api-key": store.api_key()}
    opened = httpx.post(url, json=INITIALIZE, headers=headers)
    session = {**headers, "mcp-session-id": opened.headers["mcp-session-id"]}
    ready = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    httpx.post(url, json=ready, headers=session).raise_for_status()
    arguments = {"name": "x" * 300_000}
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {}}
    call["params"] = {"name": "create_style", "arguments": arguments}
    refused = httpx.post(url, json=call, headers=session)
    assert (refused.status_code, refused.json()["message"]) == (
        413,
        "The JSON body is larger than 256 KB",
    )
    listing = {"jsonrpc": "2.0", "id": 3, "method": "tools/list"}
    assert httpx.post(url, json=listing, headers=session).status_code == 200
