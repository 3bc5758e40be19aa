"""The posts and conversations endpoints, exactly as SPEC.md words them."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, update
from sqlmodel import select

from socialgen.auth.secrets import hash_secret
from socialgen.auth.service import authenticate_api_key, revoke_api_key, revoke_token
from socialgen.kit.clock import utcnow
from socialgen.kit.limits import MAX_POST_CHARS
from socialgen.store.engine import transaction
from socialgen.store.tables import AccessToken, Conversation, Post, PostStatus, PostVersion
from socialgen.workspaces.service import add_member
from tests.conftest import Store, days_ago, days_ahead

BASE = "/api/v1/ai-conversation"
POST_KEYS = {
    "id",
    "conversationId",
    "conversationTitle",
    "postContent",
    "postType",
    "status",
    "createdAt",
    "scheduledAt",
    "publishedAt",  # an addition to SPEC.md's Post: when a published post went out
    "socialAccount",
    "metrics",
    "postUrl",
    "carousel",
    "infographic",
    "generatedHeadshot",
    "customImage",
}


@pytest.fixture
def owner(store: Store) -> dict[str, str]:
    """Headers of the local owner with a key bound to the default workspace."""
    return {"x-api-key": store.api_key(), "Authorization": f"Bearer {store.token()}"}


def count(store: Store, model: Any) -> int:
    return int(store.scalar(select(func.count()).select_from(model)))


# --- recent-posts and posts-timeline -------------------------------------------------


def test_recent_posts_returns_the_window_with_spec_fields(
    client: TestClient, store: Store, owner: dict[str, str]
) -> None:
    draft = store.post("Draft from yesterday", when=days_ago(1))
    scheduled = store.post("Scheduled next week", status=PostStatus.SCHEDULED, when=days_ahead(7))
    published = store.post(
        "Published last month",
        status=PostStatus.PUBLISHED,
        when=days_ago(30),
        likes=12,
        comments=3,
        post_url="https://example.com/p/1",
        social_account_name="Ada",
    )
    store.post("Published too long ago", status=PostStatus.PUBLISHED, when=days_ago(91))
    store.post("Old draft", when=days_ago(120))

    response = client.get(f"{BASE}/recent-posts/{store.workspace_id}", headers=owner)

    assert response.status_code == 200
    body = response.json()
    assert body["success"] is True
    posts = body["data"]["posts"]
    assert [p["id"] for p in posts] == [scheduled.id, draft.id, published.id]
    assert body["data"]["total"] == 3
    assert set(body["data"]) == {"posts", "total", "dateRange"}  # no nextCursor unasked
    assert set(body["data"]["dateRange"]) == {"from", "to"}
    assert body["data"]["dateRange"]["to"] >= posts[0]["scheduledAt"]
    for post in posts:
        assert set(post) == POST_KEYS
    shown = {p["id"]: p for p in posts}[published.id]
    assert shown["metrics"] == {"likes": 12, "comments": 3}
    assert shown["postUrl"] == "https://example.com/p/1"
    assert shown["socialAccount"] == {"name": "Ada"}
    assert shown["conversationTitle"] == "Published last month"
    assert shown["createdAt"].endswith("Z")


def test_timeline_excludes_drafts(client: TestClient, store: Store, owner: dict[str, str]) -> None:
    store.post("a draft")
    scheduled = store.post("scheduled", status=PostStatus.SCHEDULED, when=days_ahead(200))
    published = store.post("published", status=PostStatus.PUBLISHED, when=days_ago(2))

    response = client.get(f"{BASE}/posts-timeline/{store.workspace_id}", headers=owner)

    assert response.status_code == 200
    assert [p["id"] for p in response.json()["data"]["posts"]] == [scheduled.id, published.id]


def page_through(
    client: TestClient, url: str, headers: dict[str, str], limit: int
) -> tuple[list[str], list[dict[str, Any]]]:
    """Every post id, following nextCursor page by page; and each page's data."""
    seen: list[str] = []
    pages: list[dict[str, Any]] = []
    params: dict[str, Any] = {"limit": limit}
    while True:
        response = client.get(url, headers=headers, params=params)
        assert response.status_code == 200, response.text
        data = response.json()["data"]
        pages.append(data)
        seen += [post["id"] for post in data["posts"]]
        if data["nextCursor"] is None:
            return seen, pages
        params = {"limit": limit, "cursor": data["nextCursor"]}


