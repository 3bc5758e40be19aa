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

from socialgen.app.runtime import Runtime
from socialgen.cli.main import app
from socialgen.kit.clock import iso, utcnow
from socialgen.store.engine import transaction
from socialgen.store.tables import Publication
from tests.conftest import Store
from tests.fakes.scripted_network import ScriptedNetwork
from tests.keys_support import keys_now
from tests.outbox_support import (
    add_account,
    due_publication,
    publication,
)

pytest_plugins = ["tests.outbox_support"]  # the network fixtures
runner = CliRunner()


NETWORKS: dict[str, Any] = {}  # this test's (conftest's `networks`): _this_tests_networks


@pytest.fixture(autouse=True)
def _this_tests_networks(networks: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(f"{__name__}.NETWORKS", networks)


def run(*args: str) -> Result:
    """The CLI with the test's networks in its Runtime."""
    return runner.invoke(app, list(args), obj=Runtime(networks=NETWORKS))


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


LONG_POST = " ".join(f"Sentence number {n} says one more thing about shipping." for n in range(20))


def test_dry_run_numbers_the_parts_of_a_thread_when_asked(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real Bluesky adapter's prepare (offline): a long post becomes a thread,
    "i/N" marked only with --number-parts."""
    from socialgen.publishing.secrets import KEY_ENV

    monkeypatch.delenv(KEY_ENV, raising=False)
    # The account's server is 127.0.0.1: a dry run passes it through the SSRF guard too.
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")
    add_account(store, "@thread.test")
    post = store.post(LONG_POST)
    args = ("posts", "publish", post.id, "--to", "@thread.test", "--dry-run", "--json")
    plain = as_json(run(*args))["networks"][0]
    numbered_result = run(*args, "--number-parts")
    assert numbered_result.exit_code == 0, numbered_result.output
    numbered = as_json(numbered_result)["networks"][0]
    assert numbered["numberParts"] is True and plain["numberParts"] is False
    total = len(numbered["parts"])
    assert total > 1 and len(plain["parts"]) > 1
    assert [part["text"].rsplit(" ", 1)[1] for part in numbered["parts"]] == [
        f"{n}/{total}" for n in range(1, total + 1)
    ]
    assert not plain["parts"][0]["text"].endswith(f"1/{len(plain['parts'])}")
    shown = run("posts", "publish", post.id, "--to", "@thread.test", "--dry-run", "--number-parts")
    assert f"part 1 of {total}" in shown.output and f" 1/{total}" in shown.output


def test_number_parts_reaches_the_network(store: Store, network: ScriptedNetwork) -> None:
    from socialgen.http.server import create_app

    add_account(store, "@numbers.test")
    now_post, later_post, http_post, plain_post = (store.post(f"post {n}") for n in range(4))
    result = run("posts", "publish", now_post.id, "--to", "@numbers.test", "--number-parts")
    assert result.exit_code == 0, result.output
    at = iso(utcnow() + timedelta(hours=1))
    assert at is not None
    scheduled = run(
        "posts", "schedule", later_post.id, "--at", at, "--to", "@numbers.test", "--number-parts"
    )
    assert scheduled.exit_code == 0, scheduled.output
    refused = run("posts", "schedule", plain_post.id, "--at", at, "--number-parts")
    assert refused.exit_code != 0 and "--to" in refused.output
    with transaction(store.engine) as session:  # an hour passes
        session.connection().execute(update(Publication).values(due_at=utcnow()))
    assert run("publish-due").exit_code == 0
    headers = {"x-api-key": store.api_key(None), "Authorization": f"Bearer {store.token()}"}
    base = f"/api/v1/ai-conversation/post/{store.workspace_id}"
    with TestClient(create_app(Runtime(networks=NETWORKS))) as client:
        answer = client.post(
            f"{base}/{http_post.id}/publish",
            json={"accountIds": ["@numbers.test"], "numberParts": True},
            headers=headers,
        )
        assert answer.status_code == 200, answer.text
        answer = client.post(
            f"{base}/{plain_post.id}/publish",
            json={"accountIds": ["@numbers.test"]},
            headers=headers,
        )
        assert answer.status_code == 200, answer.text
    asked = {record.text: record.number_parts for record in network.published}
    assert asked == {"post 0": True, "post 1": True, "post 2": True, "post 3": False}


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


def test_schedule_retry_queues_a_failed_publication_at_the_new_time(
    store: Store, network: ScriptedNetwork
) -> None:
    """The refusal names --retry, and `posts schedule` has it."""
    add_account(store, "@again.test")
    post = store.post("Second chance")
    first = iso(utcnow() + timedelta(hours=1))
    assert first is not None
    run("posts", "schedule", post.id, "--at", first, "--to", "@again.test")
    with transaction(store.engine) as session:  # due now, and the network refuses it
        session.connection().execute(update(Publication).values(due_at=utcnow()))
    network.fail_next("400 Bad Request")
    assert run("publish-due").exit_code == 1
    later = utcnow() + timedelta(hours=2)
    args = ("posts", "schedule", post.id, "--at", iso(later) or "", "--to", "@again.test")
    refused = run(*args)
    assert refused.exit_code != 0 and "--retry" in refused.output
    assert "posts schedule" in refused.output
    result = run(*args, "--retry", "--json")
    assert result.exit_code == 0, result.output
    (row,) = as_json(result)["publications"]
    assert row["state"] == "queued" and row["attempts"] == 0 and row["message"] == ""
    assert row["dueAt"] == iso(later)
    assert as_json(run("publish-due", "--json"))["published"] == 0  # not before its time
    with transaction(store.engine) as session:
        session.connection().execute(update(Publication).values(due_at=utcnow()))
    assert as_json(run("publish-due", "--json"))["published"] == 1
    assert [p.text for p in network.published] == ["Second chance"]


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


def test_publish_due_covers_every_workspace_unless_w_is_given(
    store: Store, network: ScriptedNetwork, monkeypatch: pytest.MonkeyPatch
) -> None:
    """cron often exports SOCIALGEN_WORKSPACE for other commands: it must not narrow
    the pass in silence; -w on the command line does."""
    from socialgen.publishing.secrets import encrypt_secret
    from socialgen.store.tables import PostStatus, SocialAccount

    other = store.workspace("Other")
    with transaction(store.engine) as session:
        account = SocialAccount(
            workspace_id=other,
            network="bluesky",
            handle="@other.test",
            service_url="http://127.0.0.1:9",
            secret_ciphertext=encrypt_secret({"password": "pw-secret-1234"}, session, keys_now()),
        )
        session.add(account)
        session.flush()
        other_account = account.id

    def due_in(workspace_id: str, account_id: str) -> str:
        post = store.post("due", workspace_id=workspace_id, status=PostStatus.SCHEDULED)
        with transaction(store.engine) as session:
            row = Publication(
                workspace_id=workspace_id, post_id=post.id, account_id=account_id, due_at=utcnow()
            )
            session.add(row)
            session.flush()
            return row.id

    mine = add_account(store, "@mine.test")
    assert "default: every workspace" in run("publish-due", "--help").output
    monkeypatch.setenv("SOCIALGEN_WORKSPACE", "Other")
    narrowed_by_env = [due_in(store.workspace_id, mine), due_in(other, other_account)]
    result = run("publish-due", "--json")
    assert result.exit_code == 0, result.output
    assert as_json(result)["published"] == 2  # both workspaces, despite the variable
    assert all(publication(store, pid).state == "published" for pid in narrowed_by_env)
    mine_due, other_due = due_in(store.workspace_id, mine), due_in(other, other_account)
    only = run("publish-due", "-w", "Other", "--json")
    assert only.exit_code == 0 and as_json(only)["published"] == 1, only.output
    assert publication(store, other_due).state == "published"
    assert publication(store, mine_due).state == "queued"


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
    from socialgen.http.server import create_app

    account = add_account(store, "@http.test")
    post = store.post("Over HTTP")
    member = "member@example.com"
    store.user(member, workspace_id=store.workspace_id, role="member")
    headers = {"x-api-key": store.api_key(None), "Authorization": f"Bearer {store.token(member)}"}
    base = f"/api/v1/ai-conversation/post/{store.workspace_id}/{post.id}"
    with TestClient(create_app(Runtime(networks=NETWORKS))) as client:
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
    from socialgen.http.server import create_app

    monkeypatch.setenv("SOCIALGEN_SCHEDULER_POLL", "0.1")
    monkeypatch.setenv("SOCIALGEN_SCHEDULER", "1" if enabled else "0")
    _, pid = due_publication(store, add_account(store, "@sched.test"))
    with TestClient(create_app(Runtime(networks=NETWORKS))):
        deadline = time.monotonic() + 5
        # Until it is final: the scheduler may be caught between claim and answer.
        pending = ("queued", "publishing")
        while publication(store, pid).state in pending and time.monotonic() < deadline:
            time.sleep(0.1)
            if not enabled and time.monotonic() > deadline - 4:
                break  # a second is plenty to see that nothing happens
    assert publication(store, pid).state == ("published" if enabled else "queued")


def test_a_dry_run_needs_no_connected_account(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A handle no account has: what each network would receive, split as its adapter
    splits (compared with the real Bluesky adapter's prepare for a connected account),
    and the command that connects it. The HTTP API still answers 404 for it."""
    from socialgen.publishing.secrets import KEY_ENV

    monkeypatch.delenv(KEY_ENV, raising=False)
    monkeypatch.setenv("SOCIALGEN_ALLOW_PRIVATE_URLS", "1")
    monkeypatch.setenv("COLUMNS", "80")
    post = store.post(LONG_POST)
    args = ("posts", "publish", post.id, "--dry-run")

    result = run(*args, "--to", "@someone.bsky.social", "--json")
    shown = run(*args, "--to", "@someone.bsky.social")
    fediverse = as_json(run(*args, "--to", "@ada@social.example", "--json"))["networks"]
    by_name = as_json(run(*args, "--to", "@someone", "--json"))["networks"]
    mine = as_json(run(*args, "--to", "linkedin", "--json"))["networks"]

    assert result.exit_code == 0, result.output
    # Only the networks a handle's shape can belong to: a domain is Bluesky's.
    previews = {p["network"]: p for p in as_json(result)["networks"]}
    assert set(previews) == {"bluesky"}
    assert all(p["connected"] is False and p["accountId"] is None for p in previews.values())
    assert previews["bluesky"]["connect"] == "socialgen accounts add bluesky someone.bsky.social"
    assert len(previews["bluesky"]["parts"]) > 1  # over 300 graphemes: a thread
    assert all(part["details"]["graphemes"] <= 300 for part in previews["bluesky"]["parts"])
    assert {p["network"] for p in by_name} == {"x", "threads", "telegram"}
    assert all(p["parts"] and "connect" in p for p in by_name)
    assert [p["network"] for p in mine] == ["linkedin"] and len(mine[0]["parts"]) == 1
    assert shown.exit_code == 0, shown.output
    assert "Social account not found" not in shown.output
    assert "not connected" in shown.output
    assert "socialgen accounts add bluesky someone.bsky.social" in shown.output
    assert [p["network"] for p in fediverse] == ["mastodon", "pixelfed"]
    assert (
        fediverse[0]["connect"]
        == "socialgen accounts add mastodon --instance https://social.example"
    )

    add_account(store, "@thread.test")
    connected = as_json(run(*args, "--to", "@thread.test", "--json"))["networks"][0]
    assert [p["text"] for p in connected["parts"]] == [
        p["text"] for p in previews["bluesky"]["parts"]
    ]
    from socialgen.http.server import create_app

    with TestClient(create_app(Runtime(networks=NETWORKS))) as client:
        headers = {"x-api-key": store.api_key(None), "Authorization": f"Bearer {store.token()}"}
        answer = client.post(
            f"/api/v1/ai-conversation/post/{store.workspace_id}/{post.id}/publish",
            json={"accountIds": ["@someone"], "dryRun": True},
            headers=headers,
        )
    assert answer.status_code == 404, answer.text
