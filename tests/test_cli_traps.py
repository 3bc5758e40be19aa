"""The traps a new user fell into (issue 40, item 5): a one-word `post`/`chat` topic
that is a `posts` command, a mistyped command or group, a pipe whose reader left.

Help at 80 columns is tests/test_cli_help_width.py; short ids and post text in what a
person reads, tests/test_cli_short_ids.py; `--to linkedin`, tests/test_accounts_bare_network.py.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
import typer
from sqlmodel import select
from typer.testing import CliRunner

from socialgen.cli.main import app
from socialgen.cli.process_exit import PIPE_CLOSED, closed_pipe
from socialgen.cli.suggest import suggestions, with_suggestion
from socialgen.store.engine import read_session
from socialgen.store.tables import Post
from tests.conftest import Store
from tests.scripted_support import ScriptedAI
from tests.terminal_support import run_at_terminal

runner = CliRunner()


def post_count(store: Store) -> int:
    with read_session(store.engine) as session:
        return len(session.exec(select(Post)).all())


# --- `socialgen post recent`: a posts command, not a topic ------------------------------


@pytest.mark.parametrize(
    ("command", "word"), [("post", "recent"), ("post", "Schedule"), ("chat", "timeline")]
)
def test_a_one_word_topic_that_is_a_posts_command_is_refused_in_a_script(
    store: Store, scripted_ai: ScriptedAI, command: str, word: str
) -> None:
    result = scripted_ai.invoke([command, word])

    assert result.exit_code == 1
    assert f"did you mean `socialgen posts {word.lower()}`?" in " ".join(result.output.split())
    assert "in more words" in result.output
    assert scripted_ai.calls == []  # no model time spent
    assert post_count(store) == 0


def test_the_refusal_is_json_under_json(store: Store, scripted_ai: ScriptedAI) -> None:
    result = scripted_ai.invoke(["post", "recent", "--json"])

    assert result.exit_code == 1
    error = json.loads(result.stdout)
    assert error["success"] is False
    assert "socialgen posts recent" in error["message"]


def test_a_command_added_to_posts_by_another_feature_is_guarded(
    store: Store, scripted_ai: ScriptedAI
) -> None:
    """`publish` joins `posts` from publishing/feature.py (`extends`)."""
    result = scripted_ai.invoke(["post", "publish"])

    assert result.exit_code == 1
    assert "socialgen posts publish" in result.output
    assert scripted_ai.calls == []


@pytest.mark.parametrize("topic", ["recent trends in hiring", "recents", "show-and-tell"])
def test_other_topics_are_written_as_before(
    store: Store, scripted_ai: ScriptedAI, topic: str
) -> None:
    result = scripted_ai.invoke(["post", topic])

    assert result.exit_code == 0, result.output
    assert "posts command" not in result.output
    assert post_count(store) == 1


def test_at_a_terminal_yes_writes_the_post(
    store: Store, scripted_ai: ScriptedAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("socialgen.generation.topic_guard_cli.at_terminal", lambda: True)

    result = scripted_ai.invoke(["post", "recent"], input="y\n")

    assert result.exit_code == 0, result.output
    assert '"recent" is also a posts command (socialgen posts recent)' in result.output
    assert 'Write a post about "recent"? [y/N]' in result.output
    assert post_count(store) == 1


def test_at_a_real_terminal_no_points_to_the_command(store: Store) -> None:
    """The real process, a terminal on stdin: the answer "n" (also the default)."""
    done = run_at_terminal("post", "recent", answer="n\n")

    assert done.returncode == 1
    assert "Nothing written. Did you mean: socialgen posts recent" in done.stderr
    assert "Traceback" not in done.stderr
    assert post_count(store) == 0


# --- "Did you mean" for every mistyped group and command ------------------------------


def test_a_mistyped_group_not_loaded_yet_gets_a_suggestion() -> None:
    """Typer suggested only among commands already loaded: groups load when named."""
    result = runner.invoke(app, ["insight"])

    assert result.exit_code == 2
    assert "No such command 'insight'. Did you mean 'insights'?" in result.output


def test_the_suggestion_under_json_is_json(store: Store) -> None:
    result = runner.invoke(app, ["insight", "--json"])

    assert result.exit_code == 2
    assert json.loads(result.stdout) == {
        "success": False,
        "message": "No such command 'insight'. Did you mean 'insights'?",
    }


def _commands(group: Any, ctx: Any, path: list[str]) -> list[tuple[list[str], str, list[str]]]:
    """(the group's path, one command's name, its siblings) for every command."""
    found = []
    names = group.list_commands(ctx)
    for name in names:
        found.append((path, name, names))
        command = group.get_command(ctx, name)
        if hasattr(command, "list_commands"):
            found += _commands(command, typer.Context(command, parent=ctx), [*path, name])
    return found


def every_command() -> list[tuple[list[str], str, list[str]]]:
    root = typer.main.get_command(app)
    return _commands(root, typer.Context(root), [])


def _typo(name: str) -> str:
    """One letter left out (inside the word, where a typist drops one)."""
    middle = len(name) // 2
    return name[:middle] + name[middle + 1 :]


def test_every_group_and_command_mistyped_is_suggested() -> None:
    checked = 0
    for path, name, siblings in every_command():
        typo = _typo(name)
        if len(name) < 3 or typo in siblings:  # "x": no typo of it is a likely one
            continue
        result = runner.invoke(app, [*path, typo])
        assert result.exit_code == 2, (path, typo, result.output)
        said = " ".join(result.output.split())
        assert f"No such command '{typo}'. Did you mean" in said, (path, typo, said)
        assert f"'{name}'" in said.split("Did you mean", 1)[1], (path, typo, said)
        checked += 1
    assert checked > 60  # every group: posts, accounts add, insights rank, config ...


def test_suggestions_close_in_spelling_or_started() -> None:
    names = ["post", "posts", "insights", "accounts", "calendar"]
    assert suggestions("postt", names) == ["post", "posts"]
    assert suggestions("ins", names) == ["insights"]
    assert suggestions("zzz", names) == []
    # typer's own suggestion (among the loaded commands only) gives way to the full one
    message = "No such command 'postt'. Did you mean 'post'?"
    assert with_suggestion(message, "postt", names).endswith("Did you mean 'post', 'posts'?")


# --- a pipe whose reader left ----------------------------------------------------------


def test_a_closed_pipe_is_recognised_inside_a_group_of_errors() -> None:
    assert closed_pipe(BrokenPipeError())
    assert closed_pipe(ExceptionGroup("task group", [ValueError(), BrokenPipeError()]))
    assert not closed_pipe(OSError("disk full"))
    assert PIPE_CLOSED == 128 + 13  # what a shell says of a tool SIGPIPE ended
