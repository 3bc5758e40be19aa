"""`socialgen post`, `socialgen chat` and `socialgen batch`, driven through the real CLI
app with the scripted model in place of the configured one (`scripted_ai.invoke`; the
wire to a provider is tested in tests/test_ai_*).

With --json every line of stdout is one event {"event": ..., "data": ...}; those are
checked against SPEC.md's event contract exactly as the SSE versions are.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import sqlalchemy as sa
from sqlmodel import SQLModel, col, select
from typer.testing import Result

from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import Conversation, Message, Post, PostStatus, PostVersion
from socialgen.workspaces.service import get_usage, set_post_quota
from tests.conftest import Store
from tests.doubles.scripted_model import Reply, ScriptedCall
from tests.generation_support import SseEvent, check_contract, names
from tests.scripted_support import CHAT_TEXT, POST_TEXT, ScriptedAI, provider_failure, variation_of

VARIATIONS = ["Story-driven", "Educational", "Thought-provoking", "Actionable", "Conversational"]
QUESTIONS = ["Who is it for?", "What changed?", "Any numbers?"]
TOPIC = "why small teams ship weekly"


# --------------------------------------------------------------------------- helpers
# click >= 8.2 keeps stdout and stderr apart (result.stdout / result.stderr) and
# result.output interleaves both.


def no_traceback(result: Result) -> None:
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )


def events_of(result: Result) -> list[SseEvent]:
    """stdout of a --json run as events, checked against SPEC.md's contract."""
    events = []
    for line in result.stdout.splitlines():
        record = json.loads(line)
        assert set(record) == {"event", "data"}, line
        events.append(SseEvent(record["event"], record["data"]))
    check_contract(events)
    return events


def stream(ai: ScriptedAI, *args: str) -> list[SseEvent]:
    result = ai.invoke([*args, "--json"])
    assert result.exit_code == 0, result.output
    no_traceback(result)
    return events_of(result)


def only(events: list[SseEvent], name: str) -> SseEvent:
    found = [e for e in events if e.name == name]
    assert len(found) == 1, names(events)
    return found[0]


def count(store: Store, model: Any, *where: Any) -> int:
    return int(store.scalar(sa.select(sa.func.count()).select_from(model).where(*where)))


def posts_used(store: Store) -> int:
    with read_session(store.engine) as session:
        return get_usage(session, store.workspace_id).posts_used


def load_post(store: Store, post_id: str) -> Post:
    with read_session(store.engine) as session:
        post = session.get(Post, post_id)
    assert post is not None, post_id
    return post


def messages(store: Store) -> list[tuple[str, str, str]]:
    """Every stored message as (conversation id, role, content), in order."""
    with read_session(store.engine) as session:
        rows = session.exec(
            select(Message).order_by(col(Message.created_at), col(Message.id))
        ).all()
        return [(m.conversation_id, m.role, m.content) for m in rows]


def snapshot(store: Store) -> dict[str, list[str]]:
    """Every row of every table, to prove a refused command changed nothing."""
    with store.engine.connect() as connection:
        return {
            table.name: sorted(repr(tuple(row)) for row in connection.execute(sa.select(table)))
            for table in SQLModel.metadata.sorted_tables
        }


def variation_reply(call: ScriptedCall) -> Reply:
    """A post naming the variation its prompt asked for."""
    return f"{variation_of(call)} draft about shipping."


# --------------------------------------------------------------------------- post


def test_post_json_streams_and_saves_a_draft(store: Store, scripted_ai: ScriptedAI) -> None:
    events = stream(scripted_ai, "post", TOPIC)

    assert set(names(events)) == {"chat_delta", "post_ids"}
    assert names(events)[-1] == "post_ids"
    assert len([e for e in events if e.name == "chat_delta"]) > 3  # streamed, not one blob
    assert "".join(e.data["text"] for e in events if e.name == "chat_delta") == POST_TEXT
    ids = only(events, "post_ids").data
    assert ids["refinementQuestions"] == QUESTIONS
    post = load_post(store, ids["postId"])
    assert (post.status, post.content, post.conversation_id) == (
        PostStatus.DRAFT,
        POST_TEXT,
        ids["conversationId"],
    )
    assert messages(store) == [
        (ids["conversationId"], "user", TOPIC),
        (ids["conversationId"], "assistant", POST_TEXT),
    ]
    assert count(store, Post) == 1
    assert count(store, PostVersion) == 1
    assert posts_used(store) == 1
    assert TOPIC in scripted_ai.calls_for("post")[0].prompt


