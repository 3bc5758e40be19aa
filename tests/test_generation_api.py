"""Chat, generate-post and generate-batch-posts over SSE, against a fake provider
driven through litellm for real."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func
from sqlmodel import select

from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import Conversation, Message, Post, PostStatus, PostVersion
from socialgen.workspaces.service import get_usage, set_post_quota
from tests.conftest import Store
from tests.fakes.openai_server import Reply
from tests.generation_support import (
    CHAT_TEXT,
    POST_TEXT,
    FakeAI,
    SseEvent,
    check_contract,
    names,
    parse_sse,
)

BASE = "/api/v1/ai-conversation"
VARIATIONS = ["Story-driven", "Educational", "Thought-provoking", "Actionable", "Conversational"]


@pytest.fixture
def headers(store: Store) -> dict[str, str]:
    return {"x-api-key": store.api_key(), "Accept": "text/event-stream"}


def stream(client: TestClient, path: str, headers: dict[str, str], body: Any) -> list[SseEvent]:
    response = client.post(f"{BASE}/{path}", headers=headers, json=body)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.headers["x-accel-buffering"] == "no"
    assert response.headers["cache-control"] == "no-cache"
    events = parse_sse(response.text)
    check_contract(events)
    return events


def count(store: Store, model: Any) -> int:
    return int(store.scalar(select(func.count()).select_from(model)))


def posts_used(store: Store) -> int:
    with read_session(store.engine) as session:
        return get_usage(session, store.workspace_id).posts_used


def only(events: list[SseEvent], name: str) -> SseEvent:
    found = [e for e in events if e.name == name]
    assert len(found) == 1, names(events)
    return found[0]


# --- chat ----------------------------------------------------------------------------


def test_chat_answers_a_question_and_keeps_the_conversation(
    client: TestClient, store: Store, headers: dict[str, str], fake_ai: FakeAI
) -> None:
    fake_ai.intent = "chat"
    events = stream(client, f"chat/{store.workspace_id}", headers, {"userInput": "What is a hook?"})

    assert set(names(events)) == {"chat_delta", "chat_response"}
    assert names(events)[-1] == "chat_response"
    text = "".join(e.data["text"] for e in events if e.name == "chat_delta")
    final = only(events, "chat_response").data
    assert text == final["response"] == CHAT_TEXT
    assert final["suggestedQuestions"] == ["Who is it for?", "What changed?", "Any numbers?"]
    assert [m["role"] for m in final["conversationHistory"]] == ["user", "assistant"]
    assert count(store, Post) == 0  # a question makes no post
    assert posts_used(store) == 0

    # Continuing the conversation sends its history to the model.
    events = stream(
        client,
        f"chat/{store.workspace_id}",
        headers,
        {"userInput": "And a good ending?", "conversationId": final["conversationId"]},
    )
    again = only(events, "chat_response").data
    assert again["conversationId"] == final["conversationId"]
    assert len(again["conversationHistory"]) == 4
    last_chat = [b for b in fake_ai.server.iter_requests() if not b.get("response_format")][-1]
    contents = [m["content"] for m in last_chat["messages"]]
    assert "What is a hook?" in contents and CHAT_TEXT in contents


def test_chat_writes_a_post_when_asked(
    client: TestClient, store: Store, headers: dict[str, str], fake_ai: FakeAI
) -> None:
    events = stream(
        client, f"chat/{store.workspace_id}", headers, {"userInput": "Write a post about Fridays"}
    )

    assert set(names(events)) == {"content_delta", "post_ids"}
    deltas = [e.data for e in events if e.name == "content_delta"]
    assert len(deltas) > 3
    assert deltas[-1]["accumulated"] == "".join(d["text"] for d in deltas) == POST_TEXT
    ids = only(events, "post_ids").data
    with read_session(store.engine) as session:
        post = session.get(Post, ids["postId"])
        assert post is not None
        assert (post.status, post.content, post.conversation_id) == (
            PostStatus.DRAFT,
            POST_TEXT,
            ids["conversationId"],
        )
    assert count(store, PostVersion) == 1
    assert posts_used(store) == 1


def test_reasoning_is_framed_by_started_and_ended(
    client: TestClient, store: Store, headers: dict[str, str], fake_ai: FakeAI
) -> None:
    fake_ai.intent = "chat"
    fake_ai.chat_reply = lambda _p: Reply(text=CHAT_TEXT, reasoning="Think about hooks first.")
    events = stream(client, f"chat/{store.workspace_id}", headers, {"userInput": "Hooks?"})
    order = names(events)
    assert order[0] == "reasoning_started"
    first_delta = order.index("chat_delta")
    assert order[first_delta - 1] == "reasoning_ended"
    assert set(order[1 : first_delta - 1]) == {"reasoning_delta"}
    reasoning = "".join(e.data["text"] for e in events if e.name == "reasoning_delta")
    assert reasoning == "Think about hooks first."


# --- generate-post -------------------------------------------------------------------


def test_generate_post_streams_and_saves_a_draft(
    client: TestClient, store: Store, headers: dict[str, str], fake_ai: FakeAI
) -> None:
    events = stream(
        client, f"generate-post/{store.workspace_id}", headers, {"userInput": "shipping weekly"}
    )
    assert names(events)[-1] == "post_ids"
    assert "".join(e.data["text"] for e in events if e.name == "chat_delta") == POST_TEXT
    ids = only(events, "post_ids").data
    assert ids["refinementQuestions"] == ["Who is it for?", "What changed?", "Any numbers?"]
    assert store.scalar(select(Post.content).where(Post.id == ids["postId"])) == POST_TEXT
    system = fake_ai.post_prompts()[0]["messages"][0]["content"]
    assert "No markdown" in system and "3000" in system


def test_generate_post_with_post_id_adds_a_version_in_its_conversation(
    client: TestClient, store: Store, headers: dict[str, str], fake_ai: FakeAI
) -> None:
    first = only(
        stream(client, f"generate-post/{store.workspace_id}", headers, {"userInput": "v1"}),
        "post_ids",
    ).data
    fake_ai.post_reply = lambda _p: Reply(text="A sharper second version of the post.")
    second = only(
        stream(
            client,
            f"generate-post/{store.workspace_id}",
            headers,
            {"userInput": "make it sharper", "postId": first["postId"]},
        ),
        "post_ids",
    ).data
    assert second["postId"] == first["postId"]
    assert second["conversationId"] == first["conversationId"]
    assert count(store, Post) == 1
    assert count(store, PostVersion) == 2
    assert count(store, Message) == 4
    history = [m["content"] for m in fake_ai.post_prompts()[-1]["messages"]]
    assert "v1" in history  # the conversation so far was the model's context


def test_markdown_from_the_model_is_made_linkedin_plain(
    client: TestClient, store: Store, headers: dict[str, str], fake_ai: FakeAI
) -> None:
    fake_ai.post_reply = lambda _p: Reply(text="# Big news\n\nWe **ship** weekly. Do you?")
    ids = only(
        stream(client, f"generate-post/{store.workspace_id}", headers, {"userInput": "news"}),
        "post_ids",
    ).data
    assert store.scalar(select(Post.content).where(Post.id == ids["postId"])) == (
        "Big news\n\nWe ship weekly. Do you?"
    )


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({}, 400, "userInput is required"),
        ({"userInput": "   "}, 400, "userInput is required"),
        ({"userInput": "x", "conversationId": "nope"}, 404, "Conversation not found"),
        ({"userInput": "x", "postId": "nope"}, 404, "Post not found"),
        ({"userInput": "x", "contentStyleId": "nope"}, 404, "Content style not found"),
    ],
)
def test_generate_post_refuses_bad_input_before_any_work(
    client: TestClient,
    store: Store,
    headers: dict[str, str],
    fake_ai: FakeAI,
    body: dict[str, Any],
    status: int,
    message: str,
) -> None:
    response = client.post(f"{BASE}/generate-post/{store.workspace_id}", headers=headers, json=body)
    assert (response.status_code, response.json()) == (
        status,
        {"success": False, "message": message},
    )
    assert fake_ai.server.requests == []
    assert count(store, Conversation) == 0
    assert posts_used(store) == 0


def test_generate_post_of_another_workspaces_post_is_not_found(
    client: TestClient, store: Store, fake_ai: FakeAI
) -> None:
    other = store.workspace("B")
    post = store.post("A's post")
    response = client.post(
        f"{BASE}/generate-post/{other}",
        headers={"x-api-key": store.api_key(other)},
        json={"userInput": "x", "postId": post.id},
    )
    assert (response.status_code, response.json()["message"]) == (404, "Post not found")
    response = client.post(
        f"{BASE}/generate-post/{other}",
        headers={"x-api-key": store.api_key(other)},
        json={"userInput": "x", "conversationId": post.conversation_id},
    )
    assert (response.status_code, response.json()["message"]) == (404, "Conversation not found")


@pytest.mark.parametrize(
    ("reply", "fragment"),
    [
        (Reply(status=500, text="upstream exploded"), "The AI provider failed"),
        (Reply(text=POST_TEXT, cut_after=2), "The AI provider failed"),
        (Reply(text="", finish_reason="stop"), "empty post"),
    ],
    ids=["provider-500", "cut-stream", "empty-answer"],
)
def test_a_failed_generation_is_an_error_event_and_leaves_nothing(
    client: TestClient,
    store: Store,
    headers: dict[str, str],
    fake_ai: FakeAI,
    reply: Reply,
    fragment: str,
) -> None:
    fake_ai.post_reply = lambda _p: reply
    events = stream(client, f"generate-post/{store.workspace_id}", headers, {"userInput": "x"})
    assert names(events)[-1] == "error"
    assert fragment in events[-1].data["message"]
    assert count(store, Post) == 0
    assert count(store, Conversation) == 0
    assert posts_used(store) == 0  # the reserved post was given back


def test_a_provider_timeout_is_an_error_event(
    client: TestClient,
    store: Store,
    headers: dict[str, str],
    fake_ai: FakeAI,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SOCIALGEN_TIMEOUT", "0.5")
    fake_ai.post_reply = lambda _p: Reply(text=POST_TEXT, first_delay=3)
    events = stream(client, f"generate-post/{store.workspace_id}", headers, {"userInput": "x"})
    assert names(events) == ["error"]
    assert "Timeout" in events[0].data["message"]
    assert count(store, Post) == 0


def test_keepalive_pings_while_the_model_is_quiet(
    client: TestClient,
    store: Store,
    headers: dict[str, str],
    fake_ai: FakeAI,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SOCIALGEN_KEEPALIVE_SECONDS", "0.05")
    fake_ai.post_reply = lambda _p: Reply(text=POST_TEXT, first_delay=0.4)
    events = stream(client, f"generate-post/{store.workspace_id}", headers, {"userInput": "x"})
    pings = [e for e in events if e.name == "keepalive"]
    assert len(pings) >= 3
    assert all(p.data == {"ping": True} for p in pings)
    assert names(events)[-1] == "post_ids"


# --- batch ---------------------------------------------------------------------------


def test_batch_creates_five_named_drafts(
    client: TestClient, store: Store, headers: dict[str, str], fake_ai: FakeAI
) -> None:
    fake_ai.post_reply = lambda prompt: Reply(text=f"Post for: {prompt.splitlines()[1][:60]}")
    events = stream(
        client, f"generate-batch-posts/{store.workspace_id}", headers, {"userInput": "ship weekly"}
    )
    order = names(events)
    assert order[-2:] == ["batch_complete", "chat_delta"]
    for n, variation in enumerate(VARIATIONS, start=1):
        progress = [e.data for e in events if e.name == "batch_progress" and e.data["current"] == n]
        assert [p["status"] for p in progress] == ["generating", "completed"]
        assert {p["variationName"] for p in progress} == {variation}
        assert order.index(f"post_{n}_post_ids") > order.index("batch_progress")
    complete = only(events, "batch_complete").data
    assert complete["success"] is True
    assert complete["isRegeneration"] is False
    assert complete["originalPrompt"] == "ship weekly"
    assert complete["summary"] == {"total": 5, "generated": 5, "failed": 0}
    assert [p["variationName"] for p in complete["posts"]] == VARIATIONS
    assert [p["index"] for p in complete["posts"]] == [1, 2, 3, 4, 5]
    assert len({p["conversationId"] for p in complete["posts"]}) == 5
    assert all(v in p["content"] for v, p in zip(VARIATIONS, complete["posts"], strict=True))
    assert count(store, Post) == 5
    assert posts_used(store) == 5


def test_one_failing_variation_does_not_fail_the_others(
    client: TestClient, store: Store, headers: dict[str, str], fake_ai: FakeAI
) -> None:
    def reply(prompt: str) -> Reply:
        return Reply(status=500) if "Thought-provoking" in prompt else Reply(text=POST_TEXT)

    fake_ai.post_reply = reply
    events = stream(
        client, f"generate-batch-posts/{store.workspace_id}", headers, {"userInput": "x"}
    )
    failed = [e.data for e in events if e.name == "batch_progress" and e.data["status"] == "failed"]
    assert [f["variationName"] for f in failed] == ["Thought-provoking"]
    complete = only(events, "batch_complete").data
    assert complete["summary"] == {"total": 5, "generated": 4, "failed": 1}
    assert complete["errors"][0]["index"] == 3
    assert "The AI provider failed" in complete["errors"][0]["message"]
    assert "post_3_post_ids" not in names(events)
    assert count(store, Post) == 4
    assert posts_used(store) == 4


def test_batch_regenerates_only_the_listed_drafts(
    client: TestClient, store: Store, headers: dict[str, str], fake_ai: FakeAI
) -> None:
    complete = only(
        stream(client, f"generate-batch-posts/{store.workspace_id}", headers, {"userInput": "x"}),
        "batch_complete",
    ).data
    chosen = [complete["posts"][1]["postId"], complete["posts"][3]["postId"]]
    fake_ai.post_reply = lambda _p: Reply(text="Regenerated text.")

    events = stream(
        client,
        f"generate-batch-posts/{store.workspace_id}",
        headers,
        {"userInput": "again", "postIds": chosen},
    )
    again = only(events, "batch_complete").data
    assert again["isRegeneration"] is True
    assert again["summary"] == {"total": 2, "generated": 2, "failed": 0}
    assert [p["postId"] for p in again["posts"]] == chosen
    assert [p["variationName"] for p in again["posts"]] == ["Educational", "Actionable"]
    assert count(store, Post) == 5
    contents = {pid: store.scalar(select(Post.content).where(Post.id == pid)) for pid in chosen}
    assert set(contents.values()) == {"Regenerated text."}
    assert count(store, PostVersion) == 7
    assert posts_used(store) == 7


def test_batch_regeneration_refuses_ids_that_are_not_drafts_here(
    client: TestClient, store: Store, headers: dict[str, str], fake_ai: FakeAI
) -> None:
    draft = store.post("draft")
    published = store.post("live", status=PostStatus.PUBLISHED)
    elsewhere = store.post("theirs", workspace_id=store.workspace("B"))
    response = client.post(
        f"{BASE}/generate-batch-posts/{store.workspace_id}",
        headers=headers,
        json={"userInput": "x", "postIds": [draft.id, published.id, elsewhere.id, "ghost"]},
    )
    assert response.status_code == 400
    assert response.json()["message"] == (
        f"Some posts not found or not in draft status: {published.id}, {elsewhere.id}, ghost"
    )
    assert fake_ai.server.requests == []
    assert posts_used(store) == 0


def test_batch_refuses_when_the_quota_is_short_before_any_work(
    client: TestClient, store: Store, headers: dict[str, str], fake_ai: FakeAI
) -> None:
    with transaction(store.engine) as session:
        set_post_quota(session, store.workspace_id, 4)
    response = client.post(
        f"{BASE}/generate-batch-posts/{store.workspace_id}",
        headers=headers,
        json={"userInput": "x"},
    )
    assert response.status_code == 403
    assert response.json() == {
        "success": False,
        "message": "Post quota exceeded: 5 requested, 4 left of 4",
    }
    assert fake_ai.server.requests == []
    assert count(store, Post) == 0


@pytest.mark.parametrize(
    ("key", "body", "message"),
    [
        (None, {"userInput": "x"}, "API key required: send it in the x-api-key header"),
        ("sgk_wrong", {"userInput": "x"}, "Invalid API key"),
        ("valid", {}, "userInput is required"),
    ],
)
def test_batch_answers_400_for_a_bad_key_or_missing_input(
    client: TestClient, store: Store, fake_ai: FakeAI, key: str | None, body: Any, message: str
) -> None:
    headers = {"x-api-key": store.api_key() if key == "valid" else key} if key else {}
    response = client.post(
        f"{BASE}/generate-batch-posts/{store.workspace_id}", headers=headers, json=body
    )
    assert response.status_code == 400
    assert response.json() == {"success": False, "message": message}


def test_chat_and_post_refuse_a_missing_key_with_401(client: TestClient, store: Store) -> None:
    for path in ("chat", "generate-post"):
        response = client.post(f"{BASE}/{path}/{store.workspace_id}", json={"userInput": "x"})
        assert response.status_code == 401


def test_batch_variations_run_concurrently(
    client: TestClient, store: Store, headers: dict[str, str], fake_ai: FakeAI
) -> None:
    import time

    fake_ai.post_reply = lambda _p: Reply(text=POST_TEXT, chunk_chars=8, token_delay=0.02)

    def fastest(path: str, body: dict[str, str]) -> float:
        """The faster of two runs: a pause of the machine's shows in one run, a batch
        written one draft after another in both."""
        times = []
        for _ in range(2):
            started = time.perf_counter()
            stream(client, f"{path}/{store.workspace_id}", headers, body)
            times.append(time.perf_counter() - started)
        return min(times)

    single = fastest("generate-post", {"userInput": "one"})
    batch = fastest("generate-batch-posts", {"userInput": "five"})
    assert batch < 3 * single, (batch, single)  # one after another would take 5x
