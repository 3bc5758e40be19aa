"""The config file and the one settings object, through the real CLI on real files:
precedence (option > environment > file > default), `config list` origins with file
lines, refused keys and values that leave the file byte for byte, TOML errors named by
line without a traceback, atomic writes that keep a person's comments."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from socialgen.cli.main import app
from socialgen.config.file import set_value, unset_value
from socialgen.config.loading import load
from tests.s3_support import free_port, wait_for_port

runner = CliRunner()


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty home and a config file path of our own; no SOCIALGEN_* leaks in."""
    for name in list(os.environ):
        if name.startswith("SOCIALGEN_") and name != "SOCIALGEN_TEST_DATABASE_URL":
            monkeypatch.delenv(name)
    path = tmp_path / "conf" / "config.toml"
    monkeypatch.setenv("SOCIALGEN_CONFIG", str(path))
    monkeypatch.setenv("SOCIALGEN_HOME", str(tmp_path / "home"))
    return path


def cli(*args: str) -> Result:
    return runner.invoke(app, list(args))


def listed(*args: str) -> dict[str, dict[str, object]]:
    result = cli("config", "list", "--json", *args)
    assert result.exit_code == 0, result.output
    return {row["key"]: row for row in json.loads(result.stdout)["settings"]}


# --------------------------------------------------------------------------- precedence


