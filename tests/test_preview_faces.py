"""`socialgen posts preview` on every face: the terminal (the creator's zone, the
post by its words), --json, --html (one self-contained page, the post escaped), GET
.../post/{workspaceId}/{postId}/preview on a real socket and the MCP tool
preview_post over Streamable HTTP: one preview, the same data everywhere, and clear
refusals. On SQLite, and on PostgreSQL with SOCIALGEN_TEST_DATABASE_URL."""

from __future__ import annotations

import json
import os
import stat
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner, Result

from socialgen.cli.main import app
from socialgen.store.tables import PostStatus
from tests.conftest import LiveServer, Store
from tests.mcp_support import error_of, http_session, run, structured
from tests.outbox_support import add_account
from tests.test_insights_charts import remote_resources

runner = CliRunner()
WHEN = datetime(2031, 1, 15, 8, 0, tzinfo=UTC)  # 09:00 in Berlin (winter)
LINK = "https://example.com/launch-notes"
TEXT = (
    "We shipped every week for a year, and the habit changed how the whole team works. "
    "Small releases meant small risks, fast feedback and fewer meetings about what to "
    "do next.\n\n"
    + " ".join(["Each release taught us something about our customers."] * 8)
    + f"\n\nThe full story: {LINK}"
)
HOSTILE = "<script>alert('x')</script><img src=https://evil.example/a.png> & " + TEXT


def cli(*args: str) -> Result:
    result = runner.invoke(app, list(args))
    assert "Traceback" not in result.output
    return result


def flat(output: str) -> str:
    return " ".join(output.split())


def scheduled(store: Store, text: str = TEXT) -> str:
    return store.post(text, status=PostStatus.SCHEDULED, when=WHEN).id


def api(server: LiveServer, store: Store, post_id: str, **params: Any) -> httpx.Response:
    return httpx.get(
        f"{server.base_url}/api/v1/ai-conversation/post/{store.workspace_id}/{post_id}/preview",
        headers={"x-api-key": store.api_key()},
        params=params,
        timeout=30,
    )


