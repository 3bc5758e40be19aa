"""`socialgen posts ...` and `socialgen conversations`, driven through the real CLI app.

Every error case checks: non-zero exit, the key words of the message, no traceback,
and that no table of the store changed.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
from datetime import timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
import typer.testing
from sqlmodel import SQLModel, select
from typer.main import get_command
from typer.testing import CliRunner, Result

from socialgen.cli import app
from socialgen.clock import iso, parse_iso, utcnow
from socialgen.store.engine import read_session
from socialgen.store.tables import Conversation, Post, PostStatus, PostVersion
from tests.conftest import Store, days_ago, days_ahead

runner = CliRunner()
_COMMAND = get_command(app)


@pytest.fixture(autouse=True)
def _build_the_cli_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """typer rebuilds the click command tree on every invoke (~35 ms); build it once."""
    monkeypatch.setattr(typer.testing, "_get_command", lambda _app: _COMMAND)


POST_KEYS = {
    "id",
    "conversationId",
    "conversationTitle",
    "postContent",
    "postType",
    "status",
    "createdAt",
    "scheduledAt",
    "socialAccount",
    "metrics",
    "postUrl",
    "carousel",
    "infographic",
    "generatedHeadshot",
    "customImage",
}
CONVERSATION_KEYS = {"_id", "title", "createdAt", "updatedAt", "status", "metadata"}
SOCIALGEN_BIN = Path("/work/main/.venv/bin/socialgen")


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


def assert_refused(store: Store, before: dict[str, list[str]], result: Result, *words: str) -> None:
    assert result.exit_code != 0, result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )
    for word in words:
        assert word in result.output, (word, result.output)
    assert snapshot(store) == before


def refuse(store: Store, args: list[str], *words: str, input: str | None = None) -> Result:
    before = snapshot(store)
    result = run(*args, input=input)
    assert_refused(store, before, result, *words)
    return result


def load_post(store: Store, post_id: str) -> Post | None:
    with read_session(store.engine) as session:
        return session.get(Post, post_id)


def count(store: Store, model: Any, *where: Any) -> int:
    return int(store.scalar(sa.select(sa.func.count()).select_from(model).where(*where)))


def ids(data: dict[str, Any]) -> set[str]:
    return {post["id"] for post in data["posts"]}


def close_to_now(text: str, delta: timedelta = timedelta(minutes=2)) -> bool:
    return abs(parse_iso(text) - utcnow()) < delta


# --------------------------------------------------------------------------- recent / timeline


@pytest.fixture
def window(store: Store) -> dict[str, str]:
    """Posts in and out of the 90-day window, in every status."""
    return {
        "draft_new": store.post("Fresh draft").id,
        "draft_old": store.post("Old draft", when=days_ago(91)).id,
        "scheduled_past": store.post(
            "Scheduled last week", status="scheduled", when=days_ago(7)
        ).id,
        "scheduled_future": store.post(
            "Scheduled for later", status="scheduled", when=days_ahead(10)
        ).id,
        "published_new": store.post("Published recently", status="published", when=days_ago(89)).id,
        "published_old": store.post("Published long ago", status="published", when=days_ago(91)).id,
    }


def test_recent_lists_drafts_scheduled_published_of_90_days_and_future(
    store: Store, window: dict[str, str]
) -> None:
    data = ok_json("posts", "recent")

    assert ids(data) == {
        window["draft_new"],
        window["scheduled_past"],
        window["scheduled_future"],
        window["published_new"],
    }
    assert data["total"] == 4
    statuses = {post["id"]: post["status"] for post in data["posts"]}
    assert statuses[window["draft_new"]] == "draft"
    assert statuses[window["scheduled_future"]] == "scheduled"
    assert statuses[window["published_new"]] == "published"


def test_timeline_excludes_drafts_and_old_posts(store: Store, window: dict[str, str]) -> None:
    data = ok_json("posts", "timeline")

    assert ids(data) == {
        window["scheduled_past"],
        window["scheduled_future"],
        window["published_new"],
    }
    assert data["total"] == 3
    assert all(post["status"] != "draft" for post in data["posts"])


@pytest.mark.parametrize("command", ["recent", "timeline"])
def test_listing_post_fields_follow_spec(store: Store, command: str) -> None:
    carousel = {
        "id": "c1",
        "name": "Deck",
        "thumbnailUrl": "https://x/t.png",
        "pdfUrl": "https://x/d.pdf",
    }
    post = store.post(
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

    data = ok_json("posts", command)

    assert set(data) == {"posts", "total", "dateRange"}
    [view] = data["posts"]
    assert set(view) == POST_KEYS
    assert view["id"] == post.id
    assert view["conversationId"] == post.conversation_id
    assert view["conversationTitle"] == "Launch day!"
    assert view["postContent"] == "Launch day!\nMore details below."
    assert view["postType"] == "text"
    assert view["status"] == "published"
    assert view["scheduledAt"] == iso(post.scheduled_at)
    assert close_to_now(view["createdAt"])
    assert view["socialAccount"] == {"name": "Ada Lovelace", "email": "ada@example.com"}
    assert view["metrics"] == {"likes": 12, "comments": 3}
    assert view["postUrl"] == "https://www.linkedin.com/feed/update/1"
    assert view["carousel"] == carousel
    assert view["infographic"] is None
    assert view["generatedHeadshot"] is None
    assert view["customImage"] is None


def test_draft_fields_have_nulls_and_zero_metrics(store: Store) -> None:
    post = store.post("Just a draft")

    [view] = ok_json("posts", "recent")["posts"]

    assert set(view) == POST_KEYS
    assert view["id"] == post.id
    assert view["scheduledAt"] is None
    assert view["postUrl"] is None
    assert view["socialAccount"] == {}
    assert view["metrics"] == {"likes": 0, "comments": 0}


def test_date_range_spans_90_days_to_now(store: Store) -> None:
    store.post("Recent draft")

    data = ok_json("posts", "recent")

    assert set(data["dateRange"]) == {"from", "to"}
    start, end = parse_iso(data["dateRange"]["from"]), parse_iso(data["dateRange"]["to"])
    assert close_to_now(data["dateRange"]["to"])
    assert abs((end - start) - timedelta(days=90)) < timedelta(seconds=5)


def test_date_range_reaches_the_furthest_scheduled_post(store: Store) -> None:
    store.post("Soon", status="scheduled", when=days_ahead(3))
    far = store.post("Later", status="scheduled", when=days_ahead(20))

    for command in ("recent", "timeline"):
        data = ok_json("posts", command)
        assert data["dateRange"]["to"] == iso(far.scheduled_at)
        assert close_to_now(data["dateRange"]["from"], timedelta(days=91))
        assert parse_iso(data["dateRange"]["from"]) < utcnow() - timedelta(days=89)


def test_listings_are_scoped_to_the_workspace(store: Store) -> None:
    other = store.workspace("Clients")
    mine = store.post("Mine")
    theirs = store.post("Theirs", workspace_id=other)

    assert ids(ok_json("posts", "recent")) == {mine.id}
    assert ids(ok_json("posts", "recent", "-w", other)) == {theirs.id}
    assert ids(ok_json("posts", "recent", "--workspace", "Clients")) == {theirs.id}


def test_recent_human_table_shows_posts(store: Store) -> None:
    post = store.post("Shipping weekly beats shipping perfect")

    result = run("posts", "recent", env={"COLUMNS": "200"})

    assert result.exit_code == 0, result.output
    assert "Recent posts (1)" in result.stdout
    assert post.id in result.stdout
    assert "draft" in result.stdout
    assert "Shipping weekly beats shipping perfect" in result.stdout
    assert not result.stdout.lstrip().startswith("{")


def test_empty_listings_say_so(store: Store) -> None:
    store.post("Only a draft")

    result = run("posts", "timeline")

    assert result.exit_code == 0, result.output
    assert "Timeline: nothing in the last 90 days." in result.stdout
    data = ok_json("posts", "timeline")
    assert (data["posts"], data["total"]) == ([], 0)


# --------------------------------------------------------------------------- workspaces


def test_workspace_by_id_name_and_environment(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = store.workspace("Agency")
    post = store.post("Agency post", workspace_id=other)

    by_id = ok_json("posts", "show", post.id, "-w", other)
    by_name = ok_json("posts", "show", post.id, "--workspace", "Agency")
    monkeypatch.setenv("SOCIALGEN_WORKSPACE", "Agency")
    by_env_name = ok_json("posts", "show", post.id)
    monkeypatch.setenv("SOCIALGEN_WORKSPACE", other)
    by_env_id = ok_json("posts", "recent")

    assert by_id["id"] == by_name["id"] == by_env_name["id"] == post.id
    assert ids(by_env_id) == {post.id}


def test_workspace_option_wins_over_environment(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = store.workspace("Agency")
    mine = store.post("Default post")
    store.post("Agency post", workspace_id=other)
    monkeypatch.setenv("SOCIALGEN_WORKSPACE", other)

    assert ids(ok_json("posts", "recent", "-w", store.workspace_id)) == {mine.id}


def test_workspace_from_environment_can_be_unknown(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALGEN_WORKSPACE", "Nowhere")
    refuse(store, ["posts", "recent"], "Workspace not found", "Nowhere")


@pytest.mark.parametrize(
    "args",
    [
        ["posts", "recent"],
        ["posts", "timeline"],
        ["posts", "show", "POST"],
        ["posts", "edit", "POST", "--content", "New text"],
        ["posts", "delete", "POST", "--yes"],
        ["posts", "schedule", "POST", "--at", "FUTURE"],
        ["posts", "unschedule", "POST"],
        ["posts", "mark-published", "POST"],
        ["conversations"],
    ],
    ids=lambda args: " ".join(args[:2]),
)
def test_unknown_workspace_is_refused(store: Store, args: list[str]) -> None:
    post = store.post("Scheduled", status="scheduled", when=days_ahead(1))
    future = iso(days_ahead(2)) or ""
    args = [post.id if a == "POST" else future if a == "FUTURE" else a for a in args]

    refuse(store, [*args, "-w", "no-such-workspace"], "Workspace not found", "no-such-workspace")


def test_ambiguous_workspace_name_is_refused(store: Store) -> None:
    store.workspace("Twin")
    store.workspace("Twin")
    refuse(store, ["posts", "recent", "-w", "Twin"], "Several workspaces", "Twin")


@pytest.mark.parametrize(
    "args",
    [
        ["posts", "show", "POST"],
        ["posts", "edit", "POST", "--content", "Hijacked"],
        ["posts", "delete", "POST", "--yes"],
        ["posts", "delete", "POST"],
        ["posts", "schedule", "POST", "--at", "FUTURE"],
        ["posts", "unschedule", "POST"],
        ["posts", "mark-published", "POST", "--url", "https://example.com/p/1"],
    ],
    ids=lambda args: " ".join(args[1:2] + args[3:4]),
)
def test_post_of_another_workspace_is_not_found(store: Store, args: list[str]) -> None:
    other = store.workspace("Other")
    post = store.post("Scheduled in the default workspace", status="scheduled", when=days_ahead(1))
    future = iso(days_ahead(2)) or ""
    args = [post.id if a == "POST" else future if a == "FUTURE" else a for a in args]

    # input "y" so that a confirmation, were one shown, would not save the post
    refuse(store, [*args, "-w", other], "Post not found", input="y\n")
    refuse(store, [*args, "-w", "Other"], "Post not found", input="y\n")


def test_post_of_another_workspace_is_not_found_from_the_default(store: Store) -> None:
    other = store.workspace("Other")
    post = store.post("Elsewhere", workspace_id=other)

    refuse(store, ["posts", "show", post.id], "Post not found")
    assert ok_json("posts", "show", post.id, "-w", other)["id"] == post.id


@pytest.mark.parametrize(
    "args",
    [
        ["posts", "show", "nope"],
        ["posts", "edit", "nope", "--content", "x"],
        ["posts", "delete", "nope", "--yes"],
        ["posts", "delete", "nope"],
        ["posts", "unschedule", "nope"],
        ["posts", "mark-published", "nope"],
    ],
    ids=lambda args: " ".join(args[1:]),
)
def test_unknown_post_is_not_found(store: Store, args: list[str]) -> None:
    store.post("Something")
    refuse(store, args, "Post not found")


# --------------------------------------------------------------------------- show


def test_show_returns_the_post_with_versions(store: Store) -> None:
    post = store.post("A post about shipping weekly")

    detail = ok_json("posts", "show", post.id)

    assert set(detail) >= POST_KEYS
    assert set(detail) - POST_KEYS == {"updatedAt", "publishedAt", "variationName", "versions"}
    assert detail["id"] == post.id
    assert detail["postContent"] == "A post about shipping weekly"
    assert detail["publishedAt"] is None
    assert [(v["version"], v["content"], v["source"]) for v in detail["versions"]] == [
        (1, "A post about shipping weekly", "generated")
    ]
    assert set(detail["versions"][0]) == {"version", "content", "source", "createdAt"}


def test_show_human_output(store: Store) -> None:
    post = store.post("Ship it on Friday", status="scheduled", when=days_ahead(2))

    result = run("posts", "show", post.id, env={"COLUMNS": "200"})

    assert result.exit_code == 0, result.output
    assert post.id in result.stdout
    assert "status scheduled" in result.stdout
    assert "Ship it on Friday" in result.stdout
    assert "1 version(s)" in result.stdout


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


def test_edit_keeps_a_scheduled_post_scheduled(store: Store) -> None:
    post = store.post("Planned", status="scheduled", when=days_ahead(4))

    result = run("posts", "edit", post.id, "-c", "Planned, reworded")

    assert result.exit_code == 0, result.output
    assert f"Updated post {post.id}" in result.stdout
    saved = load_post(store, post.id)
    assert saved is not None
    assert saved.content == "Planned, reworded"
    assert saved.status == PostStatus.SCHEDULED
    assert iso(saved.scheduled_at) == iso(post.scheduled_at)


def test_edit_accepts_exactly_3000_characters(store: Store) -> None:
    post = store.post("Short")
    text = "x" * 3000

    assert ok_json("posts", "edit", post.id, "--content", text)["content"] == text


@pytest.mark.parametrize("content", ["", "   ", " \n\t "])
def test_edit_refuses_empty_content(store: Store, content: str) -> None:
    post = store.post("Keep me")
    refuse(store, ["posts", "edit", post.id, "--content", content], "Content is required")


def test_edit_refuses_more_than_3000_characters(store: Store) -> None:
    post = store.post("Keep me")
    refuse(store, ["posts", "edit", post.id, "--content", "y" * 3001], "3000")


def test_edit_refuses_a_published_post(store: Store) -> None:
    post = store.post("Out there", status="published", when=days_ago(1))
    refuse(
        store,
        ["posts", "edit", post.id, "--content", "Changed"],
        "published",
        "only draft and scheduled posts can be edited",
    )


@pytest.mark.parametrize("extra", [[], ["--content", "Text", "--editor"]], ids=["neither", "both"])
def test_edit_needs_exactly_one_of_content_and_editor(
    store: Store, extra: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # An editor that would change the text, to prove it is not run.
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", str(_script(tmp_path, "echo 'from editor' > \"$1\"")))
    post = store.post("Keep me")
    refuse(store, ["posts", "edit", post.id, *extra], "--content", "--editor")


def _script(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "editor.sh"
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def test_edit_with_editor(store: Store, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    # Rewrites what it is given: proves the editor saw the current text.
    monkeypatch.setenv("EDITOR", str(_script(tmp_path, "sed -i 's/weekly/daily/' \"$1\"")))
    post = store.post("A post about shipping weekly")

    data = ok_json("posts", "edit", post.id, "--editor")

    assert data == {"postId": post.id, "content": "A post about shipping daily"}
    versions = ok_json("posts", "show", post.id)["versions"]
    assert [v["content"] for v in versions] == [
        "A post about shipping weekly",
        "A post about shipping daily",
    ]


@pytest.mark.parametrize(
    "body",
    [
        "exit 0",  # leaves the file alone
        'cp "$1" "$1.tmp" && mv "$1.tmp" "$1" && touch "$1"',  # saves it unchanged
    ],
    ids=["untouched", "saved-unchanged"],
)
def test_edit_with_editor_unchanged_is_cancelled(
    store: Store, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, body: str
) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", str(_script(tmp_path, body)))
    post = store.post("A post about shipping weekly")

    refuse(store, ["posts", "edit", post.id, "--editor"], "cancelled")


def test_edit_with_editor_that_empties_the_text(
    store: Store, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", str(_script(tmp_path, ': > "$1"')))
    post = store.post("A post about shipping weekly")

    refuse(store, ["posts", "edit", post.id, "--editor"], "Content is required")


@pytest.mark.xfail(
    reason="BUG: a failing $EDITOR raises click.ClickException from the real click package, "
    "which SocialgenGroup re-raises and typer's vendored click does not handle: traceback",
    strict=True,
)
def test_edit_with_failing_editor_reports_an_error(
    store: Store, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", str(_script(tmp_path, "exit 3")))
    post = store.post("A post about shipping weekly")

    refuse(store, ["posts", "edit", post.id, "--editor"], "Editing failed")


# --------------------------------------------------------------------------- delete


def _post_rows(store: Store, post: Post) -> tuple[int, int, int]:
    return (
        count(store, Post, Post.id == post.id),
        count(store, PostVersion, PostVersion.post_id == post.id),
        count(store, Conversation, Conversation.id == post.conversation_id),
    )


@pytest.mark.parametrize("status", ["draft", "scheduled"])
def test_delete_with_yes_removes_post_versions_and_conversation(store: Store, status: str) -> None:
    post = store.post("To be deleted", status=status, when=days_ahead(1))
    keep = store.post("Stays")
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


def test_delete_asks_and_no_keeps_the_post(store: Store) -> None:
    post = store.post("Think twice")

    result = refuse(store, ["posts", "delete", post.id], "Abort", input="n\n")

    assert "Delete draft post" in result.output
    assert post.id in result.output
    assert _post_rows(store, post) == (1, 1, 1)


@pytest.mark.xfail(
    reason="BUG: answering no prints 'Error: Unexpected error: Abort' (typer's vendored "
    "click Abort is not the click.Abort SocialgenGroup lets through)",
    strict=True,
)
def test_delete_declined_is_reported_as_aborted(store: Store) -> None:
    post = store.post("Think twice")

    result = run("posts", "delete", post.id, input="n\n")

    assert result.exit_code == 1
    assert "Aborted" in result.output
    assert "Unexpected error" not in result.output


def test_delete_asks_and_yes_deletes(store: Store) -> None:
    post = store.post("Go ahead")

    result = run("posts", "delete", post.id, input="y\n")

    assert result.exit_code == 0, result.output
    assert "Delete draft post" in result.output
    assert f"Deleted post {post.id}" in result.stdout
    assert _post_rows(store, post) == (0, 0, 0)


@pytest.mark.parametrize("yes", [True, False])
def test_delete_refuses_a_published_post(store: Store, yes: bool) -> None:
    post = store.post("Out there", status="published", when=days_ago(1))

    result = refuse(
        store,
        ["posts", "delete", post.id, *(["--yes"] if yes else [])],
        "published",
        "social network",
        input="y\n",
    )

    assert "Delete published post" not in result.output  # refused before asking
    assert _post_rows(store, post) == (1, 1, 1)


# --------------------------------------------------------------------------- schedule


def test_schedule_a_draft_in_the_future(store: Store) -> None:
    post = store.post("Plan me")
    moment = (utcnow() + timedelta(days=3)).replace(microsecond=0)
    text = moment.astimezone(timezone(timedelta(hours=2))).isoformat()  # with +02:00

    data = ok_json("posts", "schedule", post.id, "--at", text)

    assert data == {"postId": post.id, "status": "scheduled", "scheduledAt": iso(moment)}
    saved = load_post(store, post.id)
    assert saved is not None
    assert saved.status == PostStatus.SCHEDULED
    assert saved.scheduled_at == moment
    assert post.id in ids(ok_json("posts", "timeline"))


def test_schedule_without_offset_is_utc_and_moves_a_scheduled_post(store: Store) -> None:
    post = store.post("Planned", status="scheduled", when=days_ahead(1))
    moment = (utcnow() + timedelta(days=5)).replace(microsecond=0)

    result = run("posts", "schedule", post.id, "--at", moment.strftime("%Y-%m-%dT%H:%M:%S"))

    assert result.exit_code == 0, result.output
    assert f"Scheduled {post.id} for {iso(moment)}" in result.stdout
    saved = load_post(store, post.id)
    assert saved is not None
    assert saved.scheduled_at == moment


def test_schedule_refuses_a_past_time(store: Store) -> None:
    post = store.post("Plan me")
    refuse(
        store,
        ["posts", "schedule", post.id, "--at", iso(days_ago(1)) or ""],
        "must be in the future",
    )


@pytest.mark.parametrize("text", ["next tuesday", "2030-13-01T00:00:00Z", ""])
def test_schedule_refuses_a_bad_time(store: Store, text: str) -> None:
    post = store.post("Plan me")
    refuse(store, ["posts", "schedule", post.id, "--at", text], "Not an ISO 8601 time")


def test_unschedule_makes_a_draft_again(store: Store) -> None:
    post = store.post("Planned", status="scheduled", when=days_ahead(2))

    data = ok_json("posts", "unschedule", post.id)

    assert data == {"postId": post.id, "status": "draft", "scheduledAt": None}
    saved = load_post(store, post.id)
    assert saved is not None
    assert (saved.status, saved.scheduled_at) == (PostStatus.DRAFT, None)
    assert post.id not in ids(ok_json("posts", "timeline"))
    assert post.id in ids(ok_json("posts", "recent"))


def test_unschedule_refuses_a_draft(store: Store) -> None:
    post = store.post("Not planned")
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


def test_mark_published_without_url(store: Store) -> None:
    post = store.post("Going out", status="scheduled", when=days_ahead(1))

    result = run("posts", "mark-published", post.id)

    assert result.exit_code == 0, result.output
    assert f"Published {post.id}" in result.stdout
    saved = load_post(store, post.id)
    assert saved is not None
    assert (saved.status, saved.post_url) == (PostStatus.PUBLISHED, None)


def test_mark_published_refuses_a_draft(store: Store) -> None:
    post = store.post("Not planned")
    refuse(
        store,
        ["posts", "mark-published", post.id, "--url", "https://example.com/p"],
        "Only scheduled posts",
        "schedule it first",
    )


@pytest.mark.parametrize(
    "url", ["not a url", "ftp://example.com/p", "https://", "https://x/" + "a" * 2048]
)
def test_mark_published_refuses_a_bad_url(store: Store, url: str) -> None:
    post = store.post("Going out", status="scheduled", when=days_ahead(1))
    refuse(store, ["posts", "mark-published", post.id, "--url", url], "Not a valid http(s) URL")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["schedule", "POST", "--at", "FUTURE"], ["Cannot schedule a published post"]),
        (["unschedule", "POST"], ["Only scheduled posts", "published"]),
        (["mark-published", "POST"], ["Only scheduled posts", "published"]),
        (["edit", "POST", "--content", "Again"], ["only draft and scheduled"]),
        (["delete", "POST", "--yes"], ["social network"]),
    ],
    ids=["schedule", "unschedule", "mark-published", "edit", "delete"],
)
def test_published_is_final(store: Store, args: list[str], words: list[str]) -> None:
    post = store.post("Going out", status="scheduled", when=days_ahead(1))
    ok_json("posts", "mark-published", post.id)
    future = iso(days_ahead(2)) or ""
    args = [post.id if a == "POST" else future if a == "FUTURE" else a for a in args]

    refuse(store, ["posts", *args], *words)
    saved = load_post(store, post.id)
    assert saved is not None
    assert saved.status == PostStatus.PUBLISHED


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


def test_conversations_pages(store: Store) -> None:
    posts = [store.post(f"Post number {n}") for n in range(5)]

    first = ok_json("conversations", "--limit", "2")
    third = ok_json("conversations", "--page", "3", "--limit", "2")
    beyond = ok_json("conversations", "--page", "4", "--limit", "2")

    assert first["pagination"] == {"page": 1, "limit": 2, "total": 5, "pages": 3}
    assert third["pagination"] == {"page": 3, "limit": 2, "total": 5, "pages": 3}
    assert len(first["conversations"]) == 2
    assert len(third["conversations"]) == 1
    assert beyond["conversations"] == []
    second = ok_json("conversations", "--page", "2", "--limit", "2")
    seen = [c["_id"] for page in (first, second, third) for c in page["conversations"]]
    assert sorted(seen) == sorted(p.conversation_id for p in posts)
    assert ok_json("conversations", "--limit", "100")["pagination"]["limit"] == 100


def test_conversations_empty(store: Store) -> None:
    data = ok_json("conversations", "-w", store.workspace("Empty"))
    assert data == {
        "conversations": [],
        "pagination": {"page": 1, "limit": 20, "total": 0, "pages": 0},
    }


def test_conversations_human_table(store: Store) -> None:
    post = store.post("Why we ship weekly")

    result = run("conversations", env={"COLUMNS": "200"})

    assert result.exit_code == 0, result.output
    assert "Conversations (page 1 of 1, 1 in all)" in result.stdout
    assert post.conversation_id in result.stdout
    assert "Why we ship weekly" in result.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--page", "0"], ["page must be a positive integer"]),
        (["--page", "-1"], ["page must be a positive integer"]),
        (["--limit", "0"], ["limit must be a positive integer"]),
        (["--limit", "101"], ["limit must be at most 100"]),
    ],
    ids=["page0", "page-1", "limit0", "limit101"],
)
def test_conversations_refuses_bad_paging(store: Store, args: list[str], words: list[str]) -> None:
    store.post("Something")
    refuse(store, ["conversations", *args], *words)


# --------------------------------------------------------------------------- --json errors


def test_json_errors_go_to_stderr_as_an_object(store: Store) -> None:
    post = store.post("Keep me")
    before = snapshot(store)

    result = run("posts", "edit", post.id, "--content", " ", "--json")

    assert_refused(store, before, result)
    assert result.stdout == ""
    assert json.loads(result.stderr) == {"success": False, "message": "Content is required"}


def test_human_errors_go_to_stderr(store: Store) -> None:
    result = run("posts", "show", "nope")

    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.strip() == "Error: Post not found"


@pytest.mark.xfail(
    reason="BUG: usage errors are reported as 'Unexpected error: ...' with exit 1 instead of "
    "click's usage message with exit 2 (SocialgenGroup catches the real click's exceptions, "
    "typer 0.29 raises its vendored typer._click ones)",
    strict=True,
)
@pytest.mark.parametrize(
    "args",
    [
        ["posts", "schedule", "some-id"],  # --at missing
        ["conversations", "--limit", "many"],
        ["posts", "no-such-command"],
    ],
    ids=["missing-option", "bad-int", "unknown-command"],
)
def test_usage_errors_are_usage_errors(store: Store, args: list[str]) -> None:
    result = run(*args)

    assert result.exit_code == 2
    assert "Unexpected error" not in result.output


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
    assert "Error:" in done.stderr
    assert "published post must be deleted on the social network" in done.stderr
    assert "Traceback" not in done.stderr
    assert snapshot(store) == before


def test_installed_entry_point_json_error(store: Store) -> None:
    other = store.workspace("Other")
    post = store.post("Mine")
    before = snapshot(store)

    done = _run_installed("posts", "edit", post.id, "--content", "Changed", "-w", other, "--json")

    assert done.returncode == 1
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    assert json.loads(done.stderr) == {"success": False, "message": "Post not found"}
    assert snapshot(store) == before


def test_installed_entry_point_succeeds_on_the_same_store(store: Store) -> None:
    post = store.post("Seen by another process")

    done = _run_installed("posts", "recent", "--json")

    assert done.returncode == 0, done.stderr
    assert [p["id"] for p in json.loads(done.stdout)["posts"]] == [post.id]


def test_snapshot_sees_changes(store: Store) -> None:
    # Sanity for the helpers above: snapshot sees a new post, so "unchanged" means something.
    before = snapshot(store)
    store.post("New")
    assert snapshot(store) != before
    with read_session(store.engine) as session:
        assert len(session.exec(select(Post)).all()) == 1
