"""Issue 40, item 6: the MCP tools an assistant was missing (import_posts, export_posts,
unschedule_post), `insights` small by default, and create_style's fromTop, which the tool
took and dropped. In-process through the SDK's own client (`mcp.Client(server)`) on
the stdio face (LocalFace, the real store), and over /mcp on a real socket where the
HTTP face decides (a path refused, the bearer token export needs)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any, TypeVar

from mcp import Client
from sqlmodel import select

from socialgen.insights.summary import EXAMPLE_POSTS
from socialgen.kit.clock import iso, utcnow
from socialgen.mcp_server.access import LocalFace
from socialgen.mcp_server.build import build_server
from socialgen.posts.mcp_transfer_tools import MAX_INLINE_BYTES
from socialgen.store.engine import read_session
from socialgen.store.tables import Post, PostStatus, Publication
from tests.conftest import LiveServer, Store, days_ahead
from tests.insights_support import put_history
from tests.insights_synthetic import synthetic_history
from tests.mcp_support import error_of, http_session, run, structured
from tests.outbox_support import add_account

T = TypeVar("T")
HEADER = ["content", "status", "date", "publishedAt", "likes", "reposts", "comments", "media"]


def local(store: Store, body: Callable[[Client], Awaitable[T]]) -> T:
    """`body` with a client of the stdio face's server, in this process."""
    server = build_server(
        LocalFace(store.runtime, store.engine, store.workspace_id), store.runtime.features
    )

    async def session() -> T:
        async with Client(server) as client:
            return await body(client)

    return run(session)