def test_listings_page_by_limit_and_cursor_without_repeats_or_gaps(
    client: TestClient, store: Store, owner: dict[str, str]
) -> None:
    tie = days_ago(3)
    for number in range(4):  # the same timeline time: the cursor must split ties exactly
        store.post(f"tie {number}", status=PostStatus.PUBLISHED, when=tie)
    store.post("future", status=PostStatus.SCHEDULED, when=days_ahead(9))
    for number in range(3):
        store.post(f"draft {number}", when=days_ago(number + 1))
    store.post("too old", status=PostStatus.PUBLISHED, when=days_ago(100))

    for path, expected_total, sizes in (
        ("recent-posts", 8, [3, 3, 2]),
        ("posts-timeline", 5, [3, 2]),
    ):
        url = f"{BASE}/{path}/{store.workspace_id}"
        whole = client.get(url, headers=owner).json()["data"]
        seen, pages = page_through(client, url, owner, limit=3)

        assert len(seen) == len(set(seen)) == expected_total
        assert set(seen) == {post["id"] for post in whole["posts"]}
        assert [len(page["posts"]) for page in pages] == sizes
        assert {page["total"] for page in pages} == {expected_total}  # the whole window
        assert {page["dateRange"]["to"] for page in pages} == {whole["dateRange"]["to"]}
        assert all(set(page["posts"][0]) == POST_KEYS for page in pages)
    # A limit as large as the window: one page, no next one.
    one = client.get(f"{BASE}/recent-posts/{store.workspace_id}?limit=8", headers=owner).json()
    assert len(one["data"]["posts"]) == 8
    assert one["data"]["nextCursor"] is None


def test_a_cursor_alone_gives_the_rest_of_the_window(
    client: TestClient, store: Store, owner: dict[str, str]
) -> None:
    newest = [store.post(f"post {n}", when=days_ago(10 - n)).id for n in range(5)][::-1]
    url = f"{BASE}/recent-posts/{store.workspace_id}"
    first = client.get(url, headers=owner, params={"limit": 2}).json()["data"]

    rest = client.get(url, headers=owner, params={"cursor": first["nextCursor"]}).json()["data"]

    assert [post["id"] for post in first["posts"]] == newest[:2]
    assert [post["id"] for post in rest["posts"]] == newest[2:]
    assert rest["nextCursor"] is None


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"limit": "0"}, "limit must be a positive integer"),
        ({"limit": "1001"}, "limit must be at most 1000"),
        (
            {"cursor": "not-a-cursor"},
            "cursor is not valid: pass the nextCursor of the previous page",
        ),
        ({"cursor": "1795322110123456"}, "cursor is not valid"),
        ({"cursor": "123456789012345678_abc"}, "cursor is not valid"),
        ({"cursor": "-5_abc"}, "cursor is not valid"),
    ],
)
def test_listings_refuse_a_bad_limit_or_cursor(
    client: TestClient, store: Store, owner: dict[str, str], params: dict[str, str], message: str
) -> None:
    for path in ("recent-posts", "posts-timeline"):
        response = client.get(f"{BASE}/{path}/{store.workspace_id}", headers=owner, params=params)
        assert response.status_code == 400
        assert response.json()["success"] is False
        assert response.json()["message"].startswith(message)


def test_recent_posts_requires_a_bearer_token(client: TestClient, store: Store) -> None:
    response = client.get(
        f"{BASE}/recent-posts/{store.workspace_id}", headers={"x-api-key": store.api_key()}
    )
    assert response.status_code == 401
    assert response.json() == {"success": False, "message": "Not authorized to access this route"}


