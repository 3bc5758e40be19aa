"""The Runtime: what a command or a request runs with (settings, text model, image
model). The CLI's root callback makes one (typer ctx.obj), the app factory another
(app.state.runtime, routes reach it through RuntimeDep); a test hands in one with the
scripted model, and nothing else is patched."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from socialgen.app.runtime import Runtime
from socialgen.cli.main import app
from socialgen.cli.support import current_runtime
from socialgen.http.server import create_app
from tests.conftest import Store
from tests.doubles.scripted_model import ScriptedModel

runner = CliRunner()
REPLY = "Open with the result, then the story."


def test_a_command_runs_with_the_runtime_handed_in(store: Store) -> None:
    model = ScriptedModel(responder=lambda call: REPLY)

    result = runner.invoke(app, ["chat", "how do I write a hook?"], obj=Runtime(text_model=model))

    assert result.exit_code == 0, result.output
    assert REPLY in result.stdout
    assert len(model.calls) >= 1
    assert "how do I write a hook?" in json.dumps(model.calls[-1].messages)


def test_the_root_callback_makes_a_runtime_for_each_invocation(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without one handed in, the models follow the settings (the registry)."""
    model = ScriptedModel(responder=lambda call: REPLY)
    seen: list[Any] = []

    def registry_model(settings: Any, models: Path) -> ScriptedModel:
        seen.append(current_runtime())
        assert settings is current_runtime().settings  # the registry is handed them
        assert models == current_runtime().models_dir  # and the models folder
        return model

    monkeypatch.setattr("socialgen.ai.registry.text_model", registry_model)
    result = runner.invoke(app, ["chat", "hello"])

    assert result.exit_code == 0, result.output
    assert seen and isinstance(seen[0], Runtime)
    assert seen[0].given_text_model is None
    # Once the invocation is over there is no current Runtime: asking fails loudly
    # (it used to make up a new one, which read settings the command never saw).
    with pytest.raises(RuntimeError, match="no command is running"):
        current_runtime()


def test_runtime_settings_take_options_over_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SOCIALGEN_MAX_TOKENS", "300")
    runtime = Runtime()
    assert runtime.settings.max_tokens == 300
    assert Runtime(options={"max_tokens": 50}).settings.max_tokens == 50
    monkeypatch.setenv("SOCIALGEN_MAX_TOKENS", "200")
    assert Runtime().settings.max_tokens == 200  # a new Runtime reads them anew
    # One Runtime reads them once and keeps them: the same object every time.
    assert runtime.settings.max_tokens == 300
    assert runtime.settings is runtime.settings


def test_settings_are_read_lazily(monkeypatch: pytest.MonkeyPatch) -> None:
    """Made, a Runtime has read nothing: what is set before its first use counts."""
    runtime = Runtime()
    monkeypatch.setenv("SOCIALGEN_MAX_TOKENS", "123")
    assert runtime.settings.max_tokens == 123


def test_a_derived_runtime_has_its_own_settings_and_keeps_the_models(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SOCIALGEN_PORT", "8100")
    model = ScriptedModel(responder=lambda call: REPLY)
    base = Runtime(text_model=model)
    derived = base.derived(port=9000, host=None)  # None: not overridden
    assert (base.settings.port, derived.settings.port) == (8100, 9000)
    assert derived.settings.host == base.settings.host
    assert derived.text_model() is model
    handed = Runtime(settings=base.settings).derived(max_tokens=42)
    assert (handed.settings.max_tokens, handed.settings.port) == (42, 8100)


def test_routes_run_with_the_apps_runtime(store: Store) -> None:
    model = ScriptedModel(responder=lambda call: REPLY)
    application = create_app(runtime=Runtime(text_model=model))
    headers = {"x-api-key": store.api_key(), "Accept": "text/event-stream"}

    with TestClient(application) as client:
        response = client.post(
            f"/api/v1/ai-conversation/chat/{store.workspace_id}",
            headers=headers,
            json={"userInput": "how do I write a hook?"},
        )

    assert response.status_code == 200, response.text
    assert len(model.calls) >= 1
    assert "Open with the result" in response.text
