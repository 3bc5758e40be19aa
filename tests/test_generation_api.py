"""Chat, generate-post and generate-batch-posts over SSE, the app given the scripted
model (`ai_client`). The provider's timeout is litellm's: that one test stays on the
fake provider behind litellm (`fake_ai`)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func
from sqlmodel import select

from socialgen.app.runtime import Runtime
from socialgen.http.server import create_app
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import Conversation, Message, Post, PostStatus, PostVersion
from socialgen.workspaces.service import get_usage, set_post_quota
from tests.conftest import Store
from tests.doubles.scripted_model import CutOff, Reply, ScriptedCall, Streamed
from tests.fakes.openai_server import FakeOpenAI
from tests.fakes.openai_server import Reply as WireReply
from tests.generation_support import SseEvent, check_contract, names, parse_sse
from tests.scripted_support import CHAT_TEXT, POST_TEXT, ScriptedAI, provider_failure, variation_of

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
    ai_client: TestClient, store: Store, headers: dict[str, str], scripted_ai: ScriptedAI
) -> None:
    scripted_ai.intent = "chat"
    events = stream(
        ai_client, f"chat/{store.workspace_id}", headers, {"userInput": "What is a hook?"}
    )

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
        ai_client,
        f"chat/{store.workspace_id}",
        headers,
        {"userInput": "And a good ending?", "conversationId": final["conversationId"]},
    )
    again = only(events, "chat_response").data
    assert again["conversationId"] == final["conversationId"]
    assert len(again["conversationHistory"]) == 4
    last_chat = scripted_ai.model.calls_for("chat")[-1]
    contents = [m["content"] for m in last_chat.messages]
    assert "What is a hook?" in contents and CHAT_TEXT in contents


def test_chat_writes_a_post_when_asked(
    ai_client: TestClient, store: Store, headers: dict[str, str], scripted_ai: ScriptedAI
) -> None:
    events = stream(
        ai_client,
        f"chat/{store.workspace_id}",
        headers,
        {"userInput": "Write a post about Fridays"},
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
    ai_client: TestClient, store: Store, headers: dict[str, str], scripted_ai: ScriptedAI
) -> None:
    scripted_ai.intent = "chat"
    scripted_ai.chat_reply = lambda _call: Streamed(CHAT_TEXT, reasoning="Think about hooks first.")
    events = stream(ai_client, f"chat/{store.workspace_id}", headers, {"userInput": "Hooks?"})
    order = names(events)
    assert order[0] == "reasoning_started"
    first_delta = order.index("chat_delta")
    assert order[first_delta - 1] == "reasoning_ended"
    assert set(order[1 : first_delta - 1]) == {"reasoning_delta"}
    reasoning = "".join(e.data["text"] for e in events if e.name == "reasoning_delta")
    assert reasoning == "Think about hooks first."


# --- generate-post -------------------------------------------------------------------


def test_generate_post_streams_and_saves_a_draft(
    ai_client: TestClient, store: Store, headers: dict[str, str], scripted_ai: ScriptedAI
) -> None:
    events = stream(
        ai_client, f"generate-post/{store.workspace_id}", headers, {"userInput": "shipping weekly"}
    )
    assert names(events)[-1] == "post_ids"
    assert "".join(e.data["text"] for e in events if e.name == "chat_delta") == POST_TEXT
    ids = only(events, "post_ids").data
    assert ids["refinementQuestions"] == ["Who is it for?", "What changed?", "Any numbers?"]
    assert store.scalar(select(Post.content).where(Post.id == ids["postId"])) == POST_TEXT
    system = scripted_ai.calls_for("post")[0].messages[0]["content"]
    assert "No markdown" in system and "3000" in system


def test_generate_post_with_post_id_adds_a_version_in_its_conversation(
    ai_client: TestClient, store: Store, headers: dict[str, str], scripted_ai: ScriptedAI
) -> None:
    first = only(
        stream(ai_client, f"generate-post/{store.workspace_id}", headers, {"userInput": "v1"}),
        "post_ids",
    ).data
    scripted_ai.post_reply = lambda _call: "A sharper second version of the post."
    second = only(
        stream(
            ai_client,
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
    history = [m["content"] for m in scripted_ai.calls_for("post")[-1].messages]
    assert "v1" in history  # the conversation so far was the model's context


def test_markdown_from_the_model_is_made_linkedin_plain(
    ai_client: TestClient, store: Store, headers: dict[str, str], scripted_ai: ScriptedAI
) -> None:
    scripted_ai.post_reply = lambda _call: "# Big news\n\nWe **ship** weekly. Do you?"
    ids = only(
        stream(ai_client, f"generate-post/{store.workspace_id}", headers, {"userInput": "news"}),
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
    ai_client: TestClient,
    store: Store,
    headers: dict[str, str],
    scripted_ai: ScriptedAI,
    body: dict[str, Any],
    status: int,
    message: str,
) -> None:
    response = ai_client.post(
        f"{BASE}/generate-post/{store.workspace_id}", headers=headers, json=body
    )
    assert (response.status_code, response.json()) == (
        status,
        {"success": False, "message": message},
    )
    assert scripted_ai.calls == []
    assert count(store, Conversation) == 0
    assert posts_used(store) == 0


def test_generate_post_of_another_workspaces_post_is_not_found(
    ai_client: TestClient, store: Store, scripted_ai: ScriptedAI
) -> None:
    other = store.workspace("B")
    post = store.post("A's post")
    response = ai_client.post(
        f"{BASE}/generate-post/{other}",
        headers={"x-api-key": store.api_key(other)},
        json={"userInput": "x", "postId": post.id},
    )
    assert (response.status_code, response.json()["message"]) == (404, "Post not found")
    response = ai_client.post(
        f"{BASE}/generate-post/{other}",
        headers={"x-api-key": store.api_key(other)},
        json={"userInput": "x", "conversationId": post.conversation_id},
    )
    assert (response.status_code, response.json()["message"]) == (404, "Conversation not found")
    assert scripted_ai.calls == []


@pytest.mark.parametrize(
    ("reply", "fragment"),
    [
        (provider_failure("upstream exploded"), "The AI provider failed"),
        (CutOff(POST_TEXT[:12], provider_failure("connection dropped")), "The AI provider failed"),
        ("", "empty post"),
    ],
    ids=["provider-500", "cut-stream", "empty-answer"],
)
def test_a_failed_generation_is_an_error_event_and_leaves_nothing(
    ai_client: TestClient,
    store: Store,
    headers: dict[str, str],
    scripted_ai: ScriptedAI,
    reply: Reply,
    fragment: str,
) -> None:
    scripted_ai.post_reply = lambda _call: reply
    events = stream(ai_client, f"generate-post/{store.workspace_id}", headers, {"userInput": "x"})
    assert names(events)[-1] == "error"
    assert fragment in events[-1].data["message"]
    assert count(store, Post) == 0
    assert count(store, Conversation) == 0
    assert posts_used(store) == 0  # the reserved post was given back


def test_a_provider_timeout_is_an_error_event(
    client: TestClient,
    store: Store,
    headers: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On the wire (the fake OpenAI server behind litellm): the timeout is litellm's,
    the `timeout` setting handed to it by ai/remote.py; no layer above it times out."""
    slow = FakeOpenAI(responder=lambda _body: WireReply(text=POST_TEXT, first_delay=3))
    with slow:
        for name, value in slow.env().items():  # the configured provider: this server
            monkeypatch.setenv(name, value)
        monkeypatch.setenv("SOCIALGEN_TIMEOUT", "0.5")
        # The server reads its settings at start: this one starts configured.
        with TestClient(create_app(Runtime())) as configured:
            path = f"generate-post/{store.workspace_id}"
            events = stream(configured, path, headers, {"userInput": "x"})
    assert names(events) == ["error"]
    assert "Timeout" in only(events, "error").data["message"]  # keep-alives may come first
    assert count(store, Post) == 0