def test_recent_posts_refuses_non_members_with_access_denied(
    client: TestClient, store: Store
) -> None:
    store.user("stranger@example.com")
    headers = {
        "x-api-key": store.api_key(None),
        "Authorization": f"Bearer {store.token('stranger@example.com')}",
    }
    response = client.get(f"{BASE}/recent-posts/{store.workspace_id}", headers=headers)
    assert response.status_code == 403
    assert response.json() == {"success": False, "message": "Access denied"}


def test_timeline_with_bound_key_and_no_bearer_acts_as_that_workspace(
    client: TestClient, store: Store
) -> None:
    published = store.post("out there", status=PostStatus.PUBLISHED, when=days_ago(1))
    response = client.get(
        f"{BASE}/posts-timeline/{store.workspace_id}", headers={"x-api-key": store.api_key()}
    )
    assert response.status_code == 200
    assert [p["id"] for p in response.json()["data"]["posts"]] == [published.id]


def test_timeline_messages_for_401_and_403(client: TestClient, store: Store) -> None:
    unbound = {"x-api-key": store.api_key(None)}
    response = client.get(f"{BASE}/posts-timeline/{store.workspace_id}", headers=unbound)
    assert response.status_code == 401
    assert response.json()["message"] == "Not authorized to access this route"

    other = store.workspace("Other")
    bound_elsewhere = {"x-api-key": store.api_key(other)}
    response = client.get(f"{BASE}/posts-timeline/{store.workspace_id}", headers=bound_elsewhere)
    assert response.status_code == 403
    assert response.json()["message"] == "Not authorized to access this workspace"


# --- API keys and tokens -----------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/recent-posts/{ws}"),
        ("GET", "/posts-timeline/{ws}"),
        ("GET", "/list/{ws}"),
        ("PUT", "/post/{ws}/{post}"),
        ("DELETE", "/post/{ws}/{post}"),
    ],
)
def test_every_endpoint_refuses_a_missing_invalid_or_revoked_key(
    client: TestClient, store: Store, method: str, path: str
) -> None:
    post = store.post("keep me")
    url = BASE + path.format(ws=store.workspace_id, post=post.id)
    bearer = {"Authorization": f"Bearer {store.token()}"}
    revoked = store.api_key()
    with transaction(store.engine) as session:
        revoke_api_key(session, authenticate_api_key(session, revoked).id)

    for headers, message in [
        (bearer, "API key required: send it in the x-api-key header"),
        ({**bearer, "x-api-key": "sgk_not-a-real-key"}, "Invalid API key"),
        ({**bearer, "x-api-key": revoked}, "This API key has been revoked"),
    ]:
        response = client.request(method, url, headers=headers, json={"content": "changed"})
        assert response.status_code == 401, (headers, response.text)
        assert response.json() == {"success": False, "message": message}
    assert store.scalar(select(Post.content).where(Post.id == post.id)) == "keep me"


def test_expired_revoked_and_malformed_tokens_are_refused(client: TestClient, store: Store) -> None:
    key = store.api_key()
    expired, revoked = store.token(), store.token()
    with transaction(store.engine) as session:
        session.execute(
            update(AccessToken)
            .where(AccessToken.token_hash == hash_secret(expired))  # type: ignore[arg-type]
            .values(expires_at=utcnow() - timedelta(seconds=1))
        )
        token_id = session.exec(
            select(AccessToken.id).where(AccessToken.token_hash == hash_secret(revoked))  # type: ignore[arg-type]
        ).one()
        revoke_token(session, token_id)

    url = f"{BASE}/recent-posts/{store.workspace_id}"
    for authorization, reason in [
        (f"Bearer {expired}", "token expired"),
        (f"Bearer {revoked}", "token revoked"),
        ("Bearer sgt_nope", "invalid token"),
        (f"Token {store.token()}", "malformed Authorization header"),
    ]:
        response = client.get(url, headers={"x-api-key": key, "Authorization": authorization})
        assert response.status_code == 401
        assert response.json()["message"] == "Not authorized to access this route"
        assert reason in response.headers["www-authenticate"]


# --- PUT post ------------------------------------------------------------------------


