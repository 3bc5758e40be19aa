"""The root command: help and usage errors behave as typer intends, never as errors."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from socialgen.cli.main import app
from tests.conftest import Store
from tests.terminal_support import run_at_terminal

runner = CliRunner()


@pytest.mark.parametrize(
    "args",
    [["--help"], ["posts", "--help"], ["posts", "edit", "--help"], ["workspace", "--help"]],
)
def test_help_exits_zero_without_an_error(args: list[str]) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "Usage" in result.output
    assert "Error" not in result.output


def test_a_missing_argument_is_a_usage_error_with_exit_2(store: Store) -> None:
    result = runner.invoke(app, ["posts", "show"])
    assert result.exit_code == 2
    assert "Missing argument" in result.output
    assert "Unexpected error" not in result.output


def test_declining_a_confirmation_aborts_cleanly(store: Store) -> None:
    post = store.post("keep me")
    result = run_at_terminal("posts", "delete", post.id, answer="n\n")
    assert result.returncode == 1
    assert "Unexpected error" not in result.stderr
    assert "Aborted" in result.stderr


def test_a_group_without_a_command_shows_its_help() -> None:
    result = runner.invoke(app, ["posts"])
    assert "Unexpected error" not in result.output
    assert "recent" in result.output


def test_version_prints_the_package_version_and_the_engine() -> None:
    from importlib.metadata import version

    from socialgen.ai.engine import engine_name, engine_version
    from socialgen.app.runtime import Runtime

    engine = engine_name(Runtime().light_setting("engine"))
    installed = engine_version(engine) or "(not installed)"
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.stdout == f"socialgen {version('socialgen')} (engine: {engine} {installed})\n"


@pytest.mark.parametrize("engine", ["xllamacpp", "llama-cpp"])
def test_version_names_the_engine_the_setting_chose(
    engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALGEN_ENGINE", engine)
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert f"(engine: {engine} " in result.stdout


def test_a_group_loads_once_however_often_the_cli_runs_in_process() -> None:
    """Publishing extends the posts group; loading the group on every invoke added its
    commands to the group's app again each time (each invoke slower than the last)."""
    from socialgen.posts.cli import app as posts_app

    first = runner.invoke(app, ["posts", "--help"])
    registered = len(posts_app.registered_commands)
    again = [runner.invoke(app, ["posts", "--help"]) for _ in range(3)]

    assert len(posts_app.registered_commands) == registered
    assert {result.stdout for result in again} == {first.stdout}
    assert first.stdout.count(" publish ") == 1
