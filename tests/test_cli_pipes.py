"""The CLI in scripts and pipes, run as a script runs it: the real `socialgen` in a
subprocess, stdout read through a pipe, nothing on stdin (as `gh` behaves there)."""

from __future__ import annotations

import json

import pytest

from tests.conftest import Store
from tests.terminal_support import run_in_pipe
from tests.test_cli_posts import snapshot


@pytest.mark.parametrize("args", [["-h"], ["posts", "-h"], ["posts", "recent", "-h"]])
def test_dash_h_is_help(args: list[str]) -> None:
    done = run_in_pipe(*args)

    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Usage:")
    assert "-h, --help" in done.stdout


def test_a_json_error_is_json_on_stdout_with_exit_1(store: Store) -> None:
    post = store.post("Keep me")
    before = snapshot(store)

    done = run_in_pipe("posts", "edit", post.id, "--content", " ", "--json")

    assert done.returncode == 1
    assert done.stderr == ""
    assert json.loads(done.stdout) == {"success": False, "message": "Content is required"}
    assert snapshot(store) == before


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["posts", "recent", "--json", "--bogus"], "No such option: --bogus"),
        (["posts", "recnt", "--json"], "No such command 'recnt'"),
        (["posts", "recent", "--limit", "many", "--json"], "'many' is not a valid int"),
        (["posts", "show", "--json"], "Missing argument"),
    ],
)
def test_a_usage_error_under_json_is_json_with_exit_2(
    store: Store, args: list[str], words: str
) -> None:
    done = run_in_pipe(*args)

    assert done.returncode == 2
    assert done.stderr == ""
    error = json.loads(done.stdout)
    assert error["success"] is False
    assert words in error["message"]


def test_a_usage_error_without_json_stays_typers(store: Store) -> None:
    done = run_in_pipe("posts", "recent", "--bogus")

    assert done.returncode == 2
    assert done.stdout == ""
    assert "Usage:" in done.stderr and "No such option: --bogus" in done.stderr


def test_json_after_a_double_dash_is_a_value_not_the_option(store: Store) -> None:
    done = run_in_pipe("posts", "show", "--bogus", "--", "--json")

    assert done.returncode == 2
    assert done.stdout == ""
    assert "No such option: --bogus" in done.stderr


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_a_confirmation_without_a_terminal_says_pass_yes(
    store: Store, json_flag: list[str]
) -> None:
    post = store.post("Think twice")
    before = snapshot(store)

    done = run_in_pipe("posts", "delete", post.id, *json_flag)

    assert done.returncode == 1
    said = json.loads(done.stdout)["message"] if json_flag else done.stderr
    assert "pass --yes" in said
    assert "Delete draft post" in said  # what it would have asked
    assert "Aborted" not in done.stdout + done.stderr
    assert snapshot(store) == before

    deleted = run_in_pipe("posts", "delete", post.id, "--yes", *json_flag)
    assert deleted.returncode == 0, deleted.stderr


def test_a_style_delete_without_a_terminal_says_pass_yes(store: Store) -> None:
    from socialgen.store.engine import transaction
    from socialgen.styles.service import create_style

    with transaction(store.engine) as session:
        style_id = create_style(session, store.workspace_id, "Founder").id
    before = snapshot(store)

    done = run_in_pipe("style", "delete", style_id)

    assert done.returncode == 1
    assert "Delete style 'Founder'" in done.stderr and "pass --yes" in done.stderr
    assert snapshot(store) == before


# ----------------------------------------------------------------- listings in a pipe


def plain_rows(stdout: str) -> list[list[str]]:
    """The rows a program reads: no box drawing, no colour codes, one line per row."""
    assert not set(stdout) & set("│┃─━┏┓┗┛╭╮╰╯\x1b"), stdout
    return [line.split("\t") for line in stdout.splitlines()]


def test_posts_recent_prints_whole_ids_as_tab_separated_rows(store: Store) -> None:
    long_text = "Shipping weekly beats shipping perfect, " * 4 + "every\tsingle\ntime"
    older = store.post("First draft")
    newer = store.post(long_text)

    done = run_in_pipe("posts", "recent", "--limit", "1")

    assert done.returncode == 0, done.stderr
    [row] = plain_rows(done.stdout)
    assert row[:3] == [newer.id, "draft", "text"]
    assert len(row) == 5
    assert row[4] == " ".join(long_text.split())  # whole, on one line
    assert older.id not in done.stdout
    assert "1 more not shown" in done.stderr  # a note for the person, not a row


def test_an_empty_listing_prints_no_rows(store: Store) -> None:
    done = run_in_pipe("posts", "timeline")

    assert (done.returncode, done.stdout) == (0, "")
    assert "nothing in the last 90 days" in done.stderr


def test_conversations_are_tab_separated_rows(store: Store) -> None:
    post = store.post("A post about piping")

    done = run_in_pipe("conversations")

    assert done.returncode == 0, done.stderr
    [row] = plain_rows(done.stdout)
    assert row[0] == str(post.conversation_id)
    assert row[3] == "active"


@pytest.mark.parametrize(
    ("args", "first_fields"),
    [
        (["style", "list"], ["STYLE", "Founder"]),
        (["workspace", "list"], ["WORKSPACE", "Personal"]),
        (["user", "list"], ["OWNER", "owner@localhost"]),
    ],
)
def test_record_listings_are_tab_separated_rows(
    store: Store, args: list[str], first_fields: list[str]
) -> None:
    from socialgen.store.engine import transaction
    from socialgen.styles.service import create_style

    with transaction(store.engine) as session:
        style_id = create_style(session, store.workspace_id, "Founder").id
    ids = {"STYLE": style_id, "WORKSPACE": store.workspace_id, "OWNER": store.owner_id}

    done = run_in_pipe(*args)

    assert done.returncode == 0, done.stderr
    [row, *_] = plain_rows(done.stdout)
    assert row[:2] == [ids[first_fields[0]], first_fields[1]]
