"""A server reads its settings once (docs/architecture.md, "Settings"): a config file
edited between two requests of one app is not seen by the second; a restart (a new
app, a new Runtime) sees it. A command reads them at each run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from socialgen.http.server import create_app
from tests.conftest import Store
from tests.scripted_support import ScriptedAI

BASE = "/api/v1/ai-conversation"


def _write_post(client: TestClient, store: Store) -> None:
    response = client.post(
        f"{BASE}/generate-post/{store.workspace_id}",
        headers={"x-api-key": store.api_key(), "Accept": "text/event-stream"},
        json={"userInput": "shipping weekly"},
    )
    assert response.status_code == 200, response.text
    assert "event: post_ids" in response.text


@pytest.fixture
def config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("SOCIALGEN_MAX_TOKENS", raising=False)
    path = tmp_path / "config.toml"
    path.write_text("max_tokens = 300\n", encoding="utf-8")
    monkeypatch.setenv("SOCIALGEN_CONFIG", str(path))
    return path


def test_a_config_change_between_two_requests_waits_for_a_restart(
    store: Store, scripted_ai: ScriptedAI, config_file: Path
) -> None:
    with TestClient(create_app(scripted_ai.runtime())) as client:
        _write_post(client, store)
        config_file.write_text("max_tokens = 120\n", encoding="utf-8")
        _write_post(client, store)
    # The post's answer cap is the max_tokens setting: both requests ran with 300.
    assert [call.max_tokens for call in scripted_ai.calls_for("post")] == [300, 300]

    with TestClient(create_app(scripted_ai.runtime())) as restarted:
        _write_post(restarted, store)
    assert scripted_ai.calls_for("post")[-1].max_tokens == 120


def test_a_command_reads_the_settings_at_each_run(
    store: Store, scripted_ai: ScriptedAI, config_file: Path
) -> None:
    assert scripted_ai.invoke(["post", "shipping weekly", "--json"]).exit_code == 0
    config_file.write_text("max_tokens = 120\n", encoding="utf-8")
    assert scripted_ai.invoke(["post", "shipping weekly", "--json"]).exit_code == 0
    assert [call.max_tokens for call in scripted_ai.calls_for("post")] == [300, 120]


def test_serve_hands_its_options_to_the_app_not_through_the_environment(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`serve --no-scheduler --port N`: the app's Runtime has them as options (one
    worker: the app itself; several: each worker's factory gets them pickled)."""
    import os

    import uvicorn
    import uvicorn.supervisors
    from typer.testing import CliRunner

    from socialgen.cli.main import app

    monkeypatch.delenv("SOCIALGEN_SCHEDULER", raising=False)
    served: list[Any] = []
    monkeypatch.setattr(uvicorn, "run", lambda target, **kwargs: served.append((target, kwargs)))

    class Supervisor:
        def __init__(self, config: uvicorn.Config, sockets: list[Any]) -> None:
            served.append((config.app, {"workers": config.workers, "port": config.port}))
            for sock in sockets:
                sock.close()

        def run(self) -> None:
            pass

    monkeypatch.setattr(uvicorn.supervisors, "Multiprocess", Supervisor)
    runner = CliRunner()
    one = runner.invoke(app, ["serve", "--no-scheduler", "--port", "8765"])
    two = runner.invoke(app, ["serve", "--no-scheduler", "--port", "8766", "--workers", "2"])
    assert (one.exit_code, two.exit_code) == (0, 0), one.output + two.output

    (single, options), (factory, supervised) = served
    assert options["port"] == 8765 and single.state.runtime.settings.scheduler is False
    assert supervised == {"workers": 2, "port": 8766}
    worker = factory()  # what each worker process runs (here, in this one)
    assert worker.state.runtime.settings.scheduler is False
    assert worker.state.runtime.settings.port == 8766
    assert "SOCIALGEN_SCHEDULER" not in os.environ  # the flag never travelled there