def test_post_with_post_id_adds_a_version(store: Store, scripted_ai: ScriptedAI) -> None:
    first = only(stream(scripted_ai, "post", TOPIC), "post_ids").data
    scripted_ai.post_reply = lambda _call: "A sharper second version of the post."

    second = only(
        stream(scripted_ai, "post", "make it sharper", "--post", first["postId"]), "post_ids"
    ).data

    assert (second["postId"], second["conversationId"]) == (
        first["postId"],
        first["conversationId"],
    )
    assert load_post(store, first["postId"]).content == "A sharper second version of the post."
    assert count(store, Post) == 1
    assert count(store, PostVersion) == 2
    assert count(store, Conversation) == 1
    assert posts_used(store) == 2
    sent = [m["content"] for m in scripted_ai.calls_for("post")[-1].messages]
    assert TOPIC in sent and POST_TEXT in sent  # the conversation so far was the context


def test_post_with_conversation_continues_it(store: Store, scripted_ai: ScriptedAI) -> None:
    first = only(stream(scripted_ai, "post", TOPIC), "post_ids").data
    scripted_ai.post_reply = lambda _call: "Shorter: we ship weekly."

    second = only(
        stream(scripted_ai, "post", "shorter please", "--conversation", first["conversationId"]),
        "post_ids",
    ).data

    assert second["conversationId"] == first["conversationId"]
    assert second["postId"] == first["postId"]  # the draft the conversation refines
    assert count(store, Conversation) == 1
    assert count(store, Post) == 1
    assert load_post(store, first["postId"]).content == "Shorter: we ship weekly."
    cid = first["conversationId"]
    assert messages(store) == [
        (cid, "user", TOPIC),
        (cid, "assistant", POST_TEXT),
        (cid, "user", "shorter please"),
        (cid, "assistant", "Shorter: we ship weekly."),
    ]
    sent = [m["content"] for m in scripted_ai.calls_for("post")[-1].messages]
    assert TOPIC in sent and POST_TEXT in sent


REFUSALS = [
    # The CLI repeats what was asked (its ids and names: tests/test_cli_refs.py).
    (["post", "x", "--post", "nope00"], "Post not found: nope00"),
    (["post", "x", "--conversation", "nope00"], "Conversation not found: nope00"),
    (["post", "x", "--style", "nope"], "Content style not found: nope"),
    (["chat", "x", "--conversation", "nope00"], "Conversation not found: nope00"),
    (["chat", "x", "--style", "nope"], "Content style not found: nope"),
    (["batch", "x", "--style", "nope"], "Content style not found: nope"),
    (["batch", "x", "--regenerate", "ghost"], "Some posts not found or not in draft status: ghost"),
    (["batch", "ship", "weekly"], "Unexpected arguments weekly: quote the topic"),
]


@pytest.mark.parametrize(("args", "message"), REFUSALS, ids=[" ".join(a) for a, _ in REFUSALS])
def test_refusals_exit_1_with_the_message_and_store_nothing(
    store: Store, scripted_ai: ScriptedAI, args: list[str], message: str
) -> None:
    before = snapshot(store)

    as_json = scripted_ai.invoke([*args, "--json"])
    assert as_json.exit_code == 1, as_json.output
    no_traceback(as_json)
    assert as_json.stderr == ""
    assert json.loads(as_json.stdout) == {"success": False, "message": message}

    for_a_person = scripted_ai.invoke(args)
    assert for_a_person.exit_code == 1, for_a_person.output
    no_traceback(for_a_person)
    assert f"Error: {message}" in for_a_person.stderr
    assert message not in for_a_person.stdout

    assert snapshot(store) == before
    assert scripted_ai.calls == []


