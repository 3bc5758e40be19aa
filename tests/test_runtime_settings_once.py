"""A server reads its settings once (docs/architecture.md, "Settings"): a config file
edited between two requests of one app is not seen by the second; a restart (a new
app, a new Runtime) sees it. A command reads them at each run."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from socialgen.server import create_app
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
    assert [call.max_tokens for call in scripted_ai.post_calls()] == [300, 300]

    with TestClient(create_app(scripted_ai.runtime())) as restarted:
        _write_post(restarted, store)
    assert scripted_ai.post_calls()[-1].max_tokens == 120


def test_a_command_reads_the_settings_at_each_run(
    store: Store, scripted_ai: ScriptedAI, config_file: Path
) -> None:
    assert scripted_ai.invoke(["post", "shipping weekly", "--json"]).exit_code == 0
    config_file.write_text("max_tokens = 120\n", encoding="utf-8")
    assert scripted_ai.invoke(["post", "shipping weekly", "--json"]).exit_code == 0
    assert [call.max_tokens for call in scripted_ai.post_calls()] == [300, 120]
