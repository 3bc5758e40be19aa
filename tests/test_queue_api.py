"""The queue over HTTP (a real socket) and MCP (the SDK's client over Streamable HTTP):
the same slots, placements, moves and refusals as the CLI, times in ISO 8601 UTC."""

from __future__ import annotations

from typing import Any
from zoneinfo import ZoneInfo

import httpx

from socialgen.kit.clock import parse_iso, utcnow
from socialgen.store.engine import transaction
from socialgen.store.tables import Post, PostStatus
from tests.conftest import LiveServer, Store
from tests.mcp_support import error_of, http_session, run, structured
from tests.outbox_support import add_account

BERLIN = ZoneInfo("Europe/Berlin")


class Api:
    def __init__(self, server: LiveServer, store: Store) -> None:
        self.base = f"{server.base_url}/api/v1/ai-conversation"
        self.ws = store.workspace_id
        self.headers = {"x-api-key": store.api_key()}

    def call(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        return httpx.request(
            method, f"{self.base}{path}", headers=self.headers, timeout=30, **kwargs
        )

    def ok(self, method: str, path: str, **kwargs: Any) -> Any:
        response = self.call(method, path, **kwargs)
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["success"] is True
        return body["data"]

    def refused(self, method: str, path: str, status: int = 400, **kwargs: Any) -> str:
        response = self.call(method, path, **kwargs)
        assert response.status_code == status, response.text
        body = response.json()
        assert body["success"] is False
        return str(body["message"])


def local(moment: str) -> str:
    return parse_iso(moment).astimezone(BERLIN).strftime("%a %H:%M")


def test_slots_placement_moves_and_removal_over_http(store: Store, live_server: LiveServer) -> None:
    api = Api(live_server, store)
    account = add_account(store, "@me.bsky.social")
    body = {"slots": ["Tue 08:30", "Thu 08:30", "Sat 10:00"], "timezone": "Europe/Berlin"}
    (queue,) = api.ok("PUT", f"/queue/{api.ws}/slots", json={**body, "perDay": 1})["queues"]
    assert queue["slots"] == body["slots"] and queue["perDay"] == 1
    assert queue["timezone"] == "Europe/Berlin" and queue["nextFreeAt"].endswith("Z")
    assert api.ok("GET", f"/queue/{api.ws}/slots")["queues"] == [queue]

    posts = [store.post(f"Over HTTP {i}").id for i in range(3)]
    queued = [
        api.ok("POST", f"/post/{api.ws}/{post}/queue", json={"accountIds": [account]})
        for post in posts
    ]
    moments = [answer["scheduledAt"] for answer in queued]
    assert moments == sorted(moments) and moments[0] == queue["nextFreeAt"]
    assert [local(m) for m in moments] == [answer["slot"] for answer in queued]
    assert all(answer["publications"][0]["dueAt"] == answer["scheduledAt"] for answer in queued)

    listed = api.ok("GET", f"/queue/{api.ws}")["queues"][0]
    assert [p["postId"] for p in listed["posts"]] == posts
    assert listed["posts"][1]["content"] == "Over HTTP 1"

    removed = api.ok("DELETE", f"/queue/{api.ws}/{posts[0]}", params={"closeGap": "true"})
    assert removed["status"] == "draft" and removed["droppedPublications"] == 1
    assert [(m["postId"], m["toAt"]) for m in removed["moved"]] == [
        (posts[1], moments[0]),
        (posts[2], moments[1]),
    ]
    moved = api.ok("POST", f"/queue/{api.ws}/{posts[2]}/move", json={"at": moments[2]})
    assert moved["inQueue"] is True and moved["scheduledAt"] == moments[2]
    assert api.ok("GET", f"/queue/{api.ws}")["queues"][0]["freeAt"] == [moments[1]]


def test_http_refusals_say_what_is_wrong_and_change_nothing(
    store: Store, live_server: LiveServer
) -> None:
    api = Api(live_server, store)
    draft = store.post("Not yet")
    said = api.refused("POST", f"/post/{api.ws}/{draft.id}/queue", json={})
    assert said.startswith("No posting slots for the workspace")
    assert "Not a time in 'Tue 8h'" in api.refused(
        "PUT", f"/queue/{api.ws}/slots", json={"slots": "Tue 8h"}
    )
    said = api.refused("PUT", f"/queue/{api.ws}/slots", json={"slots": 830})
    assert (
        said
        == 'Invalid slots: Give the slots as text, "Tue 08:30, Thu 08:30", or an array of texts'
    )
    api.refused("PUT", f"/queue/{api.ws}/slots", json={"slots": "Tue 08:30", "perDay": 0})
    api.refused("PUT", f"/queue/{api.ws}/slots", json={"slots": "Tue 08:30", "timezone": "Mars"})
    assert api.ok("GET", f"/queue/{api.ws}/slots")["queues"] == []  # nothing written
    api.ok("PUT", f"/queue/{api.ws}/slots", json={"slots": "daily 09:00", "timezone": "UTC"})
    said = api.refused("POST", f"/post/{api.ws}/no-such-post/queue", status=404, json={})
    assert said == "Post not found"
    said = api.refused(
        "POST", f"/post/{api.ws}/{draft.id}/queue", status=404, json={"accountIds": ["@nobody"]}
    )
    assert "Social account not found: @nobody" in said
    said = api.refused("POST", f"/queue/{api.ws}/{draft.id}/move", json={"at": "best"})
    assert 'not "best"' in said
    said = api.refused("DELETE", f"/queue/{api.ws}/{draft.id}")
    assert "The post is not in the queue (it is draft)" in said
    with transaction(store.engine) as session:
        post = session.get(Post, draft.id)
        assert post is not None and post.status == PostStatus.DRAFT


def test_the_mcp_tools_do_what_the_endpoints_do(store: Store, live_server: LiveServer) -> None:
    account = add_account(store, "@me.bsky.social")
    first, second = store.post("Via MCP one").id, store.post("Via MCP two").id
    headers = {"x-api-key": store.api_key()}

    async def body() -> dict[str, Any]:
        async with http_session(live_server.base_url, headers) as mcp:
            no_slots = error_of(await mcp.call_tool("queue_post", {"postId": first}))
            slots = structured(
                await mcp.call_tool(
                    "set_queue_slots",
                    {"slots": "Mon-Fri 09:00", "timezone": "UTC", "accountIds": [account]},
                )
            )
            one = structured(await mcp.call_tool("queue_post", {"postId": first}))
            two = structured(await mcp.call_tool("queue_post", {"postId": second}))
            listed = structured(await mcp.call_tool("list_queue", {}))
            moved = structured(
                await mcp.call_tool(
                    "move_queued_post",
                    {"postId": first, "at": "2199-01-01T09:00:00Z", "closeGap": True},
                )
            )
            removed = structured(await mcp.call_tool("remove_from_queue", {"postId": second}))
            suggested = structured(await mcp.call_tool("suggest_queue_slots", {"perDay": 1}))
            bad = error_of(await mcp.call_tool("set_queue_slots", {"slots": "Tue 99:00"}))
            return {
                "no_slots": no_slots, "slots": slots, "one": one, "two": two, "listed": listed,
                "moved": moved, "removed": removed, "suggested": suggested, "bad": bad,
            }  # fmt: skip

    got = run(body)
    assert "No posting slots for the workspace" in got["no_slots"]
    assert got["slots"]["queues"][0]["accounts"][0]["accountId"] == account
    one, two = got["one"], got["two"]
    assert [p["accountId"] for p in one["publications"]] == [account]  # the queue's account
    assert parse_iso(one["scheduledAt"]) < parse_iso(two["scheduledAt"])
    assert parse_iso(one["scheduledAt"]) > utcnow()
    posts = got["listed"]["queues"][0]["posts"]
    assert [(p["postId"], p["content"]) for p in posts] == [
        (first, "Via MCP one"),
        (second, "Via MCP two"),
    ]
    # 2199-01-01 is a Tuesday at 09:00 UTC: a slot, far ahead; the gap it left closes.
    assert got["moved"]["inQueue"] is True and got["moved"]["slot"] == "Tue 09:00"
    assert [(m["postId"], m["toAt"]) for m in got["moved"]["moved"]] == [
        (second, one["scheduledAt"])
    ]
    assert got["removed"]["status"] == "draft" and got["removed"]["droppedPublications"] == 1
    assert got["suggested"]["enough"] is False and got["suggested"]["perDay"] == 1
    assert "Not a time in 'Tue 99:00'" in got["bad"]