def test_keepalive_pings_while_the_model_is_quiet(
    store: Store,
    headers: dict[str, str],
    scripted_ai: ScriptedAI,
) -> None:
    scripted_ai.post_reply = lambda _call: Streamed(POST_TEXT, first_delay=0.4)
    runtime = scripted_ai.runtime().derived(keepalive_seconds=0.05)  # the setting, handed in
    with TestClient(create_app(runtime)) as client:
        events = stream(client, f"generate-post/{store.workspace_id}", headers, {"userInput": "x"})
    pings = [e for e in events if e.name == "keepalive"]
    assert len(pings) >= 3
    assert all(p.data == {"ping": True} for p in pings)
    assert names(events)[-1] == "post_ids"


# --- batch ---------------------------------------------------------------------------


def test_batch_creates_five_named_drafts(
    ai_client: TestClient, store: Store, headers: dict[str, str], scripted_ai: ScriptedAI
) -> None:
    scripted_ai.post_reply = lambda call: f"Post for: {call.prompt.splitlines()[1][:60]}"
    events = stream(
        ai_client,
        f"generate-batch-posts/{store.workspace_id}",
        headers,
        {"userInput": "ship weekly"},
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
    ai_client: TestClient, store: Store, headers: dict[str, str], scripted_ai: ScriptedAI
) -> None:
    def reply(call: ScriptedCall) -> Reply:
        return provider_failure() if variation_of(call) == "Thought-provoking" else POST_TEXT

    scripted_ai.post_reply = reply
    events = stream(
        ai_client, f"generate-batch-posts/{store.workspace_id}", headers, {"userInput": "x"}
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
    ai_client: TestClient, store: Store, headers: dict[str, str], scripted_ai: ScriptedAI
) -> None:
    complete = only(
        stream(
            ai_client, f"generate-batch-posts/{store.workspace_id}", headers, {"userInput": "x"}
        ),
        "batch_complete",
    ).data
    chosen = [complete["posts"][1]["postId"], complete["posts"][3]["postId"]]
    scripted_ai.post_reply = lambda _call: "Regenerated text."

    events = stream(
        ai_client,
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
    ai_client: TestClient, store: Store, headers: dict[str, str], scripted_ai: ScriptedAI
) -> None:
    draft = store.post("draft")
    published = store.post("live", status=PostStatus.PUBLISHED)
    elsewhere = store.post("theirs", workspace_id=store.workspace("B"))
    response = ai_client.post(
        f"{BASE}/generate-batch-posts/{store.workspace_id}",
        headers=headers,
        json={"userInput": "x", "postIds": [draft.id, published.id, elsewhere.id, "ghost"]},
    )
    assert response.status_code == 400
    assert response.json()["message"] == (
        f"Some posts not found or not in draft status: {published.id}, {elsewhere.id}, ghost"
    )
    assert scripted_ai.calls == []
    assert posts_used(store) == 0


