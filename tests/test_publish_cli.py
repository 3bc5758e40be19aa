"""`socialgen posts publish|schedule|unschedule|stats`, `socialgen publish-due`, the
HTTP publish endpoints and the scheduler in the app, on a real store with the
scripted network."""

from __future__ import annotations

import json
import time
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update
from typer.testing import CliRunner, Result

from socialgen.cli import app
from socialgen.clock import iso, utcnow
from socialgen.store.engine import transaction
from socialgen.store.tables import Publication
from tests.conftest import Store
from tests.fakes.scripted_network import ScriptedNetwork
from tests.outbox_support import (
    add_account,
    due_publication,
    publication,
)

pytest_plugins = ["tests.outbox_support"]  # the network fixtures
runner = CliRunner()


def run(*args: str) -> Result:
    return runner.invoke(app, list(args))


def as_json(result: Result) -> Any:
    return json.loads(result.stdout)


def test_publish_now_from_the_cli(store: Store, network: ScriptedNetwork) -> None:
    add_account(store, "@now.test")
    post = store.post("Publish me now")
    result = run("posts", "publish", post.id, "--to", "@now.test", "--json")
    assert result.exit_code == 0, result.output
    (row,) = as_json(result)["publications"]
    assert row["state"] == "published" and row["url"].startswith("https://scripted.example/")
    assert [p.text for p in network.published] == ["Publish me now"]
    shown = as_json(run("posts", "show", post.id, "--json"))
    assert shown["status"] == "published" and shown["postUrl"] == row["url"]
    again = run("posts", "publish", post.id, "--to", "@now.test", "--json")
    assert again.exit_code == 0 and len(network.published) == 1  # never twice


def test_failed_publish_exits_non_zero_and_retry_sends(
    store: Store, network: ScriptedNetwork
) -> None:
    add_account(store, "@flaky.test")
    post = store.post("Try me twice")
    network.fail_next("400 Bad Request: text too long")
    result = run("posts", "publish", post.id, "--to", "@flaky.test", "--json")
    assert result.exit_code == 1
    assert as_json(result)["publications"][0]["message"] == "400 Bad Request: text too long"
    refused = run("posts", "publish", post.id, "--to", "@flaky.test")
    assert refused.exit_code == 1 and "--retry" in refused.output and not network.published
    retried = run("posts", "publish", post.id, "--to", "@flaky.test", "--retry", "--json")
    assert retried.exit_code == 0 and len(network.published) == 1


def test_dry_run_sends_nothing(store: Store, network: ScriptedNetwork) -> None:
    add_account(store, "@dry.test")
    post = store.post("Only a preview")
    result = run("posts", "publish", post.id, "--to", "@dry.test", "--dry-run", "--json")
    assert result.exit_code == 0, result.output
    (preview,) = as_json(result)["networks"]
    assert preview["parts"] == [{"text": "Only a preview", "details": {}}]
    assert not network.attempts


def test_schedule_then_publish_due(store: Store, network: ScriptedNetwork) -> None:
    add_account(store, "@later.test")
    post = store.post("Later, please")
    at = iso(utcnow() + timedelta(hours=1))
    assert at is not None
    result = run("posts", "schedule", post.id, "--at", at, "--to", "@later.test", "--json")
    assert result.exit_code == 0, result.output
    data = as_json(result)
    assert data["status"] == "scheduled" and data["publications"][0]["state"] == "queued"
    empty = run("publish-due", "--json")
    assert empty.exit_code == 0 and as_json(empty)["published"] == 0  # not due yet
    with transaction(store.engine) as session:  # an hour passes
        session.connection().execute(update(Publication).values(due_at=utcnow()))
    done = run("publish-due", "--json")
    assert done.exit_code == 0, done.output
    assert as_json(done)["published"] == 1 and len(network.published) == 1


def test_publish_due_reports_missed_and_failed(store: Store, network: ScriptedNetwork) -> None:
    account = add_account(store, "@cron.test")
    _, missed = due_publication(store, account, due=utcnow() - timedelta(hours=8))
    _, failing = due_publication(store, account)
    network.fail_next("403 Forbidden: duplicate")
    result = run("publish-due", "--json")
    assert result.exit_code == 1
    summary = as_json(result)
    assert (summary["missed"], summary["failed"], summary["published"]) == (1, 1, 0)
    states = {row["id"]: row["state"] for row in summary["publications"]}
    assert states == {missed: "missed", failing: "failed"}
    text = run("publish-due")
    assert text.exit_code == 0 and "0 published" in text.output  # nothing left to do


def test_unschedule_drops_queued_publications(store: Store, network: ScriptedNetwork) -> None:
    add_account(store, "@drop.test")
    post = store.post("Never mind")
    at = iso(utcnow() + timedelta(hours=1))
    assert at is not None
    run("posts", "schedule", post.id, "--at", at, "--to", "@drop.test")
    result = run("posts", "unschedule", post.id, "--json")
    assert result.exit_code == 0 and as_json(result)["droppedPublications"] == 1
    assert as_json(run("posts", "publications", post.id, "--json"))["publications"] == []


def test_stats_refresh(store: Store, network: ScriptedNetwork) -> None:
    from socialgen.publishing.networks.base import Metrics

    add_account(store, "@stats.test")
    post = store.post("Count my likes")
    run("posts", "publish", post.id, "--to", "@stats.test")
    network.metrics_for[network.published[0].remote_id] = Metrics(likes=7, comments=1)
    result = run("posts", "stats", post.id, "--refresh", "--json")
    assert result.exit_code == 0, result.output
    (stats,) = as_json(result)["posts"]
    assert (stats["likes"], stats["comments"]) == (7, 1)


def test_http_publish_and_publications(store: Store, network: ScriptedNetwork) -> None:
    from socialgen.server import create_app

    account = add_account(store, "@http.test")
    post = store.post("Over HTTP")
    member = "member@example.com"
    store.user(member, workspace_id=store.workspace_id, role="member")
    headers = {"x-api-key": store.api_key(None), "Authorization": f"Bearer {store.token(member)}"}
    base = f"/api/v1/ai-conversation/post/{store.workspace_id}/{post.id}"
    with TestClient(create_app()) as client:
        answer = client.post(f"{base}/publish", json={"accountIds": [account]}, headers=headers)
        assert answer.status_code == 200, answer.text
        (row,) = answer.json()["data"]["publications"]
        assert row["state"] == "published" and row["remoteId"]
        listed = client.get(f"{base}/publications", headers=headers).json()
        assert listed["data"]["publications"][0]["id"] == row["id"]
        bad = client.post(f"{base}/publish", json={"accountIds": []}, headers=headers)
        assert bad.status_code == 400
    assert len(network.published) == 1


@pytest.mark.parametrize("enabled", [True, False])
def test_the_app_scheduler_publishes_unless_turned_off(
    store: Store, network: ScriptedNetwork, monkeypatch: pytest.MonkeyPatch, enabled: bool
) -> None:
    from socialgen.server import create_app

    monkeypatch.setenv("SOCIALGEN_SCHEDULER_POLL", "0.1")
    monkeypatch.setenv("SOCIALGEN_SCHEDULER", "1" if enabled else "0")
    _, pid = due_publication(store, add_account(store, "@sched.test"))
    with TestClient(create_app()):
        deadline = time.monotonic() + 5
        while publication(store, pid).state == "queued" and time.monotonic() < deadline:
            time.sleep(0.1)
            if not enabled and time.monotonic() > deadline - 4:
                break  # a second is plenty to see that nothing happens
    assert publication(store, pid).state == ("published" if enabled else "queued")
