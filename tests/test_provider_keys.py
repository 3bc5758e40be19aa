"""`socialgen provider-key`: API keys stored beside the config file (0600), handed to
litellm for the model's provider, beaten by an exported variable, and never shown:
not by `list`, not in --json, not in an error. The wire is the fake OpenAI server on
127.0.0.1: the key must arrive in its Authorization header."""

from __future__ import annotations

import json
import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from socialgen.cli.main import app
from socialgen.config.provider_keys import keys_path
from tests.conftest import Store
from tests.fakes.openai_server import FakeOpenAI, Reply

KEY = "sk-stored-0123456789abcdef"
EXPORTED = "sk-exported-fedcba9876543210"

runner = CliRunner()
outputs: list[str] = []  # everything the CLI printed in a test, to grep for the key


def cli(*args: str, input: str | None = None) -> Result:
    result = runner.invoke(app, list(args), input=input)
    outputs.append(result.output)
    return result


@pytest.fixture(autouse=True)
def _no_key_anywhere(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """After each test: the key appeared in nothing the CLI printed or logged."""
    outputs.clear()
    caplog.set_level(logging.DEBUG)
    yield
    for text in [*outputs, caplog.text]:
        assert KEY not in text
        assert KEY[-8:] not in text  # not even its tail


@pytest.fixture
def fake(store: Store, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as server:
        for name, value in server.env().items():
            monkeypatch.setenv(name, value)
        monkeypatch.delenv("OPENAI_API_KEY")
        monkeypatch.setenv("SOCIALGEN_TIMEOUT", "10")
        yield server


def test_set_stores_the_key_in_a_0600_file_and_list_shows_names_only(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    result = cli("provider-key", "set", "openai", "--stdin", input=KEY + "\n")
    assert result.exit_code == 0, result.output
    assert cli("provider-key", "set", "Anthropic", input=KEY + "-2\n").exit_code == 0  # prompt

    path = keys_path()
    assert path.parent == Path(os.environ["SOCIALGEN_CONFIG"]).parent
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text()) == {"anthropic": KEY + "-2", "openai": KEY}

    listed = cli("provider-key", "list", "--json")
    assert json.loads(listed.stdout)["providers"] == [
        {"provider": "anthropic", "variable": "ANTHROPIC_API_KEY", "exported": False},
        {"provider": "openai", "variable": "OPENAI_API_KEY", "exported": False},
    ]
    table = cli("provider-key", "list")
    assert "openai" in table.stdout and "OPENAI_API_KEY" in table.stdout

    assert cli("provider-key", "remove", "anthropic").exit_code == 0
    assert json.loads(path.read_text()) == {"openai": KEY}
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    gone = cli("provider-key", "remove", "anthropic")
    assert gone.exit_code == 1
    assert "No key stored for anthropic" in gone.output


def test_unknown_provider_and_empty_key_are_refused(store: Store) -> None:
    typo = cli("provider-key", "set", "opneai", "--stdin", input=KEY + "\n")
    assert typo.exit_code == 1
    assert "Unknown provider 'opneai'. Did you mean 'openai'?" in typo.output
    empty = cli("provider-key", "set", "openai", "--stdin", input="\n")
    assert empty.exit_code == 1
    assert "No key given for openai" in empty.output
    spaced = cli("provider-key", "set", "openai", "--stdin", input=f"{KEY} {KEY}\n")
    assert spaced.exit_code == 1
    assert not keys_path().exists()


def test_the_stored_key_reaches_the_provider(fake: FakeOpenAI) -> None:
    assert cli("provider-key", "set", "openai", "--stdin", input=KEY + "\n").exit_code == 0

    result = cli("chat", "how do I write a good hook?", "--json")

    assert result.exit_code == 0, result.output
    assert fake.headers, "the fake provider was never called"
    assert {h["authorization"] for h in fake.headers} == {f"Bearer {KEY}"}
    assert KEY not in os.environ.values()  # handed to litellm, not exported


def test_an_exported_variable_wins(fake: FakeOpenAI, monkeypatch: pytest.MonkeyPatch) -> None:
    assert cli("provider-key", "set", "openai", "--stdin", input=KEY + "\n").exit_code == 0
    monkeypatch.setenv("OPENAI_API_KEY", EXPORTED)

    result = cli("chat", "how do I write a good hook?", "--json")

    assert result.exit_code == 0, result.output
    assert {h["authorization"] for h in fake.headers} == {f"Bearer {EXPORTED}"}
    listed = json.loads(cli("provider-key", "list", "--json").stdout)
    assert listed["providers"] == [
        {"provider": "openai", "variable": "OPENAI_API_KEY", "exported": True}
    ]


def test_a_provider_that_echoes_the_key_does_not_get_it_shown(fake: FakeOpenAI) -> None:
    assert cli("provider-key", "set", "openai", "--stdin", input=KEY + "\n").exit_code == 0
    fake.script(
        Reply(status=401, text=f"Incorrect API key provided: {KEY}. Find your key elsewhere.")
    )

    result = cli("chat", "how do I write a good hook?")

    assert result.exit_code == 1
    assert "Incorrect API key provided" in result.output
    assert "[stored key]" in result.output


def test_a_broken_keys_file_is_named_not_quoted(store: Store) -> None:
    keys_path().parent.mkdir(parents=True, exist_ok=True)
    keys_path().write_text(f'{{"openai": "{KEY}"')  # cut short
    result = cli("provider-key", "list")
    assert result.exit_code == 1
    assert f"{keys_path()}: not a provider keys file" in result.output