def test_batch_refuses_when_the_quota_is_short_before_any_work(
    ai_client: TestClient, store: Store, headers: dict[str, str], scripted_ai: ScriptedAI
) -> None:
    with transaction(store.engine) as session:
        set_post_quota(session, store.workspace_id, 4)
    response = ai_client.post(
        f"{BASE}/generate-batch-posts/{store.workspace_id}",
        headers=headers,
        json={"userInput": "x"},
    )
    assert response.status_code == 403
    assert response.json() == {
        "success": False,
        "message": "Post quota exceeded: 5 requested, 4 left of 4",
    }
    assert scripted_ai.calls == []
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
    ai_client: TestClient,
    store: Store,
    scripted_ai: ScriptedAI,
    key: str | None,
    body: Any,
    message: str,
) -> None:
    headers = {"x-api-key": store.api_key() if key == "valid" else key} if key else {}
    response = ai_client.post(
        f"{BASE}/generate-batch-posts/{store.workspace_id}", headers=headers, json=body
    )
    assert response.status_code == 400
    assert response.json() == {"success": False, "message": message}
    assert scripted_ai.calls == []


def test_chat_and_post_refuse_a_missing_key_with_401(ai_client: TestClient, store: Store) -> None:
    for path in ("chat", "generate-post"):
        response = ai_client.post(f"{BASE}/{path}/{store.workspace_id}", json={"userInput": "x"})
        assert response.status_code == 401


def test_batch_variations_run_concurrently(
    ai_client: TestClient, store: Store, headers: dict[str, str], scripted_ai: ScriptedAI
) -> None:
    import time

    scripted_ai.model.chunk_chars = 8
    scripted_ai.post_reply = lambda _call: Streamed(POST_TEXT, chunk_delay=0.02)

    def fastest(path: str, body: dict[str, str]) -> float:
        """The faster of two runs: a pause of the machine's shows in one run, a batch
        written one draft after another in both."""
        times = []
        for _ in range(2):
            started = time.perf_counter()
            stream(ai_client, f"{path}/{store.workspace_id}", headers, body)
            times.append(time.perf_counter() - started)
        return min(times)

    single = fastest("generate-post", {"userInput": "one"})
    batch = fastest("generate-batch-posts", {"userInput": "five"})
    assert batch < 3 * single, (batch, single)  # one after another would take 5x