def test_update_post_changes_content_adds_a_version_and_updates_the_conversation(
    client: TestClient, store: Store, owner: dict[str, str]
) -> None:
    post = store.post("first words")
    url = f"{BASE}/post/{store.workspace_id}/{post.id}"

    response = client.put(url, headers=owner, json={"content": "  better words  "})

    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "data": {"postId": post.id, "content": "better words"},
        "message": "Post content updated successfully",
    }
    assert store.scalar(select(Post.content).where(Post.id == post.id)) == "better words"
    assert (
        store.scalar(
            select(Conversation.current_content).where(Conversation.id == post.conversation_id)
        )
        == "better words"
    )
    versions = store.scalar(
        select(func.count()).select_from(PostVersion).where(PostVersion.post_id == post.id)
    )
    assert versions == 2


def test_update_scheduled_post_is_allowed(
    client: TestClient, store: Store, owner: dict[str, str]
) -> None:
    post = store.post("later", status=PostStatus.SCHEDULED, when=days_ahead(3))
    response = client.put(
        f"{BASE}/post/{store.workspace_id}/{post.id}", headers=owner, json={"content": "new"}
    )
    assert response.status_code == 200


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({}, 400, "Content is required"),
        ({"content": ""}, 400, "Content is required"),
        ({"content": "   \n\t "}, 400, "Content is required"),
        ({"content": None}, 400, "Content is required"),
        ({"content": 42}, 400, "Invalid content: Input should be a valid string"),
        (
            {"content": "x" * (MAX_POST_CHARS + 1)},
            400,
            "Content exceeds the character limit of 3000 characters (3001 given)",
        ),
    ],
)
def test_update_post_refuses_bad_content_and_changes_nothing(
    client: TestClient,
    store: Store,
    owner: dict[str, str],
    body: dict[str, Any],
    status: int,
    message: str,
) -> None:
    post = store.post("unchanged")
    response = client.put(f"{BASE}/post/{store.workspace_id}/{post.id}", headers=owner, json=body)
    assert response.status_code == status
    assert response.json() == {"success": False, "message": message}
    assert store.scalar(select(Post.content).where(Post.id == post.id)) == "unchanged"
    assert count(store, PostVersion) == 1


def test_update_post_accepts_exactly_3000_characters(
    client: TestClient, store: Store, owner: dict[str, str]
) -> None:
    post = store.post("short")
    response = client.put(
        f"{BASE}/post/{store.workspace_id}/{post.id}",
        headers=owner,
        json={"content": "y" * MAX_POST_CHARS},
    )
    assert response.status_code == 200


def test_update_post_refuses_malformed_json_and_no_body(
    client: TestClient, store: Store, owner: dict[str, str]
) -> None:
    post = store.post("unchanged")
    url = f"{BASE}/post/{store.workspace_id}/{post.id}"
    response = client.put(
        url, headers={**owner, "content-type": "application/json"}, content=b'{"content": '
    )
    assert response.status_code == 400
    assert response.json()["message"].startswith("Malformed JSON body")

    response = client.put(url, headers=owner)
    assert response.status_code == 400
    assert response.json()["message"] == "Content is required"

    response = client.put(url, headers=owner, json=["content"])
    assert response.status_code == 400
    assert response.json()["message"] == "The request body must be a JSON object"
    assert store.scalar(select(Post.content).where(Post.id == post.id)) == "unchanged"


def test_update_published_post_is_refused(
    client: TestClient, store: Store, owner: dict[str, str]
) -> None:
    post = store.post("live", status=PostStatus.PUBLISHED, when=days_ago(1))
    response = client.put(
        f"{BASE}/post/{store.workspace_id}/{post.id}", headers=owner, json={"content": "edit"}
    )
    assert response.status_code == 400
    assert response.json()["message"] == (
        "Cannot edit a post with status published: only draft and scheduled posts can be edited"
    )
    assert store.scalar(select(Post.content).where(Post.id == post.id)) == "live"


def test_update_unknown_post_is_404(
    client: TestClient, store: Store, owner: dict[str, str]
) -> None:
    response = client.put(
        f"{BASE}/post/{store.workspace_id}/nope", headers=owner, json={"content": "x"}
    )
    assert response.status_code == 404
    assert response.json() == {"success": False, "message": "Post not found"}