@pytest.mark.parametrize("json_output", [True, False], ids=["json", "human"])
def test_post_provider_failure_exits_1_and_leaves_nothing(
    store: Store, scripted_ai: ScriptedAI, json_output: bool
) -> None:
    scripted_ai.post_reply = lambda _call: provider_failure("upstream exploded")

    result = scripted_ai.invoke(["post", TOPIC, *(["--json"] if json_output else [])])

    assert result.exit_code == 1, result.output
    no_traceback(result)
    if json_output:
        events = events_of(result)
        assert names(events) == ["error"]
        assert events[0].data["message"].startswith("The AI provider failed")
        assert "upstream exploded" in events[0].data["message"]
    else:
        assert "Error: The AI provider failed" in result.stderr
        assert "Saved draft" not in result.stderr
    assert len(scripted_ai.calls_for("post")) == 1  # it did reach the provider
    assert count(store, Post) == 0
    assert count(store, Conversation) == 0
    assert count(store, Message) == 0
    assert posts_used(store) == 0  # the reserved post was given back


def test_post_for_a_person_prints_the_post_and_saved_draft(
    store: Store, scripted_ai: ScriptedAI
) -> None:
    result = scripted_ai.invoke(["post", TOPIC])

    assert result.exit_code == 0, result.output
    no_traceback(result)
    assert result.stdout == POST_TEXT + "\n"
    with read_session(store.engine) as session:
        post = session.exec(select(Post)).one()
    assert post.content == POST_TEXT
    assert f"Saved draft {post.id} (conversation {post.conversation_id})" in result.stderr
    assert f"model: {scripted_ai.model.name}" in result.stderr
    for question in QUESTIONS:
        assert question in result.stderr
    assert POST_TEXT not in result.stderr


# --------------------------------------------------------------------------- chat


def test_chat_json_answers_a_question(store: Store, scripted_ai: ScriptedAI) -> None:
    scripted_ai.intent = "chat"

    events = stream(scripted_ai, "chat", "What is a good hook?")

    assert set(names(events)) == {"chat_delta", "chat_response"}
    assert names(events)[-1] == "chat_response"
    final = only(events, "chat_response").data
    assert "".join(e.data["text"] for e in events if e.name == "chat_delta") == CHAT_TEXT
    assert final["response"] == CHAT_TEXT
    assert final["suggestedQuestions"] == QUESTIONS
    assert [(m["role"], m["content"]) for m in final["conversationHistory"]] == [
        ("user", "What is a good hook?"),
        ("assistant", CHAT_TEXT),
    ]
    assert messages(store) == [
        (final["conversationId"], "user", "What is a good hook?"),
        (final["conversationId"], "assistant", CHAT_TEXT),
    ]
    assert count(store, Post) == 0  # a question makes no post
    assert posts_used(store) == 0


def test_chat_json_writes_a_post_when_that_is_the_intent(
    store: Store, scripted_ai: ScriptedAI
) -> None:
    scripted_ai.intent = "post"

    events = stream(scripted_ai, "chat", "Write a post about Fridays")

    assert set(names(events)) == {"content_delta", "post_ids"}
    assert names(events)[-1] == "post_ids"
    deltas = [e.data for e in events if e.name == "content_delta"]
    assert len(deltas) > 3
    so_far = ""
    for delta in deltas:
        assert set(delta) == {"text", "accumulated"}
        so_far += delta["text"]
        assert delta["accumulated"] == so_far
    assert so_far == POST_TEXT
    ids = only(events, "post_ids").data
    post = load_post(store, ids["postId"])
    assert (post.status, post.content, post.conversation_id) == (
        PostStatus.DRAFT,
        POST_TEXT,
        ids["conversationId"],
    )
    assert posts_used(store) == 1