def history_csv(rows: list[list[str]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(HEADER)
    writer.writerows(rows)
    return out.getvalue()


def statuses(store: Store, workspace_id: str) -> list[str]:
    with read_session(store.engine) as session:
        found = session.exec(select(Post).where(Post.workspace_id == workspace_id)).all()
        return sorted(post.status for post in found)


def test_import_then_export_then_import_elsewhere(store: Store) -> None:
    """A file's text comes in (a draft, a scheduled post, two published with counts);
    the export's csv and json are backups another workspace imports whole."""
    later = iso(days_ahead(10))
    published = ["published", "", "2025-03-04T08:00:00Z"]
    text = history_csv(
        [
            ["An idea for later", "", "", "", "", "", "", ""],
            ["Going out next week", "scheduled", later or "", "", "", "", "", ""],
            ["Why do teams stall?", *published, "40", "2", "5", "true"],
            ["Ship small", "published", "", "2025-03-11T08:00:00Z", "12", "0", "1", "false"],
        ]
    )
    other = store.workspace("Backup")

    async def body(mcp: Client) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        seen["imported"] = structured(await mcp.call_tool("import_posts", {"content": text}))
        seen["again"] = structured(await mcp.call_tool("import_posts", {"content": text}))
        seen["json"] = structured(await mcp.call_tool("export_posts", {}))
        seen["csv"] = structured(
            await mcp.call_tool("export_posts", {"format": "csv", "status": ["published"]})
        )
        backup = json.dumps({"posts": seen["json"]["posts"]})
        seen["restored"] = structured(
            await mcp.call_tool(
                "import_posts", {"content": backup, "workspaceId": other, "ids": True}
            )
        )
        seen["restored_csv"] = structured(
            await mcp.call_tool(
                "import_posts", {"content": seen["csv"]["content"], "workspaceId": "Backup"}
            )
        )
        return seen

    seen = local(store, body)
    imported = seen["imported"]
    assert (imported["imported"], imported["scheduled"], imported["published"]) == (4, 1, 2)
    assert "postIds" not in imported  # only with ids: true
    # The same file again: its published posts are here already; the rest is new.
    assert seen["again"]["skipped"]["duplicates"] == 2 and seen["again"]["imported"] == 2
    exported = seen["json"]
    assert exported["exported"] == 6 and len(exported["posts"]) == 6
    assert "resource" not in exported and "content" not in exported
    counts = {post["content"]: post["likes"] for post in exported["posts"]}
    assert counts["Why do teams stall?"] == 40 and counts["Ship small"] == 12
    assert seen["csv"]["exported"] == 2 and "Why do teams stall?" in seen["csv"]["content"]
    restored = seen["restored"]
    assert restored["imported"] == 6 and len(restored["postIds"]) == 6
    assert restored["published"] == 2 and restored["scheduled"] == 2
    # The csv of the published posts, into that workspace again: its ids are there.
    assert seen["restored_csv"]["skipped"]["existing"] == 2
    assert seen["restored_csv"]["imported"] == 0
    kept = ["draft", "draft", "published", "published", "scheduled", "scheduled"]
    assert statuses(store, other) == kept


def test_a_bad_file_imports_nothing_and_each_refusal_says_why(store: Store, tmp_path: Path) -> None:
    bad = history_csv(
        [
            ["Fine", "", "", "", "", "", "", ""],
            ["Counted", "published", "", "2025-03-04T08:00:00Z", "many", "0", "0", ""],
        ]
    )
    on_disk = tmp_path / "history.csv"
    on_disk.write_text(history_csv([["From a file", "", "", "", "", "", "", ""]]))

    async def body(mcp: Client) -> dict[str, str]:
        def error(arguments: dict[str, Any]) -> Awaitable[Any]:
            return mcp.call_tool("import_posts", arguments)

        return {
            "bad": error_of(await error({"content": bad})),
            "large": error_of(await error({"content": "x" * (MAX_INLINE_BYTES + 1)})),
            "both": error_of(await error({"content": "content\nA", "path": str(on_disk)})),
            "relative": error_of(await error({"path": "history.csv"})),
            "neither": error_of(await error({})),
            "missing": error_of(await error({"path": str(tmp_path / "nope.csv")})),
            "path": str(structured(await error({"path": str(on_disk)}))["imported"]),
        }

    seen = local(store, body)
    assert "Nothing imported from content.csv (1 invalid row): row 3:" in seen["bad"]
    assert "more than the 256 kB a tool call carries" in seen["large"]
    assert "its path" in seen["large"]  # stdio: a path is the way for a large file
    assert "Give the file's content or its path, not both" in seen["both"]
    assert "path must be absolute (got history.csv)" in seen["relative"]
    assert "Give the file's text as content or its absolute path as path" in seen["neither"]
    assert "nope.csv" in seen["missing"]
    assert seen["path"] == "1"
    assert statuses(store, store.workspace_id) == ["draft"]  # the file's one post only


def test_a_large_export_is_a_resource(store: Store, tmp_path: Path) -> None:
    """120 posts of 2,500 characters (a 300 KB export): answered as a resource URI,
    whose read is the whole export; the import came through a path (stdio)."""
    body_text = "word " * 500
    rows = [[f"Post {n}: {body_text}", "", "", "", "", "", "", ""] for n in range(120)]
    big = tmp_path / "big.csv"
    big.write_text(history_csv(rows))

    async def body(mcp: Client) -> tuple[dict[str, Any], dict[str, Any], str, str]:
        imported = structured(await mcp.call_tool("import_posts", {"path": str(big)}))
        exported = structured(await mcp.call_tool("export_posts", {"status": ["draft"]}))
        read = await mcp.read_resource(exported["resource"])
        (contents,) = read.contents
        wrong = "socialgen://exports/drafts/posts.json"
        refused = ""
        try:
            await mcp.read_resource(wrong)
        except Exception as error:  # the SDK raises the resource's error
            refused = str(error)
        return imported, exported, getattr(contents, "text", ""), refused

    imported, exported, text, refused = local(store, body)
    assert imported["imported"] == 120
    assert exported["resource"] == "socialgen://exports/draft/posts.json"
    assert exported["bytes"] > MAX_INLINE_BYTES and "posts" not in exported
    assert len(json.loads(text)["posts"]) == 120
    assert "Unknown statuses in the URI: drafts" in refused


def test_unschedule_drops_the_queued_publications(store: Store) -> None:
    account_id = add_account(store, "ada.example.social")
    post = store.post("For next week")

    async def body(mcp: Client) -> tuple[dict[str, Any], str]:
        at = iso(utcnow() + timedelta(days=3))
        arguments = {"postId": post.id, "at": at, "accountIds": [account_id]}
        structured(await mcp.call_tool("schedule_post", arguments))
        done = structured(await mcp.call_tool("unschedule_post", {"postId": post.id}))
        again = error_of(await mcp.call_tool("unschedule_post", {"postId": post.id}))
        return done, again

    done, again = local(store, body)
    assert done == {"postId": post.id, "status": "draft", "droppedPublications": 1}
    assert "Only scheduled posts can be unscheduled (this post is draft)" in again
    with read_session(store.engine) as session:
        assert session.get(Post, post.id).status == PostStatus.DRAFT  # type: ignore[union-attr]
        left = session.exec(select(Publication).where(Publication.post_id == post.id)).all()
        assert left == []


def test_insights_is_small_unless_detail_is_asked(store: Store) -> None:
    ids = put_history(store.engine, store.workspace_id, synthetic_history(120, seed=4))

    async def body(mcp: Client) -> tuple[Any, Any]:
        small = await mcp.call_tool("insights", {"tz": "UTC"})
        full = await mcp.call_tool("insights", {"tz": "UTC", "detail": True})
        return small, full

    small_result, full_result = local(store, body)
    small, full = structured(small_result), structured(full_result)
    assert "series" not in small and "slots" not in small and "detail: true" in small["leftOut"]
    assert len(full["series"]) == 120 and len(full["slots"]) == 28 and "leftOut" not in full
    for key in ("findings", "inconclusive", "untested", "bestSlots", "posts", "examplePosts"):
        assert small[key] == full[key], key
    # The examples are the posts that beat their usual most, with their words.
    best = sorted(full["series"], key=lambda point: -point["relative"])[:EXAMPLE_POSTS]
    assert [post["postId"] for post in small["examplePosts"]] == [p["postId"] for p in best]
    assert all(post["postId"] in ids and post["excerpt"] for post in small["examplePosts"])
    # A history's length no longer sets the answer's size.
    assert len(json.dumps(small)) * 8 < len(json.dumps(full))


def test_create_style_from_top_teaches_it(store: Store) -> None:
    async def body(mcp: Client) -> tuple[str, dict[str, Any]]:
        early = error_of(await mcp.call_tool("create_style", {"name": "Mine", "fromTop": 3}))
        put_history(store.engine, store.workspace_id, synthetic_history(40, seed=5))
        style = structured(await mcp.call_tool("create_style", {"name": "Mine", "fromTop": 3}))
        return early, style

    early, style = local(store, body)
    assert "fromTop 3 needs 3 measured published posts and this workspace has 0" in early
    assert len(style["posts"]) == 3, style


def test_over_http_a_path_is_refused_and_export_needs_a_token(
    ai_live_server: LiveServer, store: Store
) -> None:
    store.post("A draft")
    key = store.api_key()

    async def body() -> dict[str, Any]:
        async with http_session(ai_live_server.base_url, {"x-api-key": key}) as mcp:
            path = error_of(await mcp.call_tool("import_posts", {"path": "/etc/passwd"}))
            no_token = error_of(await mcp.call_tool("export_posts", {}))
        headers = {"x-api-key": key, "authorization": f"Bearer {store.token()}"}
        async with http_session(ai_live_server.base_url, headers) as mcp:
            exported = structured(await mcp.call_tool("export_posts", {"format": "md"}))
        return {"path": path, "no_token": no_token, "exported": exported}

    seen = run(body)
    assert "over HTTP cannot reach: send the file's text as content" in seen["path"]
    assert seen["no_token"]  # recent-posts' rule: drafts need a user's token
    assert seen["exported"]["exported"] == 1 and "A draft" in seen["exported"]["content"]