def test_update_requires_bearer_even_with_a_bound_key(client: TestClient, store: Store) -> None:
    post = store.post("unchanged")
    response = client.put(
        f"{BASE}/post/{store.workspace_id}/{post.id}",
        headers={"x-api-key": store.api_key()},
        json={"content": "x"},
    )
    assert response.status_code == 401
    assert store.scalar(select(Post.content).where(Post.id == post.id)) == "unchanged"


@pytest.mark.parametrize("role", ["owner", "admin", "member"])
def test_every_role_may_update_and_delete(client: TestClient, store: Store, role: str) -> None:
    email = f"{role}@example.com"
    store.user(email, workspace_id=store.workspace_id, role=role)
    headers = {"x-api-key": store.api_key(None), "Authorization": f"Bearer {store.token(email)}"}
    post = store.post("team post")
    url = f"{BASE}/post/{store.workspace_id}/{post.id}"
    assert client.put(url, headers=headers, json={"content": "edited"}).status_code == 200
    assert client.delete(url, headers=headers).status_code == 200


# --- DELETE post --------------------------------------------------------------------


def test_delete_post_removes_post_versions_and_conversation(
    client: TestClient, store: Store, owner: dict[str, str]
) -> None:
    post = store.post("to delete", status=PostStatus.SCHEDULED, when=days_ahead(1))
    keep = store.post("keep")

    response = client.delete(f"{BASE}/post/{store.workspace_id}/{post.id}", headers=owner)

    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "message": "Post deleted successfully",
        "data": {
            "deletedPostId": post.id,
            "deletedConversationId": post.conversation_id,
            "postType": "text",
            "status": "scheduled",
        },
    }
    assert count(store, Post) == 1
    assert count(store, PostVersion) == 1
    assert store.scalar(select(func.count()).where(Conversation.id == post.conversation_id)) == 0
    assert store.scalar(select(Post.id)) == keep.id


def test_delete_published_post_is_refused(
    client: TestClient, store: Store, owner: dict[str, str]
) -> None:
    post = store.post("live", status=PostStatus.PUBLISHED, when=days_ago(1))
    response = client.delete(f"{BASE}/post/{store.workspace_id}/{post.id}", headers=owner)
    assert response.status_code == 400
    assert "must be deleted on the social network directly" in response.json()["message"]
    assert count(store, Post) == 1


def test_delete_unknown_post_is_404(
    client: TestClient, store: Store, owner: dict[str, str]
) -> None:
    response = client.delete(f"{BASE}/post/{store.workspace_id}/missing", headers=owner)
    assert response.status_code == 404
    assert response.json() == {"success": False, "message": "Post not found"}


# --- conversations list --------------------------------------------------------------


def test_conversation_list_paginates_with_defaults(
    client: TestClient, store: Store, owner: dict[str, str]
) -> None:
    for n in range(23):
        store.post(f"post number {n}")
    url = f"{BASE}/list/{store.workspace_id}"

    first = client.get(url, headers=owner).json()
    assert first["success"] is True
    assert first["data"]["pagination"] == {"page": 1, "limit": 20, "total": 23, "pages": 2}
    assert len(first["data"]["conversations"]) == 20
    item = first["data"]["conversations"][0]
    assert set(item) == {"_id", "title", "createdAt", "updatedAt", "status", "metadata"}
    assert item["status"] == "active"

    second = client.get(url, headers=owner, params={"page": 2, "limit": 20}).json()
    assert len(second["data"]["conversations"]) == 3
    ids = {c["_id"] for c in first["data"]["conversations"] + second["data"]["conversations"]}
    assert len(ids) == 23


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"page": "0"}, "page must be a positive integer"),
        ({"page": "abc"}, "page must be a positive integer"),
        ({"limit": "-1"}, "limit must be a positive integer"),
        ({"limit": "1.5"}, "limit must be a positive integer"),
        ({"limit": "101"}, "limit must be at most 100"),
    ],
)
def test_conversation_list_refuses_bad_paging(
    client: TestClient,
    store: Store,
    owner: dict[str, str],
    params: dict[str, str],
    message: str,
) -> None:
    response = client.get(f"{BASE}/list/{store.workspace_id}", headers=owner, params=params)
    assert response.status_code == 400
    assert response.json() == {"success": False, "message": message}