def test_interactive_chat_keeps_one_conversation(store: Store, scripted_ai: ScriptedAI) -> None:
    scripted_ai.intent = "chat"
    scripted_ai.chat_reply = lambda call: f"Answer to {call.prompt}."

    result = scripted_ai.invoke(["chat"], input="first question\nsecond question\n\n")

    assert result.exit_code == 0, result.output
    no_traceback(result)
    out = result.stdout
    assert "Answer to first question." in out and "Answer to second question." in out
    assert out.index("Answer to first question.") < out.index("Answer to second question.")
    assert count(store, Conversation) == 1
    stored = messages(store)
    assert len({cid for cid, _, _ in stored}) == 1
    assert [(role, content) for _, role, content in stored] == [
        ("user", "first question"),
        ("assistant", "Answer to first question."),
        ("user", "second question"),
        ("assistant", "Answer to second question."),
    ]
    # The second question went to the model with the first exchange as history.
    chats = scripted_ai.model.calls_for("chat")
    assert [m["content"] for m in chats[-1].messages[1:]] == [
        "first question",
        "Answer to first question.",
        "second question",
    ]
    assert count(store, Post) == 0


def test_interactive_chat_goes_on_after_a_failed_answer(
    store: Store, scripted_ai: ScriptedAI
) -> None:
    scripted_ai.intent = "chat"
    # The first answer fails, the next ones are written: by the order of the calls.
    failures = [provider_failure("boom")]
    scripted_ai.chat_reply = lambda call: (
        failures.pop() if failures else f"Answer to {call.prompt}."
    )

    result = scripted_ai.invoke(["chat"], input="first\nsecond\n")

    no_traceback(result)
    assert "Error: The AI provider failed" in result.stderr
    assert "Answer to second." in result.stdout
    assert [(role, content) for _, role, content in messages(store)] == [
        ("user", "second"),
        ("assistant", "Answer to second."),
    ]


# --------------------------------------------------------------------------- batch


def test_batch_json_writes_five_named_drafts(store: Store, scripted_ai: ScriptedAI) -> None:
    scripted_ai.post_reply = variation_reply

    events = stream(scripted_ai, "batch", "ship weekly")

    order = names(events)
    assert order[-2:] == ["batch_complete", "chat_delta"]
    for n, variation in enumerate(VARIATIONS, start=1):
        progress = [e.data for e in events if e.name == "batch_progress" and e.data["current"] == n]
        assert [p["status"] for p in progress] == ["generating", "completed"]
        assert {p["variationName"] for p in progress} == {variation}
        assert f"post_{n}_post_ids" in order
    complete = only(events, "batch_complete").data
    assert complete["success"] is True
    assert complete["isRegeneration"] is False
    assert complete["originalPrompt"] == "ship weekly"
    assert complete["summary"] == {"total": 5, "generated": 5, "failed": 0}
    assert complete["errors"] == []
    assert [p["variationName"] for p in complete["posts"]] == VARIATIONS
    assert [p["content"] for p in complete["posts"]] == [
        f"{v} draft about shipping." for v in VARIATIONS
    ]
    for item in complete["posts"]:
        post = load_post(store, item["postId"])
        assert (post.status, post.content, post.conversation_id, post.variation_name) == (
            PostStatus.DRAFT,
            item["content"],
            item["conversationId"],
            item["variationName"],
        )
    assert events[-1].data["text"] == "Generated 5 of 5 posts as drafts."
    assert count(store, Post) == 5
    assert posts_used(store) == 5


def test_batch_regenerates_only_the_listed_drafts(store: Store, scripted_ai: ScriptedAI) -> None:
    scripted_ai.post_reply = variation_reply
    first = only(stream(scripted_ai, "batch", "ship weekly"), "batch_complete").data
    chosen = [first["posts"][1]["postId"], first["posts"][3]["postId"]]
    untouched = {p["postId"]: p["content"] for p in first["posts"] if p["postId"] not in chosen}
    scripted_ai.post_reply = lambda _call: "Regenerated text."

    events = stream(scripted_ai, "batch", "again", "--regenerate", chosen[0], chosen[1])

    again = only(events, "batch_complete").data
    assert again["isRegeneration"] is True
    assert again["originalPrompt"] == "again"
    assert again["summary"] == {"total": 2, "generated": 2, "failed": 0}
    assert [p["postId"] for p in again["posts"]] == chosen
    assert [p["variationName"] for p in again["posts"]] == ["Educational", "Actionable"]
    assert len(scripted_ai.calls_for("post")) == 7
    assert count(store, Post) == 5
    for post_id in chosen:
        assert load_post(store, post_id).content == "Regenerated text."
    for post_id, content in untouched.items():
        assert load_post(store, post_id).content == content
    assert count(store, PostVersion) == 7
    assert posts_used(store) == 7