def test_environment_beats_file_beats_default(
    config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert load().settings.max_tokens == 700
    assert cli("config", "set", "max_tokens", "300").exit_code == 0
    assert load().settings.max_tokens == 300
    monkeypatch.setenv("SOCIALGEN_MAX_TOKENS", "120")
    assert load().settings.max_tokens == 120
    # A command-line option (an override) beats them all.
    assert load({"max_tokens": 42}).settings.max_tokens == 42
    assert load({"max_tokens": 42}).origin("max_tokens").kind == "option"


def test_durations_and_flags_from_the_file(config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config.parent.mkdir(parents=True)
    config.write_text('publish_grace = "30m"\nscheduler = false\nscheduler_poll = 2\n')
    settings = load().settings
    assert settings.publish_grace == timedelta(minutes=30)
    assert settings.scheduler is False
    assert settings.scheduler_poll == timedelta(seconds=2)
    monkeypatch.setenv("SOCIALGEN_SCHEDULER", "on")
    assert load().settings.scheduler is True


def test_environment_keeps_its_lenient_reading(
    config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As before the file existed: a typo falls back to the default, a number under
    the minimum becomes the minimum (a deployment's scheduler keeps running), but a
    negative cache size the default (it was so before it became a setting)."""
    monkeypatch.setenv("SOCIALGEN_MAX_TOKENS", "lots")
    monkeypatch.setenv("SOCIALGEN_FILE_CACHE_MB", "-3")
    monkeypatch.setenv("SOCIALGEN_PUBLISH_GRACE", "soon")
    monkeypatch.setenv("SOCIALGEN_KEEPALIVE_SECONDS", "0")
    monkeypatch.setenv("SOCIALGEN_ENGINE", "llama.cpp")  # not one of the engines' names
    settings = load().settings
    assert settings.engine is None
    assert settings.max_tokens == 700
    assert settings.publish_grace == timedelta(hours=6)
    assert settings.keepalive_seconds == 0.01
    assert settings.file_cache_mb == 500


def test_serve_listens_where_option_env_and_file_say(
    config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`serve --port` > SOCIALGEN_PORT > `port` in the file, in a real server process."""
    from_file, from_env, from_option = free_port(), free_port(), free_port()
    assert cli("config", "set", "port", str(from_file)).exit_code == 0

    def serves_on(port: int, *args: str, **env: str) -> None:
        process = subprocess.Popen(
            [sys.executable, "-m", "socialgen", "serve", "--no-scheduler", *args],
            env={**os.environ, **env},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_for_port(port, process)
        finally:
            process.terminate()
            process.wait(timeout=10)

    serves_on(from_file)
    serves_on(from_env, SOCIALGEN_PORT=str(from_env))
    serves_on(from_option, "--port", str(from_option), SOCIALGEN_PORT=str(from_env))


def test_workspace_from_the_file(config: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--workspace > SOCIALGEN_WORKSPACE > `workspace` in the file > the default one."""
    assert cli("workspace", "create", "Agency", "--json").exit_code == 0
    assert cli("config", "set", "workspace", "Nowhere").exit_code == 0

    from_file = cli("posts", "recent")
    assert from_file.exit_code == 1
    assert "Nowhere" in from_file.output
    assert cli("posts", "recent", "-w", "Agency").exit_code == 0
    monkeypatch.setenv("SOCIALGEN_WORKSPACE", "Agency")
    assert cli("posts", "recent").exit_code == 0


# --------------------------------------------------------------------------- config list


def test_list_shows_where_each_value_came_from(
    config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config.parent.mkdir(parents=True)
    config.write_text('# my settings\n\nmodel = "openai/gpt-4o-mini"\napi_base = "http://x:1"\n')
    monkeypatch.setenv("SOCIALGEN_API_BASE", "http://127.0.0.1:9/v1")

    rows = listed()

    assert rows["model"]["origin"] == f"file {config}:3"
    assert rows["model"]["value"] == "openai/gpt-4o-mini"
    assert rows["api_base"]["origin"] == "env SOCIALGEN_API_BASE"
    assert rows["api_base"]["value"] == "http://127.0.0.1:9/v1"
    assert rows["max_tokens"] == {
        "key": "max_tokens",
        "value": 700,
        "origin": "default",
        "source": "default",
        "env": "SOCIALGEN_MAX_TOKENS",
        "envOnly": False,
    }
    assert rows["publish_grace"]["value"] == "6h"
    table = cli("config", "list")
    assert table.exit_code == 0
    assert f"{config}:3" in table.stdout


def test_get_and_path(config: Path) -> None:
    assert cli("config", "path").stdout.strip() == str(config)
    assert json.loads(cli("config", "path", "--json").stdout) == {
        "path": str(config),
        "exists": False,
    }
    assert cli("config", "set", "publish_grace", "90m").exit_code == 0
    assert cli("config", "get", "publish_grace").stdout.strip() == "90m"
    got = json.loads(cli("config", "get", "publish-grace", "--json").stdout)
    assert (got["value"], got["origin"]) == ("90m", f"file {config}:1")
    assert cli("config", "get", "model").stdout.strip() == ""


def test_the_home_sets_where_the_file_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SOCIALGEN_CONFIG")
    monkeypatch.setenv("SOCIALGEN_HOME", str(tmp_path / "h"))
    assert set_value("model", "openai/x") == tmp_path / "h" / "config.toml"


# --------------------------------------------------------------------------- refusals


def test_unknown_key_suggests_the_nearest(config: Path) -> None:
    result = cli("config", "set", "modle", "x")
    assert result.exit_code == 1
    assert "Unknown setting 'modle'. Did you mean 'model'?" in result.output
    assert "publish_grace" in result.output  # the known ones are named
    assert not config.exists()
    assert cli("config", "get", "pubish_grace").exit_code == 1


@pytest.mark.parametrize(
    ("key", "value", "says"),
    [
        ("port", "eighty", "port: expected a whole number, got 'eighty'"),
        ("port", "70000", "port: must be at most 65535"),
        ("api_base", "localhost:8000", "api_base: expected a URL starting with http://"),
        ("database_url", "mysql://db/x", "database_url: expected a URL starting with sqlite://"),
        ("publish_grace", "soon", "publish_grace: not a duration: 'soon'"),
        ("small_model", "maybe", "small_model: expected true or false"),
        ("engine", "llama.cpp", "engine: expected one of xllamacpp, llama-cpp, got 'llama.cpp'"),
        ("linkedin_version", "2026-10", "not a LinkedIn API version (YYYYMM)"),
        ("secret_key", "abc", "secret_key is a secret: set SOCIALGEN_SECRET_KEY"),
        ("file_cache_mb", "1.5", "file_cache_mb: expected a whole number, got '1.5'"),
    ],
)
def test_bad_value_is_refused_and_the_file_untouched(
    config: Path, key: str, value: str, says: str
) -> None:
    config.parent.mkdir(parents=True)
    original = b'# mine\nmodel = "openai/x"  # keep\n'
    config.write_bytes(original)

    result = cli("config", "set", key, value)

    assert result.exit_code == 1
    assert says in result.output
    assert "was not changed" in result.output
    assert "Traceback" not in result.output
    assert config.read_bytes() == original
    assert [p.name for p in config.parent.iterdir()] == ["config.toml"]  # no temp file left


def test_bad_value_in_a_hand_edited_file_names_its_line(config: Path) -> None:
    config.parent.mkdir(parents=True)
    config.write_text('model = "openai/x"\n\nport = "eighty"\n')

    result = cli("posts", "recent")

    assert result.exit_code == 1
    assert f"{config}:3: port: expected a whole number" in result.output
    assert "Traceback" not in result.output
    # The way out still works: unset the bad key.
    assert cli("config", "unset", "port").exit_code == 0
    assert config.read_text() == 'model = "openai/x"\n\n'


@pytest.mark.parametrize("command", [["config", "list"], ["posts", "recent"], ["chat", "hi"]])
def test_toml_syntax_error_is_one_line_naming_the_line(config: Path, command: list[str]) -> None:
    config.parent.mkdir(parents=True)
    original = b'model = "openai/x"\nport = = 3\n'
    config.write_bytes(original)

    result = cli(*command)

    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert result.output.strip().splitlines() == [
        f"Error: {config}:2: not valid TOML (Invalid value); fix or remove that line"
    ]
    set_result = cli("config", "set", "model", "openai/y")
    assert set_result.exit_code == 1
    assert f"{config}:2: not valid TOML" in set_result.output
    assert config.read_bytes() == original


def test_unknown_key_in_the_file_is_named_with_its_line(config: Path) -> None:
    config.parent.mkdir(parents=True)
    config.write_text("\nmax_token = 5\n")
    result = cli("config", "list")
    assert result.exit_code == 1
    assert f"{config}:2: Unknown setting 'max_token'. Did you mean 'max_tokens'?" in result.output


# --------------------------------------------------------------------------- writing


def test_set_keeps_comments_and_replaces_atomically(config: Path) -> None:
    config.parent.mkdir(parents=True)
    config.write_text('# written by hand\nmodel = "openai/x"  # the cheap one\n\n# the end\n')
    config.chmod(0o640)
    original = config.read_text()

    with config.open() as reader:  # opened before the write: a rename leaves it as it was
        path = set_value("model", "openai/y")
        assert reader.read() == original
    set_value("publish-grace", "45m")

    assert path == config
    assert config.read_text() == (
        '# written by hand\nmodel = "openai/y"  # the cheap one\n\n# the end\n'
        'publish_grace = "45m"\n'
    )
    assert config.stat().st_mode & 0o777 == 0o640  # the owner's choice kept
    assert [p.name for p in config.parent.iterdir()] == ["config.toml"]
    unset_value("model")
    unset_value("model")  # nothing to remove: fine
    assert "model" not in config.read_text()
    assert "# the cheap one" not in config.read_text()
    assert "# written by hand" in config.read_text()


def test_values_are_stored_typed(config: Path) -> None:
    set_value("port", "8080")
    set_value("small_model", "yes")
    set_value("timeout", "2.5")
    assert config.read_text() == "port = 8080\nsmall_model = true\ntimeout = 2.5\n"
    assert load().settings.port == 8080


def test_set_says_when_the_environment_still_wins(
    config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALGEN_MODEL", "openai/env")
    result = cli("config", "set", "model", "openai/file")
    assert result.exit_code == 0
    assert "SOCIALGEN_MODEL is set in the environment and wins" in result.stdout
    assert json.loads(cli("config", "get", "model", "--json").stdout)["value"] == "openai/env"


def test_a_config_path_that_is_a_folder_is_a_clear_error(
    config: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config.mkdir(parents=True)  # config.toml is a directory
    for args in (["config", "set", "model", "openai/x"], ["config", "list"]):
        result = cli(*args)
        assert result.exit_code == 1
        assert "Traceback" not in result.output
        assert f"{config}: cannot" in result.output
    assert list(config.parent.iterdir()) == [config]  # no temporary file left behind


@pytest.mark.parametrize("name", ["home", "database_url", "workspace"])
def test_the_light_read_agrees_with_the_settings_object(
    config: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """light_setting (what every command reads first, without pydantic-settings) gives
    what load() gives: default, then the file, then the environment."""
    from socialgen.config import light_setting

    def both() -> tuple[object, object]:
        value = light_setting(name)
        return (str(value) if value is not None else None), (
            str(getattr(load().settings, name))
            if getattr(load().settings, name) is not None
            else None
        )

    monkeypatch.delenv(f"SOCIALGEN_{name.upper()}", raising=False)
    light, full = both()
    assert light == full
    values = {"home": "/srv/social", "database_url": "sqlite:////srv/x.db", "workspace": "Acme"}
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'{name} = "{values[name]}"\n')
    assert both() == (values[name], values[name])
    monkeypatch.setenv(f"SOCIALGEN_{name.upper()}", "/from/env" if name == "home" else "envval")
    light, full = both()
    assert light == full and light in {"/from/env", "envval"}