# --- isolation between workspaces ----------------------------------------------------


def test_a_workspace_never_sees_or_touches_another_workspaces_posts(
    client: TestClient, store: Store
) -> None:
    other = store.workspace("Team B")
    store.user("b@example.com", workspace_id=other, role="owner")
    b_headers = {
        "x-api-key": store.api_key(other),
        "Authorization": f"Bearer {store.token('b@example.com')}",
    }
    a_post = store.post("A's secret draft")
    a_published = store.post("A's published", status=PostStatus.PUBLISHED, when=days_ago(1))

    for path in ("recent-posts", "posts-timeline", "list"):
        body = client.get(f"{BASE}/{path}/{other}", headers=b_headers).json()
        assert "A's" not in str(body), path

    for post in (a_post, a_published):
        # through B's own workspace path: the id is unknown there
        put = client.put(f"{BASE}/post/{other}/{post.id}", headers=b_headers, json={"content": "x"})
        assert (put.status_code, put.json()["message"]) == (404, "Post not found")
        delete = client.delete(f"{BASE}/post/{other}/{post.id}", headers=b_headers)
        assert (delete.status_code, delete.json()["message"]) == (404, "Post not found")
        # through A's path with B's credentials: refused before any lookup
        for method in ("PUT", "DELETE"):
            response = client.request(
                method,
                f"{BASE}/post/{store.workspace_id}/{post.id}",
                headers=b_headers,
                json={"content": "x"},
            )
            assert response.status_code == 403
    for path, message in [
        ("recent-posts", "Access denied"),
        ("posts-timeline", "Not authorized to access this workspace"),
        ("list", "Not authorized to access this workspace"),
    ]:
        response = client.get(f"{BASE}/{path}/{store.workspace_id}", headers=b_headers)
        assert (response.status_code, response.json()["message"]) == (403, message)

    assert store.scalar(select(Post.content).where(Post.id == a_post.id)) == "A's secret draft"
    assert count(store, Post) == 2


def test_a_user_of_both_workspaces_with_an_unbound_key_sees_each_separately(
    client: TestClient, store: Store
) -> None:
    other = store.workspace("Team B")
    store.user("both@example.com", workspace_id=store.workspace_id)
    with transaction(store.engine) as session:
        add_member(session, other, "both@example.com", "admin")
    headers = {
        "x-api-key": store.api_key(None),
        "Authorization": f"Bearer {store.token('both@example.com')}",
    }
    a = store.post("in A")
    b = store.post("in B", workspace_id=other)
    seen_a = client.get(f"{BASE}/recent-posts/{store.workspace_id}", headers=headers).json()
    seen_b = client.get(f"{BASE}/recent-posts/{other}", headers=headers).json()
    assert [p["id"] for p in seen_a["data"]["posts"]] == [a.id]
    assert [p["id"] for p in seen_b["data"]["posts"]] == [b.id]


# --- server failures and unknown routes -----------------------------------------------


def test_server_failure_uses_the_spec_message(
    client: TestClient, store: Store, owner: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from socialgen.posts import listing

    def broken(*_args: Any, **_kwargs: Any) -> Any:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(listing, "recent_posts", broken)
    response = client.get(f"{BASE}/recent-posts/{store.workspace_id}", headers=owner)
    assert response.status_code == 500
    assert response.json() == {"success": False, "message": "Failed to retrieve recent posts"}


def test_unknown_route_answers_json(client: TestClient) -> None:
    response = client.get("/api/v1/nothing-here")
    assert response.status_code == 404
    assert response.json()["success"] is False


def test_openapi_lists_the_endpoints(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    assert f"{BASE}/recent-posts/{{workspaceId}}" in paths
    assert set(paths[f"{BASE}/post/{{workspaceId}}/{{postId}}"]) == {"put", "delete"}
    assert client.get("/docs").status_code == 200