def test_batch_with_a_failing_variation_exits_1(store: Store, scripted_ai: ScriptedAI) -> None:
    def reply(call: ScriptedCall) -> Reply:
        return provider_failure() if variation_of(call) == "Actionable" else POST_TEXT

    scripted_ai.post_reply = reply

    result = scripted_ai.invoke(["batch", "ship weekly", "--json"])

    assert result.exit_code == 1, result.output
    no_traceback(result)
    events = events_of(result)
    failed = [e.data for e in events if e.name == "batch_progress" and e.data["status"] == "failed"]
    assert [f["variationName"] for f in failed] == ["Actionable"]
    complete = only(events, "batch_complete").data
    assert complete["success"] is True
    assert complete["summary"] == {"total": 5, "generated": 4, "failed": 1}
    assert [(e["index"], e["variationName"]) for e in complete["errors"]] == [(4, "Actionable")]
    assert "The AI provider failed" in complete["errors"][0]["message"]
    assert [p["variationName"] for p in complete["posts"]] == [
        v for v in VARIATIONS if v != "Actionable"
    ]
    assert "post_4_post_ids" not in names(events)
    assert count(store, Post) == 4
    assert posts_used(store) == 4


def test_batch_over_the_quota_is_refused_before_any_work(
    store: Store, scripted_ai: ScriptedAI
) -> None:
    with transaction(store.engine) as session:
        set_post_quota(session, store.workspace_id, 4)

    result = scripted_ai.invoke(["batch", "ship weekly", "--json"])

    assert result.exit_code == 1, result.output
    no_traceback(result)
    assert result.stderr == ""
    assert json.loads(result.stdout) == {
        "success": False,
        "message": "Post quota exceeded: 5 requested, 4 left of 4",
    }
    assert scripted_ai.calls == []
    assert count(store, Post) == 0
    assert posts_used(store) == 0

    for_a_person = scripted_ai.invoke(["batch", "ship weekly"])
    assert for_a_person.exit_code == 1
    no_traceback(for_a_person)
    assert "Error: Post quota exceeded" in for_a_person.stderr
    assert scripted_ai.calls == []


def test_batch_for_a_person_prints_the_five_drafts(store: Store, scripted_ai: ScriptedAI) -> None:
    scripted_ai.post_reply = variation_reply

    result = scripted_ai.invoke(["batch", "ship weekly"])

    assert result.exit_code == 0, result.output
    no_traceback(result)
    for n, variation in enumerate(VARIATIONS, start=1):
        assert f"{n}. {variation}" in result.stdout
        assert f"{variation} draft about shipping." in result.stdout
    assert "5 of 5 drafts saved." in result.stderr
    assert "failed" not in result.stderr
    assert count(store, Post) == 5


def test_batch_for_a_person_reports_a_failed_variation(
    store: Store, scripted_ai: ScriptedAI
) -> None:
    def reply(call: ScriptedCall) -> Reply:
        return provider_failure() if variation_of(call) == "Actionable" else variation_reply(call)

    scripted_ai.post_reply = reply

    result = scripted_ai.invoke(["batch", "ship weekly"])

    assert result.exit_code == 1, result.output
    no_traceback(result)
    assert "Actionable failed: The AI provider failed" in result.stderr
    assert "4 of 5 drafts saved." in result.stderr
    assert "Actionable draft" not in result.stdout
    assert "Conversational draft about shipping." in result.stdout
    assert count(store, Post) == 4
