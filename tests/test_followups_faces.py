"""The follow-ups' faces: the HTTP API (PUT/GET/DELETE .../followups, and the
publications a post's first comment shows under), the MCP tools over /mcp (a real
socket), and `socialgen posts first-comment|plug` with every bad input refused with
a clear message, a non-zero exit and nothing half-written. On SQLite and
PostgreSQL (a scripted network stands in for the networks)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from sqlmodel import select
from typer.testing import CliRunner

from socialgen.app.runtime import Runtime
from socialgen.cli.main import app
from socialgen.store.engine import read_session
from socialgen.store.tables import PostFollowup
from tests.conftest import LiveServer, Store
from tests.fakes.scripted_network import ScriptedNetwork
from tests.mcp_support import error_of, http_session, run, structured
from tests.outbox_support import add_account

POSTS = "/api/v1/ai-conversation/post"
COMMENT = "Sources: https://example.com/notes"
runner = CliRunner()


class Replying(ScriptedNetwork):
    CAN_REPLY = True


@pytest.fixture
def replying(store: Store, networks: dict[str, Any]) -> Replying:
    made = networks["bluesky"] = Replying("bluesky")
    return made


def followups(store: Store) -> list[PostFollowup]:
    with read_session(store.engine) as session:
        return list(session.exec(select(PostFollowup)))


# --- HTTP ---------------------------------------------------------------------------------


def test_the_api_sets_shows_and_removes_a_first_comment_and_a_plug(
    live_server: LiveServer, store: Store, replying: Replying
) -> None:
    account = add_account(store, "@ada.example")
    post = store.post("Going out with a first comment")
    base = f"{live_server.base_url}{POSTS}/{store.workspace_id}/{post.id}"
    key = {"x-api-key": store.api_key()}
    with httpx.Client(headers=key, timeout=30) as http:
        put = http.put(f"{base}/followups/first-comment", json={"text": COMMENT})
        assert put.status_code == 200, put.text
        data = put.json()["data"]
        assert data["firstComment"]["text"] == COMMENT and data["plug"] is None
        assert data["firstComment"]["delaySeconds"] == 0
        plug = http.put(f"{base}/followups/plug", json={"text": "My newsletter", "afterLikes": 25})
        assert plug.json()["data"]["plug"]["afterLikes"] == 25

        published = http.post(f"{base}/publish", json={"accountIds": [account]})
        (row,) = published.json()["data"]["publications"]
        assert row["state"] == "published"
        kinds = {f["kind"]: f for f in row["followups"]}
        assert kinds["first-comment"]["state"] == "published"
        assert kinds["plug"]["state"] == "waiting" and "25 likes" in kinds["plug"]["message"]
        (listed,) = http.get(f"{base}/publications").json()["data"]["publications"]
        assert listed["followups"] == row["followups"]
        shown = http.get(f"{base}/followups").json()["data"]
        assert shown["firstComment"]["publications"][0]["url"].startswith("https://scripted")

        removed = http.delete(f"{base}/followups/plug").json()["data"]
        assert removed == {"postId": post.id, "kind": "plug", "removed": True}
        again = http.delete(f"{base}/followups/plug").json()["data"]
        assert again["removed"] is False
        assert http.delete(f"{base}/followups/other").status_code == 404
    texts = [record.text for record in replying.published]
    assert texts == ["Going out with a first comment", COMMENT]


@pytest.mark.parametrize(
    ("path", "body", "status", "words"),
    [
        ("first-comment", {"text": "   "}, 400, "the text is required"),
        ("first-comment", {"text": "x", "delaySeconds": 8 * 86400}, 400, "delaySeconds"),
        ("first-comment", {"text": "a\x00b"}, 400, "NUL character"),
        ("first-comment", {"text": "x" * 3001}, 400, "text"),
        ("first-comment", {"delaySeconds": 5}, 400, "text"),
        ("plug", {"text": "My newsletter"}, 400, "afterLikes"),
        ("plug", {"text": "My newsletter", "afterLikes": 0}, 400, "afterLikes"),
    ],
)
def test_the_api_refuses_bad_bodies_and_writes_nothing(
    client: Any, store: Store, path: str, body: dict[str, Any], status: int, words: str
) -> None:
    post = store.post()
    answer = client.put(
        f"{POSTS}/{store.workspace_id}/{post.id}/followups/{path}",
        json=body,
        headers={"x-api-key": store.api_key()},
    )
    assert answer.status_code == status, answer.text
    assert answer.json()["success"] is False and words in answer.json()["message"]
    assert followups(store) == []


def test_the_api_answers_404_for_a_post_of_another_workspace(client: Any, store: Store) -> None:
    other = store.workspace("Elsewhere")
    theirs = store.post(workspace_id=other)
    key = {"x-api-key": store.api_key()}
    path = f"{POSTS}/{store.workspace_id}/{theirs.id}/followups"
    assert client.get(path, headers=key).status_code == 404
    put = client.put(f"{path}/first-comment", json={"text": COMMENT}, headers=key)
    assert put.status_code == 404 and followups(store) == []


# --- MCP ----------------------------------------------------------------------------------


def test_the_mcp_tools_set_read_and_remove(live_server: LiveServer, store: Store) -> None:
    post = store.post()

    async def body() -> dict[str, Any]:
        async with http_session(live_server.base_url, {"x-api-key": store.api_key()}) as mcp:
            first = structured(
                await mcp.call_tool(
                    "set_first_comment", {"postId": post.id, "text": COMMENT, "delaySeconds": 90}
                )
            )
            plug = structured(
                await mcp.call_tool(
                    "set_plug", {"postId": post.id, "text": "Newsletter", "afterLikes": 3}
                )
            )
            blank = error_of(
                await mcp.call_tool("set_first_comment", {"postId": post.id, "text": " "})
            )
            read = structured(await mcp.call_tool("post_followups", {"postId": post.id}))
            removed = structured(
                await mcp.call_tool("remove_followup", {"postId": post.id, "kind": "first-comment"})
            )
            after = structured(await mcp.call_tool("post_followups", {"postId": post.id}))
            return {
                "first": first,
                "plug": plug,
                "blank": blank,
                "read": read,
                "removed": removed,
                "after": after,
            }

    seen = run(body)
    assert seen["first"]["firstComment"]["delaySeconds"] == 90
    assert seen["plug"]["plug"]["afterLikes"] == 3
    assert "text is required" in seen["blank"]
    assert seen["read"]["firstComment"]["text"] == COMMENT
    assert seen["removed"]["removed"] is True
    assert seen["after"]["firstComment"] is None and seen["after"]["plug"]["text"] == "Newsletter"


# --- the command line ---------------------------------------------------------------------


def cli(networks: dict[str, Any], *args: str, stdin: str | None = None, code: int = 0) -> Any:
    result = runner.invoke(app, list(args), input=stdin, obj=Runtime(networks=networks))
    assert result.exit_code == code, result.output
    return result


def test_the_cli_sets_keeps_and_shows_what_was_not_given(
    store: Store, networks: dict[str, Any], replying: Replying
) -> None:
    post = store.post()
    none = json.loads(cli(networks, "posts", "first-comment", post.id, "--json").stdout)
    assert none == {"postId": post.id, "firstComment": None, "plug": None}
    said = cli(networks, "posts", "first-comment", post.id).output
    assert "The post has no first comment" in said

    cli(networks, "posts", "first-comment", post.id, "-", "--delay", "10m", stdin=COMMENT + "\n")
    later = cli(networks, "posts", "first-comment", post.id, "--delay", "2h", "--json")
    data = json.loads(later.stdout)["firstComment"]
    assert (data["text"], data["delaySeconds"]) == (COMMENT, 7200)  # the text kept
    renamed = cli(networks, "posts", "first-comment", post.id, "New words", "--json")
    assert json.loads(renamed.stdout)["firstComment"]["delaySeconds"] == 7200  # delay kept

    account = add_account(store, "@ada.example")
    cli(networks, "posts", "publish", post.id, "--to", account)
    shown = cli(networks, "posts", "publications", post.id).output
    assert "first comment: queued" in " ".join(shown.split()) and "due " in shown


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("posts", "first-comment", "{post}", "x", "--delay", "10 minutes"), "not a duration"),
        (("posts", "first-comment", "{post}", "x", "--delay", "8d"), "--delay must be"),
        (("posts", "first-comment", "{post}", "x", "--remove"), "--remove takes no text"),
        (("posts", "first-comment", "{post}", "--delay", "1m"), "give its text"),
        (("posts", "first-comment", "{post}", "--retry"), "has no first comment"),
        (("posts", "first-comment", "{post}", " "), "the text is required"),
        (("posts", "plug", "{post}", "Newsletter"), "--after-likes N"),
        (("posts", "plug", "{post}", "Newsletter", "--after-likes", "0"), "0"),
        (("posts", "first-comment", "nosuchpost", "x"), "ost"),
    ],
)
def test_the_cli_refuses_bad_input_with_a_message_and_writes_nothing(
    store: Store, networks: dict[str, Any], args: tuple[str, ...], words: str
) -> None:
    post = store.post()
    line = [arg.replace("{post}", post.id) for arg in args]
    result = runner.invoke(app, line, obj=Runtime(networks=networks))
    assert result.exit_code != 0
    assert words in result.output, result.output
    assert "Traceback" not in result.output
    assert followups(store) == []


def test_the_dry_run_shows_the_comment_or_why_a_network_cannot(
    store: Store, networks: dict[str, Any], replying: Replying
) -> None:
    networks["discord"] = ScriptedNetwork("discord")  # its module says no CAN_REPLY
    post = store.post()
    cli(networks, "posts", "first-comment", post.id, COMMENT, "--delay", "90")
    bluesky = add_account(store, "@ada.example")
    webhook = add_account(store, "#releases", "discord")
    dry = cli(networks, "posts", "publish", post.id, "--to", bluesky, "--to", webhook, "--dry-run")
    text = " ".join(dry.output.split())
    assert "first comment (90 s after the post is live), under the post:" in text
    assert COMMENT in text
    assert "refused: discord cannot post a reply under a post" in text
    assert replying.published == []


def test_removing_the_account_or_deleting_the_draft_takes_its_followups_along(
    store: Store, networks: dict[str, Any], replying: Replying
) -> None:
    from socialgen.store.tables import FollowupPublication

    account = add_account(store, "@ada.example")
    post = store.post()
    cli(networks, "posts", "first-comment", post.id, COMMENT)
    cli(networks, "posts", "publish", post.id, "--to", account)
    with read_session(store.engine) as session:
        assert len(session.exec(select(FollowupPublication)).all()) == 1
    cli(networks, "accounts", "remove", account, "--yes")
    with read_session(store.engine) as session:
        assert session.exec(select(FollowupPublication)).all() == []
    draft = store.post("A draft with a comment")
    cli(networks, "posts", "first-comment", draft.id, COMMENT)
    assert len(followups(store)) == 2
    cli(networks, "posts", "delete", draft.id, "--yes")
    assert [found.post_id for found in followups(store)] == [post.id]
