"""config/precedence.py decides every setting's source: option > environment > file >
default. The settings object, light_setting and `config list`'s origins all ask it, so
they agree on every key, and a quick read whose variable is set never opens the file."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from socialgen.app.runtime import Runtime
from socialgen.config import light_setting
from socialgen.config.file import FileValue
from socialgen.config.keys import BY_NAME, KEYS
from socialgen.config.loading import load
from socialgen.config.precedence import Decided, Origin, decide

PATH = Path("/etc/socialgen/config.toml")
KEY = BY_NAME["max_tokens"]


def decided(
    options: dict[str, Any] | None = None,
    environ: dict[str, str] | None = None,
    file: dict[str, FileValue] | None = None,
) -> Decided:
    return decide(
        KEY, options=options or {}, environ=environ or {}, read_file=lambda: (PATH, file or {})
    )


@pytest.fixture
def clean(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No SOCIALGEN_* variable but a config file of our own; its path."""
    for name in list(os.environ):
        if name.startswith("SOCIALGEN_") and name != "SOCIALGEN_TEST_DATABASE_URL":
            monkeypatch.delenv(name)
    path = tmp_path / "config.toml"
    monkeypatch.setenv("SOCIALGEN_CONFIG", str(path))
    monkeypatch.setenv("SOCIALGEN_HOME", str(tmp_path / "home"))
    return path


def test_each_source_in_its_order() -> None:
    file = {"max_tokens": FileValue(300, 4)}
    env = {"SOCIALGEN_MAX_TOKENS": "120"}
    assert decided() == Decided(700, Origin("default"))
    assert decided(file=file) == Decided(300, Origin("file", f"{PATH}:4"))
    assert decided(environ=env, file=file) == Decided(120, Origin("env", KEY.env))
    assert decided({"max_tokens": 42}, env, file) == Decided(42, Origin("option"))


def test_an_empty_variable_is_unset_and_one_of_spaces_hides_the_file() -> None:
    file = {"max_tokens": FileValue(300, 1)}
    assert decided(environ={KEY.env: ""}, file=file).value == 300
    assert decided(environ={KEY.env: "  "}, file=file) == Decided(700, Origin("env", KEY.env))


def test_a_set_variable_never_reads_the_file() -> None:
    def broken() -> tuple[Path, dict[str, FileValue]]:
        raise AssertionError("the file was read")

    found = decide(KEY, options={}, environ={KEY.env: "90"}, read_file=broken)
    assert found.value == 90


def test_the_quick_read_and_the_settings_object_agree_on_every_key(
    clean: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Defaults (keys.py's, for both), a file value, a variable (the lenient reading),
    and a lower-case variable, which neither reads."""
    clean.write_text('model = "openai/file"\nport = 9001\n')
    monkeypatch.setenv("SOCIALGEN_MAX_TOKENS", "0")  # under the minimum: the minimum
    monkeypatch.setenv("socialgen_timeout", "3")
    settings = load().settings
    for key in KEYS:
        light = light_setting(key.name)
        if key.kind == "path" and light is not None:
            light = Path(light)  # as the settings object types it
        assert light == getattr(settings, key.name), key.name
    assert (settings.model, settings.port, settings.max_tokens) == ("openai/file", 9001, 1)
    assert settings.timeout == 120.0


def test_a_runtime_s_options_win_in_the_quick_read_too(
    clean: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALGEN_WORKSPACE", "FromEnv")
    runtime = Runtime(options={"workspace": "FromOption"})
    assert runtime.light_setting("workspace") == "FromOption"
    assert runtime.settings.workspace == "FromOption"
    assert load({"workspace": "FromOption"}).origin("workspace") == Origin("option")
