"""Content styles over HTTP, as SPEC.md words them, and their effect on generation."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func
from sqlmodel import select

from socialgen.store.tables import ContentStyle, StylePost
from tests.conftest import Store
from tests.generation_support import parse_sse
from tests.scripted_support import ScriptedAI

BASE = "/api/v1/content-styles"
FOUNDER_POSTS = [
    "Shipped it! 🚀 Our team went from monthly to weekly releases.\n\nWhat would you ship "
    "this Friday? 👇\n\n#startups #shipping",
    "Who else hates long meetings? 🙋\n\nWe cut ours to 15 minutes. Energy went up!\n\n"
    "#startups #productivity",
    "3 things I learned this week 🎯\n\n1. Ship small\n2. Talk to users\n3. Sleep\n\n"
    "Which one do you skip? #startups",
]
STYLE_KEYS = {
    "_id",
    "name",
    "description",
    "workspaceId",
    "userId",
    "posts",
    "createdAt",
    "updatedAt",
}


@pytest.fixture
def headers(store: Store) -> dict[str, str]:
    return {"x-api-key": store.api_key(), "Authorization": f"Bearer {store.token()}"}


def count(store: Store, model: Any) -> int:
    return int(store.scalar(select(func.count()).select_from(model)))


def make_style(
    client: TestClient, store: Store, headers: dict[str, str], **body: Any
) -> dict[str, Any]:
    response = client.post(
        f"{BASE}/{store.workspace_id}", headers=headers, json={"name": "Founder", **body}
    )
    assert response.status_code == 201, response.text
    data: dict[str, Any] = response.json()["data"]
    return data


def test_create_list_get_update_delete(
    client: TestClient, store: Store, headers: dict[str, str]
) -> None:
    created = make_style(client, store, headers, description="Punchy founder voice")
    assert set(created) == STYLE_KEYS
    assert created["workspaceId"] == store.workspace_id
    assert created["userId"] == store.owner_id
    assert created["posts"] == []
    ws = store.workspace_id

    listed = client.get(f"{BASE}/{ws}", headers=headers).json()
    assert listed["success"] is True
    assert listed["count"] == 1
    assert listed["data"][0]["_id"] == created["_id"]

    one = client.get(f"{BASE}/{ws}/{created['_id']}", headers=headers).json()
    assert one == {"success": True, "data": created}

    updated = client.put(
        f"{BASE}/{ws}/{created['_id']}", headers=headers, json={"name": "Founder v2"}
    ).json()["data"]
    assert updated["name"] == "Founder v2"
    assert updated["description"] == "Punchy founder voice"  # untouched when not given

    deleted = client.delete(f"{BASE}/{ws}/{created['_id']}", headers=headers)
    assert deleted.json() == {"success": True, "data": {}}
    assert count(store, ContentStyle) == 0


def test_a_workspace_bound_key_acts_for_the_workspace_owner(
    client: TestClient, store: Store
) -> None:
    created = make_style(client, store, {"x-api-key": store.api_key()})
    assert created["userId"] == store.owner_id


@pytest.mark.parametrize("body", [{}, {"name": ""}, {"name": "   "}, {"description": "x"}])
def test_create_without_a_name_is_refused(
    client: TestClient, store: Store, headers: dict[str, str], body: dict[str, Any]
) -> None:
    response = client.post(f"{BASE}/{store.workspace_id}", headers=headers, json=body)
    assert response.status_code == 400
    assert response.json() == {"success": False, "message": "Content style name is required"}
    assert count(store, ContentStyle) == 0


def test_update_with_a_blank_name_is_refused(
    client: TestClient, store: Store, headers: dict[str, str]
) -> None:
    style = make_style(client, store, headers)
    response = client.put(
        f"{BASE}/{store.workspace_id}/{style['_id']}", headers=headers, json={"name": " "}
    )
    assert (response.status_code, response.json()["message"]) == (
        400,
        "Content style name is required",
    )


def test_add_posts_trains_the_style(
    client: TestClient, store: Store, headers: dict[str, str]
) -> None:
    style = make_style(client, store, headers)
    url = f"{BASE}/{store.workspace_id}/{style['_id']}/posts"
    response = client.post(url, headers=headers, json={"posts": FOUNDER_POSTS})
    assert response.status_code == 201
    body = response.json()
    assert body["success"] is True
    assert body["count"] == 3
    assert [set(p) for p in body["data"]] == [{"_id", "content"}] * 3
    assert [p["content"] for p in body["data"]] == FOUNDER_POSTS
    profile = store.scalar(select(ContentStyle.profile).where(ContentStyle.id == style["_id"]))
    assert profile is not None and profile["examples"] == 3

    again = client.get(f"{BASE}/{store.workspace_id}/{style['_id']}", headers=headers).json()
    assert [p["content"] for p in again["data"]["posts"]] == FOUNDER_POSTS


@pytest.mark.parametrize(
    ("posts", "message"),
    [
        (
            ["one", "two", "three", "four", "five", "six"],
            "At most 5 posts can be added per call (6 given)",
        ),
        (["fine", "   "], "Post 2 is empty"),
        ([], "posts must be a non-empty array of strings"),
        (None, "posts must be a non-empty array of strings"),
        ("just a string", "posts must be a non-empty array of strings"),
        (["ok", 42], "Post 2 must be a string"),
        (["x" * 3001], "Post 1 exceeds the character limit of 3000 characters"),
    ],
)
def test_add_posts_refuses_bad_input_and_adds_nothing(
    client: TestClient, store: Store, headers: dict[str, str], posts: Any, message: str
) -> None:
    style = make_style(client, store, headers)
    response = client.post(
        f"{BASE}/{store.workspace_id}/{style['_id']}/posts", headers=headers, json={"posts": posts}
    )
    assert (response.status_code, response.json()) == (400, {"success": False, "message": message})
    assert count(store, StylePost) == 0


def test_edit_and_delete_a_style_post(
    client: TestClient, store: Store, headers: dict[str, str]
) -> None:
    style = make_style(client, store, headers)
    base = f"{BASE}/{store.workspace_id}/{style['_id']}/posts"
    added = client.post(base, headers=headers, json={"posts": FOUNDER_POSTS[:2]}).json()["data"]

    edited = client.put(
        f"{base}/{added[0]['_id']}", headers=headers, json={"content": "New words."}
    )
    assert edited.json() == {
        "success": True,
        "data": {"_id": added[0]["_id"], "content": "New words."},
    }
    empty = client.put(f"{base}/{added[0]['_id']}", headers=headers, json={"content": ""})
    assert (empty.status_code, empty.json()["message"]) == (400, "Content is required")

    deleted = client.delete(f"{base}/{added[1]['_id']}", headers=headers)
    assert deleted.json() == {"success": True, "data": {}}
    assert count(store, StylePost) == 1
    missing = client.delete(f"{base}/{added[1]['_id']}", headers=headers)
    assert (missing.status_code, missing.json()["message"]) == (404, "Style post not found")


def test_unknown_style_is_404_for_every_operation(
    client: TestClient, store: Store, headers: dict[str, str]
) -> None:
    ws = store.workspace_id
    for method, path, body in [
        ("GET", f"{BASE}/{ws}/nope", None),
        ("PUT", f"{BASE}/{ws}/nope", {"name": "x"}),
        ("DELETE", f"{BASE}/{ws}/nope", None),
        ("POST", f"{BASE}/{ws}/nope/posts", {"posts": ["x"]}),
        ("PUT", f"{BASE}/{ws}/nope/posts/p", {"content": "x"}),
        ("DELETE", f"{BASE}/{ws}/nope/posts/p", None),
    ]:
        response = client.request(method, path, headers=headers, json=body)
        assert (response.status_code, response.json()) == (
            404,
            {"success": False, "message": "Content style not found"},
        ), (method, path)


def test_a_style_of_another_workspace_never_leaks(
    client: TestClient, store: Store, headers: dict[str, str]
) -> None:
    style = make_style(client, store, headers)
    added = client.post(
        f"{BASE}/{store.workspace_id}/{style['_id']}/posts",
        headers=headers,
        json={"posts": ["A's"]},
    ).json()["data"]
    other = store.workspace("B")
    b = {"x-api-key": store.api_key(other)}
    assert client.get(f"{BASE}/{other}", headers=b).json() == {
        "success": True,
        "count": 0,
        "data": [],
    }
    for method, path, body in [
        ("GET", f"{BASE}/{other}/{style['_id']}", None),
        ("PUT", f"{BASE}/{other}/{style['_id']}", {"name": "stolen"}),
        ("DELETE", f"{BASE}/{other}/{style['_id']}", None),
        ("POST", f"{BASE}/{other}/{style['_id']}/posts", {"posts": ["x"]}),
        ("PUT", f"{BASE}/{other}/{style['_id']}/posts/{added[0]['_id']}", {"content": "x"}),
        ("DELETE", f"{BASE}/{other}/{style['_id']}/posts/{added[0]['_id']}", None),
    ]:
        response = client.request(method, path, headers=b, json=body)
        assert response.status_code == 404, (method, path)
        forbidden = client.request(
            method, path.replace(other, store.workspace_id), headers=b, json=body
        )
        assert forbidden.status_code == 403, (method, path)
    assert count(store, StylePost) == 1
    assert store.scalar(select(ContentStyle.name)) == "Founder"


def test_profile_url_is_required(client: TestClient, store: Store, headers: dict[str, str]) -> None:
    url = f"{BASE}/{store.workspace_id}/get-posts-from-social-profile"
    for params in ({}, {"profileUrl": ""}):
        response = client.get(url, headers=headers, params=params)
        assert response.status_code == 400
        assert "profile URL is required as a query parameter" in response.json()["message"]


def test_a_style_shapes_the_prompt_sent_to_the_model(
    ai_client: TestClient, store: Store, headers: dict[str, str], scripted_ai: ScriptedAI
) -> None:
    style = make_style(ai_client, store, headers)
    ai_client.post(
        f"{BASE}/{store.workspace_id}/{style['_id']}/posts",
        headers=headers,
        json={"posts": FOUNDER_POSTS},
    )
    response = ai_client.post(
        f"/api/v1/ai-conversation/generate-post/{store.workspace_id}",
        headers=headers,
        json={"userInput": "weekly releases", "contentStyleId": style["_id"]},
    )
    assert parse_sse(response.text)[-1].name == "post_ids"
    system = scripted_ai.calls_for("post")[-1].messages[0]["content"]
    assert 'Write in the style "Founder"' in system
    assert FOUNDER_POSTS[0] in system  # the closest examples are the few-shot context
    assert "emoji" in system.lower()  # and the derived profile speaks of its habits

    unstyled = ai_client.post(
        f"/api/v1/ai-conversation/generate-post/{store.workspace_id}",
        headers=headers,
        json={"userInput": "weekly releases"},
    )
    assert parse_sse(unstyled.text)[-1].name == "post_ids"
    assert "Write in the style" not in scripted_ai.calls_for("post")[-1].messages[0]["content"]


RSS = b"""<?xml version="1.0"?><rss version="2.0"><channel><title>Dana</title>
<item><title>One</title>
<description>&lt;p&gt;Weekly releases beat big launches.&lt;/p&gt;</description>
<pubDate>Tue, 03 Nov 2026 09:00:00 +0000</pubDate></item>
<item><title>Two</title><description>Small teams move faster.</description>
<pubDate>Mon, 02 Nov 2026 09:00:00 +0000</pubDate></item>
</channel></rss>"""


def test_posts_are_imported_from_a_profile_feed(
    allow_private_urls: None, client: TestClient, store: Store, headers: dict[str, str]
) -> None:
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Feed(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/rss+xml")
            self.send_header("Content-Length", str(len(RSS)))
            self.end_headers()
            self.wfile.write(RSS)

        def log_message(self, *_args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Feed)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        response = client.get(
            f"{BASE}/{store.workspace_id}/get-posts-from-social-profile",
            headers=headers,
            params={"profileUrl": f"http://127.0.0.1:{server.server_address[1]}/feed.xml"},
        )
    finally:
        server.shutdown()
        server.server_close()
    assert response.status_code == 200, response.text
    assert response.json() == {
        "success": True,
        "data": [
            {"content": "Weekly releases beat big launches.", "date": "2026-11-03"},
            {"content": "Small teams move faster.", "date": "2026-11-02"},
        ],
    }


def test_profile_import_refusals_are_clear_4xx(
    client: TestClient, store: Store, headers: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SOCIALGEN_LINKEDIN_PROFILE_ENDPOINT", raising=False)
    monkeypatch.delenv("SOCIALGEN_ALLOW_PRIVATE_URLS", raising=False)
    url = f"{BASE}/{store.workspace_id}/get-posts-from-social-profile"
    for profile, status, fragment in [
        ("https://www.linkedin.com/in/someone", 422, "LinkedIn does not show posts"),
        ("ftp://example.com/feed", 400, "http"),
        ("http://127.0.0.1:9/feed", 400, "not allowed"),
        ("not a url", 400, "profile URL"),
    ]:
        response = client.get(url, headers=headers, params={"profileUrl": profile})
        assert response.status_code == status, (profile, response.text)
        assert fragment in response.json()["message"], profile
