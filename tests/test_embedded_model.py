"""End to end on the REAL embedded model (SmolLM2-135M-Instruct through llama.cpp), no
fake provider: the CLI's post, chat and batch, and generate-post over HTTP SSE.

The tiny model's words are not predictable, so these tests check what must hold
whatever it writes: the event contract, how the stream ends, what is stored, the
quota, and that SOCIALGEN_MAX_TOKENS bounds the answer. Answers are kept to 40
tokens so the file stays well under a minute and a half on two cores.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from typer.testing import CliRunner, Result

from socialgen.app.runtime import Runtime
from socialgen.cli.events import BETTER_MODEL_HINT
from socialgen.cli.main import app
from socialgen.store.engine import read_session
from socialgen.store.tables import Conversation, Message, Post, PostStatus
from socialgen.workspaces.service import get_usage
from tests.conftest import Store
from tests.generation_support import SseEvent, check_contract, names, parse_sse

MAX_TOKENS = 40
VARIATIONS = ["Story-driven", "Educational", "Thought-provoking", "Actionable", "Conversational"]

runner = CliRunner()


@pytest.fixture(autouse=True)
def _embedded_model(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SOCIALGEN_MODEL", "SOCIALGEN_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SOCIALGEN_MAX_TOKENS", str(MAX_TOKENS))


def run_json(*args: str) -> tuple[Result, list[SseEvent]]:
    result = runner.invoke(app, [*args, "--json"])
    assert "Traceback" not in result.output, result.output
    assert BETTER_MODEL_HINT not in result.output  # for a person, never in --json
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    events = []
    for line in result.stdout.splitlines():
        record = json.loads(line)
        assert set(record) == {"event", "data"}, line
        events.append(SseEvent(record["event"], record["data"]))
    check_contract(events)
    return result, events


def only(events: list[SseEvent], name: str) -> SseEvent:
    found = [e for e in events if e.name == name]
    assert len(found) == 1, names(events)
    return found[0]


def count(store: Store, model: Any) -> int:
    return int(store.scalar(sa.select(sa.func.count()).select_from(model)))


def posts_used(store: Store) -> int:
    with read_session(store.engine) as session:
        return get_usage(session, store.workspace_id).posts_used


def load_post(store: Store, post_id: str) -> Post:
    with read_session(store.engine) as session:
        post = session.get(Post, post_id)
    assert post is not None, post_id
    return post


def test_the_embedded_model_is_the_default() -> None:

    model = Runtime().text_model()
    assert model.name.startswith("local/") and model.name.endswith(".gguf (embedded)")


def test_post_writes_and_stores_a_draft(store: Store) -> None:
    result, events = run_json("post", "why small teams ship weekly")

    assert result.exit_code == 0, result.output
    assert names(events)[-1] == "post_ids", names(events)
    assert set(names(events)) == {"chat_delta", "post_ids"}
    deltas = [e.data["text"] for e in events if e.name == "chat_delta"]
    assert "".join(deltas).strip()
    assert len(deltas) <= MAX_TOKENS  # one chunk per token at most: the limit held
    ids = only(events, "post_ids").data
    post = load_post(store, ids["postId"])
    assert post.status == PostStatus.DRAFT
    assert post.content.strip()
    assert post.conversation_id == ids["conversationId"]
    assert count(store, Post) == 1
    assert posts_used(store) == 1


def test_in_the_terminal_a_post_ends_with_the_way_to_a_better_model(store: Store) -> None:
    result = runner.invoke(app, ["post", "why small teams ship weekly"])

    assert result.exit_code == 0, result.output
    assert result.stdout.strip()  # the post itself
    assert result.stderr.strip().splitlines()[-1] == BETTER_MODEL_HINT
    assert result.stderr.count(BETTER_MODEL_HINT) == 1


def test_chat_ends_with_an_answer_or_a_post(store: Store) -> None:
    result, events = run_json("chat", "What is a good hook for a LinkedIn post?")

    assert result.exit_code == 0, result.output
    order = names(events)
    assert "error" not in order, events
    assert order[-1] in ("chat_response", "post_ids"), order
    if order[-1] == "chat_response":
        final = only(events, "chat_response").data
        streamed = "".join(e.data["text"] for e in events if e.name == "chat_delta")
        assert final["response"] == streamed.strip()
        assert [m["role"] for m in final["conversationHistory"]] == ["user", "assistant"]
        assert count(store, Post) == 0
        assert posts_used(store) == 0
    else:
        ids = only(events, "post_ids").data
        accumulated = [e.data["accumulated"] for e in events if e.name == "content_delta"]
        assert accumulated and accumulated[-1].strip()
        assert load_post(store, ids["postId"]).status == PostStatus.DRAFT
        assert posts_used(store) == 1
    assert count(store, Conversation) == 1
    assert count(store, Message) == 2


def test_batch_writes_five_variations(store: Store) -> None:
    result, events = run_json("batch", "weekly releases")

    complete = only(events, "batch_complete").data
    summary = complete["summary"]
    assert summary["total"] == 5
    assert summary["generated"] >= 1
    assert summary["generated"] + summary["failed"] == 5
    assert result.exit_code == (0 if summary["failed"] == 0 else 1), result.output
    assert complete["originalPrompt"] == "weekly releases"
    assert complete["isRegeneration"] is False
    assert len(complete["posts"]) == summary["generated"]
    assert len(complete["errors"]) == summary["failed"]
    for failure in complete["errors"]:  # only a clear message, never an unexpected failure
        assert failure["message"].strip()
        assert "unexpectedly" not in failure["message"]
    assert {p["variationName"] for p in complete["posts"]} <= set(VARIATIONS)
    for item in complete["posts"]:
        post = load_post(store, item["postId"])
        assert post.status == PostStatus.DRAFT
        assert post.content == item["content"]
        assert post.content.strip()
    progress = [e.data for e in events if e.name == "batch_progress"]
    assert sorted({p["variationName"] for p in progress}) == sorted(VARIATIONS)
    assert count(store, Post) == summary["generated"]
    assert posts_used(store) == summary["generated"]


def test_generate_post_over_http_sse(client: TestClient, store: Store) -> None:
    response = client.post(
        f"/api/v1/ai-conversation/generate-post/{store.workspace_id}",
        headers={"x-api-key": store.api_key(), "Accept": "text/event-stream"},
        json={"userInput": "why small teams ship weekly"},
    )

    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/event-stream")
    events = parse_sse(response.text)
    check_contract(events)
    assert names(events)[-1] == "post_ids", names(events)
    assert "error" not in names(events)
    assert "".join(e.data["text"] for e in events if e.name == "chat_delta").strip()
    ids = only(events, "post_ids").data
    post = load_post(store, ids["postId"])
    assert post.status == PostStatus.DRAFT
    assert post.content.strip()
    assert post.conversation_id == ids["conversationId"]
    assert posts_used(store) == 1