def test_the_terminal_shows_each_network_in_the_creators_zone(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALGEN_TIMEZONE", "Europe/Berlin")
    post_id = scheduled(store)
    add_account(store, "urn:li:person:abc", "linkedin")
    add_account(store, "@shipper", "x")
    result = cli("posts", "preview", post_id[:8])
    assert result.exit_code == 0, result.output
    out = flat(result.output)
    assert "scheduled for 2031-01-15 09:00 Europe/Berlin" in out
    assert "“We shipped every week for a year" in out and post_id not in result.output
    assert "Every connected account" in out
    assert "LinkedIn urn:li:person:abc" in out and "X @shipper" in out
    assert "…see more" in out and "the feed folds here" in out
    assert "Part 1 of 1 · post" in out  # LinkedIn: one post
    assert "Part 2 of" in out and "weighted characters" in out  # X: a thread
    assert f"Link card: {LINK}" in out and f"Link, no card: {LINK}" in out
    published = store.post("Went out", status=PostStatus.PUBLISHED, when=WHEN).id
    went = flat(cli("posts", "preview", published, "--to", "x").output)
    assert "“Went out” (published 2031-01-15 09:00 Europe/Berlin)" in went
    # A network named, not connected: its own rules, said so.
    bare = flat(cli("posts", "preview", post_id, "--to", "bluesky").output)
    assert "Bluesky (no account: the network's own rules)" in bare
    assert "graphemes" in bare and "Bluesky shows a card made from the URL itself" in bare


def test_json_is_the_apis_data(store: Store, live_server: LiveServer) -> None:
    post_id = scheduled(store)
    result = cli("posts", "preview", post_id, "--to", "linkedin", "--to", "x", "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["scheduledAt"] == "2031-01-15T08:00:00.000Z" and data["chosenBy"] == "asked"
    assert [n["network"] for n in data["networks"]] == ["linkedin", "x"]
    linkedin, x = data["networks"]
    assert linkedin["fold"]["marker"] == "…see more" and linkedin["fold"]["at"] <= 210
    assert len(x["parts"]) > 1 and all(p["count"] <= p["limit"] for p in x["parts"])
    response = api(live_server, store, post_id, to="linkedin,x")
    assert response.status_code == 200, response.text
    assert response.json() == {"success": True, "data": data}
    repeated = api(live_server, store, post_id, to=["linkedin", "x"], numberParts="true")
    numbered = repeated.json()["data"]["networks"][1]["parts"]
    assert numbered[0]["text"].endswith(f" 1/{len(numbered)}")


def test_the_html_page_is_self_contained_and_escapes_the_post(
    store: Store, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALGEN_TIMEZONE", "Europe/Berlin")
    post_id = scheduled(store, HOSTILE)
    add_account(store, "@shipper", "x")
    page = tmp_path / "preview.html"
    result = cli("posts", "preview", post_id, "--to", "linkedin", "--to", "x", "--html", str(page))
    assert result.exit_code == 0, result.output
    assert "Wrote the preview page to" in flat(result.output) and "X @shipper" in flat(
        result.output
    )
    html = page.read_text(encoding="utf-8")
    assert remote_resources(html) == []
    assert "<script" not in html.lower() and "<img" not in html.lower()
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;&lt;img src=" in html
    assert "default-src 'none'" in html and "…see more" in html
    assert "LinkedIn" in html and "@shipper" in html and LINK in html
    assert "scheduled for 2031-01-15 09:00 Europe/Berlin" in html
    assert stat.S_IMODE(os.stat(page).st_mode) == 0o600
    # --json beside --html: the JSON on stdout, the page written.
    again = cli("posts", "preview", post_id, "--json", "--html", str(tmp_path / "b.html"))
    assert json.loads(again.stdout)["postId"] == post_id and (tmp_path / "b.html").is_file()


def test_bad_input_is_refused_in_words_and_writes_nothing(store: Store, tmp_path: Path) -> None:
    post_id = scheduled(store)
    missing = tmp_path / "no-such-folder" / "preview.html"
    refused = cli("posts", "preview", post_id, "--html", str(missing))
    assert refused.exit_code == 1 and "is not a folder" in flat(refused.output)
    assert not missing.parent.exists()
    unknown = cli("posts", "preview", post_id, "--to", "myspace", "--json")
    assert unknown.exit_code == 1
    assert json.loads(unknown.stdout) == {
        "success": False,
        "message": "No social account 'myspace' in this workspace, and no network of that "
        "name (bluesky, mastodon, linkedin, x, threads, telegram, discord, nostr, pixelfed): "
        "see `socialgen accounts list`",
    }
    gone = cli("posts", "preview", "no-such-post")
    assert gone.exit_code == 1 and "not found" in gone.output.lower()


def test_the_api_refuses_strangers_and_unknown_posts(store: Store, live_server: LiveServer) -> None:
    post_id = scheduled(store)
    missing = api(live_server, store, "no-such-post")
    assert missing.status_code == 404 and missing.json()["success"] is False
    too_many = api(live_server, store, post_id, to=",".join(["x"] * 21))
    assert too_many.status_code == 400 and "at most 20" in too_many.json()["message"]
    url = (
        f"{live_server.base_url}/api/v1/ai-conversation/post/{store.workspace_id}/{post_id}/preview"
    )
    assert httpx.get(url).status_code == 401
    other = store.workspace("Other")
    assert httpx.get(url, headers={"x-api-key": store.api_key(other)}).status_code == 403


def test_the_mcp_tool_answers_what_the_api_answers(store: Store, live_server: LiveServer) -> None:
    post_id = scheduled(store)
    key = store.api_key()
    expected = api(live_server, store, post_id, to="threads,telegram").json()["data"]

    async def body() -> tuple[dict[str, Any], str]:
        async with http_session(live_server.base_url, {"x-api-key": key}) as mcp:
            answer = await mcp.call_tool(
                "preview_post", {"postId": post_id, "to": ["threads", "telegram"]}
            )
            refused = await mcp.call_tool("preview_post", {"postId": "no-such-post"})
            return structured(answer), error_of(refused)

    data, error = run(body)
    assert data == expected
    assert [n["network"] for n in data["networks"]] == ["threads", "telegram"]
    assert "not found" in error.lower()
