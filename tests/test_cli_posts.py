"""`socialgen posts ...` and `socialgen conversations`, driven through the real CLI app.

Every error case checks: non-zero exit, the key words of the message, no traceback,
and that no table of the store changed. Error cases of one kind share a test (and
one store), which keeps the file fast on PostgreSQL.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from datetime import timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from sqlmodel import SQLModel
from typer.testing import CliRunner, Result

from socialgen.cli.main import app
from socialgen.kit.clock import iso, parse_iso, utcnow
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import Conversation, Post, PostStatus, PostVersion, Workspace
from tests.conftest import Store, days_ago, days_ahead
from tests.terminal_support import A_TERMINAL, run_at_terminal

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
CONVERSATION_KEYS = {"_id", "title", "createdAt", "updatedAt", "status", "metadata"}
# The entry point of the environment running the tests (the one README installs).
SOCIALGEN_BIN = Path(sys.executable).parent / "socialgen"

runner = CliRunner()


# --------------------------------------------------------------------------- helpers


def run(*args: str, input: str | None = None, env: dict[str, str] | None = None) -> Result:
    return runner.invoke(app, list(args), input=input, env=env)


def ok_json(*args: str) -> Any:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    return json.loads(result.stdout)


def snapshot(store: Store) -> dict[str, list[str]]:
    """Every row of every table, to prove a refused command changed nothing."""
    with store.engine.connect() as connection:
        return {
            table.name: sorted(repr(tuple(row)) for row in connection.execute(sa.select(table)))
            for table in SQLModel.metadata.sorted_tables
        }


def refuse(store: Store, args: list[str], *words: str, input: str | None = None) -> Result:
    """Run a command that must fail cleanly and leave the store as it was."""
    before = snapshot(store)
    result = run(*args, input=input)
    assert result.exit_code != 0, (args, result.output)
    assert "Traceback" not in result.output
    assert isinstance(result.exception, SystemExit), (args, repr(result.exception))
    for word in words:
        assert word in result.output, (args, word, result.output)
    assert snapshot(store) == before, args
    return result


def load_post(store: Store, post_id: str) -> Post:
    with read_session(store.engine) as session:
        post = session.get(Post, post_id)
    assert post is not None
    return post


def count(store: Store, model: Any, *where: Any) -> int:
    return int(store.scalar(sa.select(sa.func.count()).select_from(model).where(*where)))


def ids(data: dict[str, Any]) -> set[str]:
    return {post["id"] for post in data["posts"]}


def close_to_now(text: str, delta: timedelta = timedelta(minutes=2)) -> bool:
    return abs(parse_iso(text) - utcnow()) < delta


def fill(args: list[str], post_id: str) -> list[str]:
    """Replace the POST and FUTURE placeholders of an argument list."""
    future = iso(days_ahead(2)) or ""
    return [post_id if a == "POST" else future if a == "FUTURE" else a for a in args]


def editor_script(tmp_path: Path, body: str, name: str = "editor.sh") -> str:
    path = tmp_path / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


# Every command that acts on one post, with arguments that would succeed on a
# scheduled post of the right workspace.
POST_COMMANDS = [
    ["posts", "show", "POST"],
    ["posts", "edit", "POST", "--content", "New text"],
    ["posts", "delete", "POST", "--yes"],
    ["posts", "delete", "POST"],
    ["posts", "schedule", "POST", "--at", "FUTURE"],
    ["posts", "unschedule", "POST"],
    ["posts", "mark-published", "POST", "--url", "https://example.com/p/1"],
]


# --------------------------------------------------------------------------- recent / timeline


def test_recent_and_timeline_windows(store: Store) -> None:
    draft_new = store.post("Fresh draft").id
    store.post("Old draft", when=days_ago(91))
    scheduled_past = store.post("Scheduled last week", status="scheduled", when=days_ago(7)).id
    store.post("Scheduled long ago", status="scheduled", when=days_ago(91))
    scheduled_future = store.post("Later", status="scheduled", when=days_ahead(10)).id
    published_new = store.post("Published", status="published", when=days_ago(89)).id
    store.post("Published long ago", status="published", when=days_ago(91))

    recent = ok_json("posts", "recent")
    timeline = ok_json("posts", "timeline")

    assert ids(recent) == {draft_new, scheduled_past, scheduled_future, published_new}
    assert recent["total"] == 4
    assert {p["id"]: p["status"] for p in recent["posts"]} == {
        draft_new: "draft",
        scheduled_past: "scheduled",
        scheduled_future: "scheduled",
        published_new: "published",
    }
    assert ids(timeline) == {scheduled_past, scheduled_future, published_new}
    assert timeline["total"] == 3
    assert all(p["status"] != "draft" for p in timeline["posts"])


def test_listing_post_fields_follow_spec(store: Store) -> None:
    carousel = {
        "id": "c1",
        "name": "Deck",
        "thumbnailUrl": "https://x/t.png",
        "pdfUrl": "https://x/d.pdf",
    }
    published = store.post(
        "Launch day!\nMore details below.",
        status="published",
        when=days_ago(2),
        social_account_name="Ada Lovelace",
        social_account_email="ada@example.com",
        likes=12,
        comments=3,
        post_url="https://www.linkedin.com/feed/update/1",
        carousel=carousel,
    )
    draft = store.post("Just a draft", when=days_ago(1))

    for command in ("recent", "timeline"):
        data = ok_json("posts", command)
        assert set(data) == {"posts", "total", "dateRange"}
        view = next(p for p in data["posts"] if p["id"] == published.id)
        assert set(view) == POST_KEYS
        assert view["conversationId"] == published.conversation_id
        assert view["conversationTitle"] == "Launch day!"
        assert view["postContent"] == "Launch day!\nMore details below."
        assert view["postType"] == "text"
        assert view["status"] == "published"
        assert view["scheduledAt"] == iso(published.scheduled_at)
        assert close_to_now(view["createdAt"])
        assert view["socialAccount"] == {"name": "Ada Lovelace", "email": "ada@example.com"}
        assert view["metrics"] == {"likes": 12, "comments": 3}
        assert view["postUrl"] == "https://www.linkedin.com/feed/update/1"
        assert view["carousel"] == carousel
        assert (view["infographic"], view["generatedHeadshot"], view["customImage"]) == (
            None,
            None,
            None,
        )

    view = next(p for p in ok_json("posts", "recent")["posts"] if p["id"] == draft.id)
    assert set(view) == POST_KEYS
    assert view["status"] == "draft"
    assert view["createdAt"] == iso(draft.created_at)
    assert (view["scheduledAt"], view["postUrl"], view["socialAccount"]) == (None, None, {})
    assert view["metrics"] == {"likes": 0, "comments": 0}


def test_date_range(store: Store) -> None:
    store.post("Recent draft")

    data = ok_json("posts", "recent")

    assert set(data["dateRange"]) == {"from", "to"}
    start, end = parse_iso(data["dateRange"]["from"]), parse_iso(data["dateRange"]["to"])
    assert close_to_now(data["dateRange"]["to"])
    assert abs((end - start) - timedelta(days=90)) < timedelta(seconds=5)

    # With posts scheduled ahead, the range reaches the furthest one.
    store.post("Soon", status="scheduled", when=days_ahead(3))
    far = store.post("Later", status="scheduled", when=days_ahead(20))
    for command in ("recent", "timeline"):
        data = ok_json("posts", command)
        assert data["dateRange"]["to"] == iso(far.scheduled_at)
        start = parse_iso(data["dateRange"]["from"])
        assert abs(start - (utcnow() - timedelta(days=90))) < timedelta(minutes=2)


def test_listings_human_output(store: Store) -> None:
    empty = run("posts", "timeline", env=A_TERMINAL)
    assert empty.exit_code == 0, empty.output
    assert "Timeline: nothing in the last 90 days." in empty.stdout

    post = store.post("Shipping weekly beats shipping perfect")
    result = run("posts", "recent", env={"COLUMNS": "200", **A_TERMINAL})

    assert result.exit_code == 0, result.output
    assert "Recent posts (1)" in result.stdout
    assert f"│ {post.id[:8]} │" in result.stdout  # its short id, whole on its line
    assert "draft" in result.stdout
    assert "Shipping weekly beats shipping perfect" in result.stdout
    assert "{" not in result.stdout


def many_drafts(store: Store, count: int) -> list[str]:
    """`count` drafts in one transaction, newest first (one day apart)."""
    from socialgen.posts.service import create_draft

    with transaction(store.engine) as session:
        posts = [create_draft(session, store.workspace_id, f"Draft {n}") for n in range(count)]
        for age, post in enumerate(posts):
            post.updated_at = days_ago(age % 80) - timedelta(minutes=age)
            post.place_on_timeline()
            session.add(post)
        return [post.id for post in posts]


def test_the_table_shows_the_newest_fifty_and_says_how_many_more(store: Store) -> None:
    newest = many_drafts(store, 53)
    wide = {"COLUMNS": "200", **A_TERMINAL}

    table = run("posts", "recent", env=wide)
    three = run("posts", "recent", "--limit", "3", env=wide)
    every = run("posts", "recent", "--all", env=wide)

    assert table.exit_code == 0, table.output
    assert sum(post_id[:8] in table.stdout for post_id in newest) == 50  # short ids
    assert newest[0][:8] in table.stdout and newest[52][:8] not in table.stdout
    assert "3 more not shown: --limit N or --all" in table.stdout
    assert "Recent posts (50 of 53)" in table.stdout
    assert sum(post_id[:8] in three.stdout for post_id in newest) == 3
    assert "50 more not shown" in three.stdout
    assert all(post_id[:8] in every.stdout for post_id in newest)
    assert "more not shown" not in every.stdout


def test_json_lists_the_whole_window_unless_paged(store: Store) -> None:
    newest = many_drafts(store, 53)

    whole = ok_json("posts", "recent")
    first = ok_json("posts", "recent", "--limit", "50")
    rest = ok_json("posts", "recent", "--limit", "50", "--cursor", first["nextCursor"])
    table_rest = run("posts", "recent", "--cursor", first["nextCursor"], env={"COLUMNS": "200"})

    assert [post["id"] for post in whole["posts"]] == newest
    assert set(whole) == {"posts", "total", "dateRange"}
    assert [post["id"] for post in first["posts"] + rest["posts"]] == newest
    assert first["total"] == rest["total"] == 53
    assert rest["nextCursor"] is None
    assert sum(post_id in table_rest.stdout for post_id in newest) == 3


def test_the_listing_json_is_written_in_chunks_as_one_document(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    from socialgen.posts import listing_cli
    from socialgen.posts.cli import write_post_list

    monkeypatch.setattr(listing_cli, "JSON_CHUNK_POSTS", 2)  # chunks joined, a short last one
    many_drafts(store, 4)
    store.post("Ünïcödé “quotes” and\nnew lines", status="scheduled", when=days_ahead(2))
    for data in (ok_json("posts", "recent"), ok_json("posts", "recent", "--limit", "2")):
        written = io.StringIO()
        write_post_list(data, written)
        assert written.getvalue() == json.dumps(data, ensure_ascii=False) + "\n"
    empty = {"posts": [], "total": 0, "dateRange": {"from": "a", "to": "b"}}
    written = io.StringIO()
    write_post_list(empty, written)  # type: ignore[arg-type]
    assert written.getvalue() == json.dumps(empty) + "\n"


def test_bad_listing_options_are_refused(store: Store) -> None:
    for command in ("recent", "timeline"):
        refuse(store, ["posts", command, "--limit", "5", "--all"], "--limit N or --all")
        refuse(store, ["posts", command, "--limit", "0"], "limit must be a positive integer")
        refuse(store, ["posts", command, "--limit", "1001"], "limit must be at most 1000")
        refuse(store, ["posts", command, "--cursor", "zzz"], "cursor is not valid")


# --------------------------------------------------------------------------- workspaces


def test_workspace_by_id_name_and_environment(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = store.workspace("Agency")
    mine = store.post("Default post")
    theirs = store.post("Agency post", workspace_id=other)

    assert ids(ok_json("posts", "recent")) == {mine.id}
    assert ids(ok_json("posts", "recent", "-w", other)) == {theirs.id}
    assert ids(ok_json("posts", "timeline", "--workspace", "Agency")) == set()
    assert ok_json("posts", "show", theirs.id, "--workspace", "Agency")["id"] == theirs.id

    monkeypatch.setenv("SOCIALGEN_WORKSPACE", "Agency")
    assert ok_json("posts", "show", theirs.id)["id"] == theirs.id
    monkeypatch.setenv("SOCIALGEN_WORKSPACE", other)
    assert ids(ok_json("posts", "recent")) == {theirs.id}
    # -w wins over the environment
    assert ids(ok_json("posts", "recent", "-w", store.workspace_id)) == {mine.id}


def test_unknown_workspace_is_refused(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    post = store.post("Scheduled", status="scheduled", when=days_ahead(1))
    every_command = [
        ["posts", "recent"],
        ["posts", "timeline"],
        *POST_COMMANDS,
        ["conversations"],
    ]
    for args in every_command:
        refuse(
            store,
            [*fill(args, post.id), "-w", "no-such-workspace"],
            "Workspace not found",
            "no-such-workspace",
            input="y\n",
        )

    monkeypatch.setenv("SOCIALGEN_WORKSPACE", "Nowhere")
    refuse(store, ["posts", "recent"], "Workspace not found", "Nowhere")

    # Two workspaces of one name, written directly: `workspace create` may refuse twins.
    with transaction(store.engine) as session:
        session.add_all([Workspace(name="Twin"), Workspace(name="Twin")])
    refuse(store, ["posts", "recent", "-w", "Twin"], "Several workspaces", "Twin")


def test_post_of_another_workspace_is_not_found(store: Store) -> None:
    other = store.workspace("Other")
    post = store.post("Scheduled in the default workspace", status="scheduled", when=days_ahead(1))
    theirs = store.post("Elsewhere", workspace_id=other)

    for args in POST_COMMANDS:
        # input "y": a confirmation, were one shown, would not save the post
        refuse(store, [*fill(args, post.id), "-w", other], "Post not found", input="y\n")
        refuse(store, [*fill(args, post.id), "-w", "Other"], "Post not found", input="y\n")
        refuse(store, fill(args, theirs.id), "Post not found", input="y\n")

    assert ok_json("posts", "show", post.id)["status"] == "scheduled"
    assert ok_json("posts", "show", theirs.id, "-w", other)["id"] == theirs.id

    for args in POST_COMMANDS:
        refuse(store, fill(args, "no-such-post"), "Post not found", input="y\n")


# --------------------------------------------------------------------------- show


def test_show(store: Store) -> None:
    post = store.post("Ship it on Friday", status="scheduled", when=days_ahead(2))

    detail = ok_json("posts", "show", post.id)
    human = run("posts", "show", post.id, env={"COLUMNS": "200"})

    assert set(detail) == POST_KEYS | {"updatedAt", "publishedAt", "variationName", "versions"}
    assert (detail["id"], detail["postContent"], detail["status"]) == (
        post.id,
        "Ship it on Friday",
        "scheduled",
    )
    assert detail["scheduledAt"] == iso(post.scheduled_at)
    assert detail["publishedAt"] is None
    assert [(v["version"], v["content"], v["source"]) for v in detail["versions"]] == [
        (1, "Ship it on Friday", "generated")
    ]
    assert set(detail["versions"][0]) == {"version", "content", "source", "createdAt"}

    assert human.exit_code == 0, human.output
    assert post.id in human.stdout
    assert "status scheduled" in human.stdout
    assert "Ship it on Friday" in human.stdout
    assert "1 version(s)" in human.stdout


# --------------------------------------------------------------------------- edit


def test_edit_with_content_makes_a_new_version(store: Store) -> None:
    post = store.post("First take")

    data = ok_json("posts", "edit", post.id, "--content", "  Second take  ")

    assert data == {"postId": post.id, "content": "Second take"}
    detail = ok_json("posts", "show", post.id)
    assert detail["postContent"] == "Second take"
    assert [(v["version"], v["content"], v["source"]) for v in detail["versions"]] == [
        (1, "First take", "generated"),
        (2, "Second take", "edit"),
    ]
    with read_session(store.engine) as session:
        conversation = session.get(Conversation, post.conversation_id)
        assert conversation is not None
        assert conversation.current_content == "Second take"

    text = "x" * 3000  # the limit itself is allowed
    assert ok_json("posts", "edit", post.id, "-c", text)["content"] == text
    assert len(ok_json("posts", "show", post.id)["versions"]) == 3


def test_edit_keeps_a_scheduled_post_scheduled(store: Store) -> None:
    post = store.post("Planned", status="scheduled", when=days_ahead(4))

    result = run("posts", "edit", post.id, "-c", "Planned, reworded")

    assert result.exit_code == 0, result.output
    assert f"Updated post {post.id}" in result.stdout
    saved = load_post(store, post.id)
    assert saved.content == "Planned, reworded"
    assert saved.status == PostStatus.SCHEDULED
    assert saved.scheduled_at == post.scheduled_at


def test_edit_refuses_bad_content(store: Store) -> None:
    post = store.post("Keep me")
    for content in ("", "   ", " \n\t "):
        refuse(store, ["posts", "edit", post.id, "--content", content], "Content is required")
    refuse(store, ["posts", "edit", post.id, "--content", "y" * 3001], "3000")
    assert load_post(store, post.id).content == "Keep me"


def test_edit_refuses_a_published_post(store: Store) -> None:
    post = store.post("Out there", status="published", when=days_ago(1))
    refuse(
        store,
        ["posts", "edit", post.id, "--content", "Changed"],
        "published",
        "only draft and scheduled posts can be edited",
    )


def test_edit_needs_exactly_one_of_content_and_editor(
    store: Store, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # An editor that would change the text, to prove it is not run.
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", editor_script(tmp_path, "echo 'from editor' > \"$1\""))
    post = store.post("Keep me")

    for extra in ([], ["--content", "Text", "--editor"]):
        refuse(store, ["posts", "edit", post.id, *extra], "--content", "--editor")


def test_edit_with_editor(store: Store, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    # Rewrites what it is given: proves the editor saw the current text.
    monkeypatch.setenv("EDITOR", editor_script(tmp_path, "sed -i 's/weekly/daily/' \"$1\""))
    post = store.post("A post about shipping weekly")

    data = ok_json("posts", "edit", post.id, "--editor")

    assert data == {"postId": post.id, "content": "A post about shipping daily"}
    versions = ok_json("posts", "show", post.id)["versions"]
    assert [v["content"] for v in versions] == [
        "A post about shipping weekly",
        "A post about shipping daily",
    ]


def test_edit_with_editor_that_changes_nothing_is_cancelled(
    store: Store, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    post = store.post("A post about shipping weekly")
    editors = {
        "untouched": "exit 0",
        "saved-unchanged": 'cp "$1" "$1.tmp" && mv "$1.tmp" "$1" && touch "$1"',
    }
    for name, body in editors.items():
        monkeypatch.setenv("EDITOR", editor_script(tmp_path, body, f"{name}.sh"))
        refuse(store, ["posts", "edit", post.id, "--editor"], "cancelled")

    monkeypatch.setenv("EDITOR", editor_script(tmp_path, ': > "$1"', "empties.sh"))
    refuse(store, ["posts", "edit", post.id, "--editor"], "Content is required")


def test_edit_with_failing_editor_reports_an_error(
    store: Store, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", editor_script(tmp_path, "exit 3"))
    post = store.post("A post about shipping weekly")

    refuse(store, ["posts", "edit", post.id, "--editor"], "Editing failed")


# --------------------------------------------------------------------------- delete


def _post_rows(store: Store, post: Post) -> tuple[int, int, int]:
    """How many rows of the post, its versions and its conversation exist."""
    return (
        count(store, Post, Post.id == post.id),
        count(store, PostVersion, PostVersion.post_id == post.id),
        count(store, Conversation, Conversation.id == post.conversation_id),
    )


def test_delete_with_yes_removes_post_versions_and_conversation(store: Store) -> None:
    keep = store.post("Stays")
    for status in ("draft", "scheduled"):
        post = store.post(f"To be deleted ({status})", status=status, when=days_ahead(1))
        ok_json("posts", "edit", post.id, "--content", "Second version")
        assert _post_rows(store, post) == (1, 2, 1)

        data = ok_json("posts", "delete", post.id, "--yes")

        assert data == {
            "deletedPostId": post.id,
            "deletedConversationId": post.conversation_id,
            "postType": "text",
            "status": status,
        }
        assert _post_rows(store, post) == (0, 0, 0)
    assert _post_rows(store, keep) == (1, 1, 1)


def test_delete_asks_first(store: Store) -> None:
    post = store.post("Think twice")

    declined = run_at_terminal("posts", "delete", post.id, answer="n\n")

    assert declined.returncode == 1, declined.stderr
    assert "Delete draft post" in declined.stderr
    assert post.id in declined.stderr
    assert "Abort" in declined.stderr
    assert _post_rows(store, post) == (1, 1, 1)

    accepted = run_at_terminal("posts", "delete", post.id, answer="y\n")

    assert accepted.returncode == 0, accepted.stderr
    assert "Delete draft post" in accepted.stderr
    assert f"Deleted post {post.id}" in accepted.stdout
    assert _post_rows(store, post) == (0, 0, 0)


def test_delete_declined_is_reported_as_aborted(store: Store) -> None:
    post = store.post("Think twice")

    result = run_at_terminal("posts", "delete", post.id, answer="n\n")

    assert result.returncode == 1
    assert "Aborted" in result.stderr
    assert "Unexpected error" not in result.stderr
    assert _post_rows(store, post) == (1, 1, 1)


def test_delete_refuses_a_published_post(store: Store) -> None:
    post = store.post("Out there", status="published", when=days_ago(1))

    for extra in (["--yes"], []):
        result = refuse(
            store,
            ["posts", "delete", post.id, *extra],
            "published",
            "must be deleted on the social network",
            input="y\n",
        )
        assert "Delete published post" not in result.output  # refused before asking
    assert _post_rows(store, post) == (1, 1, 1)


# --------------------------------------------------------------------------- schedule


def test_schedule_a_draft_in_the_future(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    post = store.post("Plan me")
    moment = (utcnow() + timedelta(days=3)).replace(microsecond=0)
    text = moment.astimezone(timezone(timedelta(hours=2))).isoformat()  # with +02:00

    data = ok_json("posts", "schedule", post.id, "--at", text)

    assert data == {"postId": post.id, "status": "scheduled", "scheduledAt": iso(moment)}
    saved = load_post(store, post.id)
    assert (saved.status, saved.scheduled_at) == (PostStatus.SCHEDULED, moment)
    assert post.id in ids(ok_json("posts", "timeline"))

    # Without an offset the time is the creator's zone (here UTC); a scheduled post can
    # be moved. The message gives the time in that zone, named, then in UTC.
    moment = (utcnow() + timedelta(days=5)).replace(microsecond=0)
    monkeypatch.setenv("SOCIALGEN_TIMEZONE", "UTC")

    result = run("posts", "schedule", post.id, "--at", moment.strftime("%Y-%m-%dT%H:%M:%S"))

    assert result.exit_code == 0, result.output
    assert f"Scheduled {post.id} for {moment:%Y-%m-%d %H:%M} UTC ({iso(moment)})" in result.stdout
    assert load_post(store, post.id).scheduled_at == moment


def test_schedule_refuses_past_and_bad_times(store: Store) -> None:
    post = store.post("Plan me")
    past = iso(days_ago(1)) or ""
    refuse(store, ["posts", "schedule", post.id, "--at", past], "must be in the future")
    for text in ("next tuesday", "2030-13-01T00:00:00Z", ""):
        refuse(store, ["posts", "schedule", post.id, "--at", text], "Not an ISO 8601 time")
    assert load_post(store, post.id).status == PostStatus.DRAFT


def test_unschedule(store: Store) -> None:
    post = store.post("Planned", status="scheduled", when=days_ahead(2))

    data = ok_json("posts", "unschedule", post.id)

    assert data == {"postId": post.id, "status": "draft", "scheduledAt": None}
    saved = load_post(store, post.id)
    assert (saved.status, saved.scheduled_at) == (PostStatus.DRAFT, None)
    assert post.id not in ids(ok_json("posts", "timeline"))
    assert post.id in ids(ok_json("posts", "recent"))

    # It is a draft now: unscheduling again is refused.
    refuse(store, ["posts", "unschedule", post.id], "Only scheduled posts", "draft")


# --------------------------------------------------------------------------- mark-published


def test_mark_published_with_url(store: Store) -> None:
    post = store.post("Going out", status="scheduled", when=days_ahead(1))
    url = "https://www.linkedin.com/feed/update/urn:li:activity:42"

    data = ok_json("posts", "mark-published", post.id, "--url", url)

    assert set(data) == {"postId", "status", "publishedAt", "postUrl"}
    assert (data["postId"], data["status"], data["postUrl"]) == (post.id, "published", url)
    assert close_to_now(data["publishedAt"])
    [view] = [p for p in ok_json("posts", "timeline")["posts"] if p["id"] == post.id]
    assert (view["status"], view["postUrl"]) == ("published", url)

    # --url is optional.
    post = store.post("Going out too", status="scheduled", when=days_ahead(1))

    result = run("posts", "mark-published", post.id)

    assert result.exit_code == 0, result.output
    assert f"Published {post.id}" in result.stdout
    saved = load_post(store, post.id)
    assert (saved.status, saved.post_url) == (PostStatus.PUBLISHED, None)


def test_mark_published_refuses_a_draft_and_bad_urls(store: Store) -> None:
    draft = store.post("Not planned")
    refuse(
        store,
        ["posts", "mark-published", draft.id, "--url", "https://example.com/p"],
        "Only scheduled posts",
        "schedule it first",
    )
    scheduled = store.post("Going out", status="scheduled", when=days_ahead(1))
    for url in ("not a url", "ftp://example.com/p", "https://", "https://x/" + "a" * 2048):
        refuse(
            store,
            ["posts", "mark-published", scheduled.id, "--url", url],
            "Not a valid http(s) URL",
        )
    assert load_post(store, scheduled.id).status == PostStatus.SCHEDULED


def test_published_is_final(store: Store) -> None:
    post = store.post("Going out", status="scheduled", when=days_ahead(1))
    ok_json("posts", "mark-published", post.id)

    refusals = [
        (["schedule", "POST", "--at", "FUTURE"], ["Cannot schedule a published post"]),
        (["unschedule", "POST"], ["Only scheduled posts", "published"]),
        (["mark-published", "POST"], ["Only scheduled posts", "published"]),
        (["edit", "POST", "--content", "Again"], ["only draft and scheduled"]),
        (["delete", "POST", "--yes"], ["social network"]),
    ]
    for args, words in refusals:
        refuse(store, ["posts", *fill(args, post.id)], *words)
    assert load_post(store, post.id).status == PostStatus.PUBLISHED


# --------------------------------------------------------------------------- conversations


def test_conversations_default_pagination(store: Store) -> None:
    posts = [store.post(f"Post number {n}") for n in range(3)]
    store.post("Not ours", workspace_id=store.workspace("Other"))

    data = ok_json("conversations")

    assert set(data) == {"conversations", "pagination"}
    assert data["pagination"] == {"page": 1, "limit": 20, "total": 3, "pages": 1}
    assert {c["_id"] for c in data["conversations"]} == {p.conversation_id for p in posts}
    for conversation in data["conversations"]:
        assert set(conversation) == CONVERSATION_KEYS
        assert conversation["status"] == "active"
        assert conversation["metadata"] == {}
        assert conversation["title"].startswith("Post number")
    updated = [c["updatedAt"] for c in data["conversations"]]
    assert updated == sorted(updated, reverse=True)  # newest first

    human = run("conversations", env={"COLUMNS": "200", **A_TERMINAL})
    assert human.exit_code == 0, human.output
    assert "Conversations (page 1 of 1, 3 in all)" in human.stdout
    assert f"│ {str(posts[0].conversation_id)[:8]} │" in human.stdout  # short, never cut
    assert "Post number 0" in human.stdout


def test_conversations_pages(store: Store) -> None:
    posts = [store.post(f"Post number {n}") for n in range(5)]

    pages = [ok_json("conversations", "--page", str(n), "--limit", "2") for n in (1, 2, 3, 4)]

    assert ok_json("conversations", "--limit", "2") == pages[0]
    assert [p["pagination"] for p in pages] == [
        {"page": n, "limit": 2, "total": 5, "pages": 3} for n in (1, 2, 3, 4)
    ]
    assert [len(p["conversations"]) for p in pages] == [2, 2, 1, 0]
    seen = [c["_id"] for page in pages for c in page["conversations"]]
    assert sorted(seen) == sorted(str(p.conversation_id) for p in posts)
    assert ok_json("conversations", "--limit", "100")["pagination"]["limit"] == 100
    empty = ok_json("conversations", "-w", store.workspace("Empty"))
    assert empty == {
        "conversations": [],
        "pagination": {"page": 1, "limit": 20, "total": 0, "pages": 0},
    }


def test_conversations_refuses_bad_paging(store: Store) -> None:
    store.post("Something")
    refusals = [
        (["--page", "0"], "page must be a positive integer"),
        (["--page", "-1"], "page must be a positive integer"),
        (["--limit", "0"], "limit must be a positive integer"),
        (["--limit", "101"], "limit must be at most 100"),
    ]
    for args, message in refusals:
        refuse(store, ["conversations", *args], message)


# --------------------------------------------------------------------------- how errors look


def test_errors_go_to_stderr_as_text_or_to_stdout_as_json(store: Store) -> None:
    post = store.post("Keep me")
    before = snapshot(store)

    human = run("posts", "show", "nope")
    as_json = run("posts", "edit", post.id, "--content", " ", "--json")

    assert (human.exit_code, human.stdout) == (1, "")
    assert human.stderr.strip() == (
        "Error: Post not found: nope (an id prefix needs at least 6 characters)"
    )
    assert (as_json.exit_code, as_json.stderr) == (1, "")
    assert json.loads(as_json.stdout) == {"success": False, "message": "Content is required"}
    assert snapshot(store) == before


def test_usage_errors_are_usage_errors(store: Store) -> None:
    store.post("Something")
    before = snapshot(store)
    for args, word in (
        (["posts", "schedule", "some-id"], "--at"),  # --at missing
        (["conversations", "--limit", "many"], "--limit"),
        (["posts", "no-such-command"], "no-such-command"),
    ):
        result = run(*args)
        assert result.exit_code == 2, (args, result.output)
        assert "Unexpected error" not in result.output
        assert "Traceback" not in result.output
        assert word in result.output, (args, result.output)
    assert snapshot(store) == before


# --------------------------------------------------------------------------- real entry point


def _run_installed(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SOCIALGEN_BIN), *args],
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_installed_entry_point_reports_errors_without_traceback(store: Store) -> None:
    post = store.post("Out there", status="published", when=days_ago(1))
    before = snapshot(store)

    done = _run_installed("posts", "delete", post.id, "--yes")

    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.startswith("Error:")
    assert "published post must be deleted on the social network" in done.stderr
    assert "Traceback" not in done.stderr
    assert snapshot(store) == before


def test_installed_entry_point_json_error(store: Store) -> None:
    other = store.workspace("Other")
    post = store.post("Mine")
    before = snapshot(store)

    done = _run_installed("posts", "edit", post.id, "--content", "Changed", "-w", other, "--json")

    assert done.returncode == 1
    assert done.stderr == ""
    assert json.loads(done.stdout) == {"success": False, "message": f"Post not found: {post.id}"}
    assert snapshot(store) == before
