"""Issue 40, item 2 on every face: the listings' filters and publishedAt through HTTP
(recent-posts, posts-timeline and the all-time /posts), the CLI (`posts list`,
`posts search`, the table's date) and MCP's search_posts. What the filters mean is
tests/test_posts_search.py's; here, that each face passes them on and refuses bad
ones in words."""

from __future__ import annotations

import json
from typing import Any

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from socialgen.cli.main import app
from socialgen.kit.clock import iso
from socialgen.store.tables import PostStatus
from tests.conftest import LiveServer, Store, days_ago, days_ahead
from tests.mcp_support import error_of, http_session, run, structured

BASE = "/api/v1/ai-conversation"
PUBLISHED = PostStatus.PUBLISHED


def history(store: Store) -> dict[str, Any]:
    """Two years of posts: old and recent published ones, a draft, a scheduled one."""
    return {
        "old": store.post("Shipping weekly for two years", status=PUBLISHED, when=days_ago(700)),
        "recent": store.post("Why we ship on Fridays", status=PUBLISHED, when=days_ago(5)),
        "draft": store.post("A shipping draft", when=days_ago(1)),
        "ahead": store.post("Ahead: gardening", status=PostStatus.SCHEDULED, when=days_ahead(2)),
    }


def test_the_http_listings_take_the_filters(client: TestClient, store: Store) -> None:
    posts = history(store)
    owner = {"x-api-key": store.api_key(), "Authorization": f"Bearer {store.token()}"}
    ws = store.workspace_id

    def texts(path: str, **query: Any) -> list[str]:
        answer = client.get(f"{BASE}/{path}/{ws}", headers=owner, params=query)
        assert answer.status_code == 200, answer.text
        return [post["postContent"] for post in answer.json()["data"]["posts"]]

    # SPEC.md's answers are unchanged without the new parameters: 90 days, no old post.
    assert posts["old"].content not in texts("recent-posts")
    assert texts("posts", search="ship") == [
        posts["draft"].content,
        posts["recent"].content,
        posts["old"].content,
    ]
    assert texts("posts", search="ship", status=["published"], until=iso(days_ago(30))) == [
        posts["old"].content
    ]
    assert texts("posts", status="draft,scheduled") == [posts["ahead"].content, "A shipping draft"]
    assert texts("recent-posts", since="2020-01-01", search="weekly") == [posts["old"].content]
    assert texts("posts-timeline", search="ship") == [posts["recent"].content]  # no drafts
    page = client.get(f"{BASE}/posts/{ws}", headers=owner, params={"limit": 1}).json()["data"]
    assert page["total"] == 4 and page["nextCursor"]
    old = client.get(f"{BASE}/posts/{ws}", headers=owner, params={"search": "weekly"}).json()
    assert old["data"]["posts"][0]["publishedAt"] == iso(posts["old"].published_at)

    refused = [
        ("posts", {"status": "posted"}, "status must be draft, scheduled or published"),
        ("recent-posts", {"since": "last week"}, "since is not an ISO 8601 date or time"),
        ("posts-timeline", {"search": "?!"}, "search text has no word to look for"),
        ("posts", {"search": "x" * 201}, "200"),
    ]
    for path, query, message in refused:
        answer = client.get(f"{BASE}/{path}/{ws}", headers=owner, params=query)
        assert answer.status_code == 400, (path, query, answer.text)
        body = answer.json()
        assert body["success"] is False and message in body["message"], body
    # Every post, drafts included: as recent-posts, a member's bearer token is required.
    no_bearer = client.get(f"{BASE}/posts/{ws}", headers={"x-api-key": owner["x-api-key"]})
    assert no_bearer.status_code == 401


def test_posts_list_and_search_on_the_command_line(store: Store) -> None:
    posts = history(store)
    runner = CliRunner()

    def ok(*args: str) -> Any:
        result = runner.invoke(app, list(args))
        assert result.exit_code == 0, result.output
        return result

    found = json.loads(ok("posts", "search", "ship", "--status", "published", "--json").stdout)
    assert [post["id"] for post in found["posts"]] == [posts["recent"].id, posts["old"].id]
    assert found["posts"][1]["publishedAt"] == iso(posts["old"].published_at)
    dated = json.loads(ok("posts", "list", "--until", iso(days_ago(30)), "--json").stdout)
    assert [post["id"] for post in dated["posts"]] == [posts["old"].id]
    # The table dates a published post by its publish time (piped: plain rows, ISO 8601
    # to the minute with the creator's offset).
    rows = ok("posts", "list", "--search", "weekly").stdout.strip().split("\t")
    assert rows[3][:16] == iso(posts["old"].published_at)[:16]
    assert rows[3][16:] == "+00:00"  # the machine's zone: no timezone setting here
    empty = ok("posts", "list", "--search", "nowhere", "--status", "draft")
    assert "no post matches" in empty.output

    for args, message in [
        (["posts", "list", "--status", "sent"], "status must be draft, scheduled or published"),
        (["posts", "search", "..."], "search text has no word to look for"),
        (["posts", "recent", "--since", "2026-31-01"], "since is not an ISO 8601 date"),
        (["posts", "list", "--since", "2026-02-01", "--until", "2026-01-01"], "until is before"),
    ]:
        result = runner.invoke(app, args)
        assert result.exit_code == 1, (args, result.output)
        assert message in result.output and "Traceback" not in result.output, result.output


def test_search_posts_over_mcp(live_server: LiveServer, store: Store) -> None:
    posts = history(store)
    headers = {"x-api-key": store.api_key(), "Authorization": f"Bearer {store.token()}"}

    async def body() -> tuple[Any, Any, Any, list[str]]:
        async with http_session(live_server.base_url, headers) as mcp:
            found = structured(
                await mcp.call_tool("search_posts", {"text": "ship", "status": ["published"]})
            )
            first = structured(await mcp.call_tool("search_posts", {"limit": 1}))
            rest = structured(
                await mcp.call_tool("search_posts", {"limit": 3, "cursor": first["nextCursor"]})
            )
            errors = [
                error_of(await mcp.call_tool("search_posts", args))
                for args in ({"text": "!!"}, {"since": "soon"}, {"status": ["sent"]})
            ]
            return found, first, rest, errors

    found, first, rest, errors = run(body)
    assert [post["id"] for post in found["posts"]] == [posts["recent"].id, posts["old"].id]
    assert found["posts"][1]["publishedAt"] == iso(posts["old"].published_at)
    assert first["total"] == 4 and len(first["posts"]) + len(rest["posts"]) == 4
    assert rest["nextCursor"] is None
    assert "search text has no word to look for" in errors[0]
    assert "since is not an ISO 8601 date or time" in errors[1]
    assert "status" in errors[2]
