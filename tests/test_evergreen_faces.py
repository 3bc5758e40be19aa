"""Evergreen reposts through every face, on the scripted model: the CLI (`posts
evergreen`, its listing in the creator's zone by the posts' words, its refusals with
a message and no traceback), the HTTP API on a real socket (SPEC's shapes, camelCase,
errors as {success: false, message}) and the MCP tools over Streamable HTTP."""

from __future__ import annotations

import time
from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

import httpx
import pytest

from socialgen.kit.clock import iso, utcnow
from tests.conftest import LiveServer, Store
from tests.evergreen_support import ORIGINAL, as_json, due_in, plan, plan_row, published, runs
from tests.mcp_support import error_of, http_session, run, structured
from tests.outbox_support import add_account
from tests.scripted_support import ScriptedAI


def cli(ai: ScriptedAI, *args: str) -> Any:
    return ai.invoke(args)


# --- the CLI ----------------------------------------------------------------------------


def test_the_cli_sets_lists_prepares_and_stops_in_the_creators_zone(
    store: Store, scripted_ai: ScriptedAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOCIALGEN_TIMEZONE", "Europe/Paris")
    monkeypatch.setenv("COLUMNS", "200")
    add_account(store, "@cli.test")
    account = add_account(store, "@other.test")
    post_id = published(store, [account])
    first = (utcnow() + timedelta(hours=5)).replace(second=0, microsecond=0)
    # A wall time in the creator's zone, typed without an offset.
    typed = first.astimezone(ZoneInfo("Europe/Paris")).strftime("%Y-%m-%dT%H:%M")
    made = as_json(
        cli(
            scripted_ai, "posts", "evergreen", post_id[:8], "--every", "2w", "--until",
            "2027-06-30", "--first", typed, "--to", "@cli.test", "--json",
        )
    )  # fmt: skip
    assert made["everyDays"] == 14 and made["times"] is None
    assert made["until"] == "2027-06-30T21:59:59.999Z"  # the whole day, Paris summer time
    assert made["nextAt"] == iso(first) and made["timezone"] == "Europe/Paris"
    assert [a["account"] for a in made["accounts"]] == ["@cli.test"]
    said = cli(scripted_ai, "posts", "evergreen")
    assert said.exit_code == 0, said.output
    assert "Shipping small changes" in said.stdout and "Europe/Paris" in said.stdout
    assert post_id not in said.stdout  # people read the post's words, not its id
    listed = as_json(cli(scripted_ai, "posts", "evergreen", "--json"))
    assert [p["postId"] for p in listed["plans"]] == [post_id]
    prepared = as_json(cli(scripted_ai, "posts", "evergreen", "prepare", "--json"))
    assert prepared["written"] == 1
    shown = cli(scripted_ai, "posts", "evergreen", post_id)
    assert shown.exit_code == 0 and "run 1" in shown.stdout and "Europe/Paris" in shown.stdout
    stopped = as_json(cli(scripted_ai, "posts", "evergreen", post_id, "--stop", "--json"))
    assert stopped["state"] == "stopped" and stopped["cancelledRuns"] == 1
    assert stopped["runs"][0]["state"] == "cancelled"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--every", "monthly"), "--every takes days or weeks"),
        (("--every", "30d"), "Say when it ends"),
        (("--times", "2"), "go(es) with --every"),
        (("--stop", "--every", "30d"), "--stop takes no other option"),
        (("--every", "30d", "--times", "2", "--until", "someday"), "--until takes a date"),
        (("--every", "30d", "--times", "2", "--first", "soon"), "--first takes an ISO 8601"),
        (("--every", "30d", "--times", "2", "--to", "@nobody.test"), "@nobody.test"),
        ((), "not evergreen"),
    ],
)
def test_the_cli_refuses_with_a_message_and_no_traceback(
    store: Store, scripted_ai: ScriptedAI, args: tuple[str, ...], words: str
) -> None:
    account = add_account(store, "@refuse.test")
    post_id = published(store, [account])
    result = cli(scripted_ai, "posts", "evergreen", post_id, *args)
    assert result.exit_code != 0
    assert words in result.output, result.output
    assert "Traceback" not in result.output
    named = cli(scripted_ai, "posts", "evergreen", "--every", "30d")
    assert named.exit_code != 0 and "Name the post" in named.output


def test_insights_evergreen_is_withheld_on_a_short_history(
    store: Store, scripted_ai: ScriptedAI
) -> None:
    account = add_account(store, "@short.test")
    published(store, [account], likes=3)
    data = as_json(cli(scripted_ai, "insights", "evergreen", "--json"))
    assert data["candidates"] == [] and data["measured"] == 1
    assert "need 30 measured published posts" in data["withheld"]
    said = cli(scripted_ai, "insights", "evergreen")
    assert said.exit_code == 0 and "Withheld" in said.stdout


def test_publish_due_writes_the_runs_due_and_fails_on_a_missed_one(
    store: Store, scripted_ai: ScriptedAI
) -> None:
    """Cron alone is enough: publish-due writes the runs due within a day after its pass,
    says so in --json, and exits 1 when a run was missed."""
    account = add_account(store, "@cron.test")
    post_id = published(store, [account])
    plan(store, post_id, first=utcnow() + timedelta(hours=6))
    done = as_json(cli(scripted_ai, "publish-due", "--json"))
    assert done["published"] == 0 and done["evergreen"]["written"] == 1
    said = cli(scripted_ai, "publish-due")
    assert said.exit_code == 0 and "Evergreen" not in said.stdout  # nothing to say
    late = published(store, [account], "Another post that did well, about weekly demos.")
    plan(store, late, first=utcnow() + timedelta(hours=6))
    due_in(store, late, -timedelta(minutes=5))
    missed = cli(scripted_ai, "publish-due")
    assert missed.exit_code == 1 and "1 missed" in missed.stdout, missed.output
    assert "before it was due" in missed.stdout


# --- HTTP ---------------------------------------------------------------------------------


def test_the_http_api_sets_reads_prepares_and_stops(
    ai_live_server: LiveServer, store: Store, scripted_ai: ScriptedAI
) -> None:
    account = add_account(store, "@http.test")
    post_id = published(store, [account])
    draft = store.post("Not out yet")
    base = f"{ai_live_server.base_url}/api/v1/ai-conversation"
    ws = store.workspace_id
    http = httpx.Client(headers={"x-api-key": store.api_key()}, timeout=30)
    first = iso(utcnow() + timedelta(hours=3))
    put = http.put(
        f"{base}/post/{ws}/{post_id}/evergreen",
        json={"everyDays": 30, "times": 2, "first": first, "accountIds": ["@http.test"]},
    )
    assert put.status_code == 200, put.text
    data = put.json()["data"]
    assert put.json()["success"] is True and data["nextAt"] == first
    assert {"everyDays", "runsWritten", "nextNumber", "postContent"} <= set(data)
    refusals = [
        http.put(f"{base}/post/{ws}/{post_id}/evergreen", json={"everyDays": 0, "times": 2}),
        http.put(f"{base}/post/{ws}/{post_id}/evergreen", json={"everyDays": "30", "times": 2}),
        http.put(f"{base}/post/{ws}/{draft.id}/evergreen", json={"everyDays": 7, "times": 2}),
        http.put(f"{base}/post/{ws}/{post_id}/evergreen", json={"everyDays": 7}),
        http.get(f"{base}/post/{ws}/{draft.id}/evergreen"),
        http.get(f"{base}/post/{ws}/no-such-post/evergreen"),
    ]
    assert [r.status_code for r in refusals] == [400, 400, 400, 400, 404, 404]
    assert all(r.json()["success"] is False and r.json()["message"] for r in refusals)
    assert "Only a published post" in refusals[2].json()["message"]
    assert "Say when it ends" in refusals[3].json()["message"]
    assert refusals[5].json()["message"] == "Post not found"
    prepared = http.post(f"{base}/evergreen/{ws}/prepare")
    assert prepared.status_code == 200 and prepared.json()["data"]["written"] == 1
    shown = http.get(f"{base}/post/{ws}/{post_id}/evergreen").json()["data"]
    assert shown["runs"][0]["state"] == "scheduled" and shown["runs"][0]["postContent"]
    listed = http.get(f"{base}/evergreen/{ws}").json()["data"]["plans"]
    assert [plan["postId"] for plan in listed] == [post_id]
    stopped = http.delete(f"{base}/post/{ws}/{post_id}/evergreen")
    assert stopped.status_code == 200 and stopped.json()["data"]["state"] == "stopped"
    candidates = http.get(f"{ai_live_server.base_url}/api/v1/insights/{ws}/evergreen")
    assert candidates.status_code == 200 and candidates.json()["data"]["withheld"]
    other = store.workspace("Other")
    foreign = http.get(f"{base}/evergreen/{other}")
    assert foreign.status_code == 403
    assert plan_row(store, post_id).state == "stopped"


# --- MCP ----------------------------------------------------------------------------------


def test_the_mcp_tools_set_list_and_stop(
    ai_live_server: LiveServer, store: Store, scripted_ai: ScriptedAI
) -> None:
    account = add_account(store, "@mcp.test")
    post_id = published(store, [account], ORIGINAL)
    headers = {"x-api-key": store.api_key()}

    async def body() -> tuple[dict[str, Any], dict[str, Any], list[str], dict[str, Any]]:
        async with http_session(ai_live_server.base_url, headers) as mcp:
            made = structured(
                await mcp.call_tool(
                    "set_evergreen", {"postId": post_id, "everyDays": 60, "times": 3}
                )
            )
            listed = structured(await mcp.call_tool("list_evergreen", {}))
            errors = [
                error_of(await mcp.call_tool("set_evergreen", {"postId": post_id})),
                error_of(
                    await mcp.call_tool(
                        "set_evergreen", {"postId": post_id, "everyDays": 7, "until": "x"}
                    )
                ),
                error_of(await mcp.call_tool("list_evergreen", {"postId": "no-such-post"})),
            ]
            await mcp.call_tool("set_evergreen", {"postId": post_id, "stop": True})
            candidates = structured(await mcp.call_tool("evergreen_candidates", {}))
            return made, listed, errors, candidates

    made, listed, errors, candidates = run(body)
    assert made["everyDays"] == 60 and made["state"] == "active"
    assert [a["account"] for a in made["accounts"]] == ["@mcp.test"]
    assert [plan["postId"] for plan in listed["plans"]] == [post_id]
    assert "everyDays is required" in errors[0]
    assert "until takes a date" in errors[1]
    assert "Post not found" in errors[2]
    assert plan_row(store, post_id).state == "stopped"
    assert runs(store, plan_row(store, post_id).id) == []
    assert candidates["withheld"] and candidates["confidence"] == 0.99


# --- serve --------------------------------------------------------------------------------


@pytest.fixture
def fast_looks(monkeypatch: pytest.MonkeyPatch) -> None:
    """serve's preparer looks every 0.2 s (a minute in production); named before the
    server fixture, so the server's loop reads it."""
    from socialgen.publishing.evergreen import scheduler

    monkeypatch.setattr(scheduler, "LOOK_SECONDS", 0.2)


def test_serve_writes_a_run_due_within_a_day_on_its_own(
    fast_looks: None, ai_live_server: LiveServer, store: Store, scripted_ai: ScriptedAI
) -> None:
    account = add_account(store, "@serve.test")
    post_id = published(store, [account])
    plan(store, post_id, first=utcnow() + timedelta(hours=6))
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        written = [r for r in runs(store, plan_row(store, post_id).id) if r.state == "scheduled"]
        if written:
            break
        time.sleep(0.1)
    else:
        raise AssertionError("serve did not write the run")
    assert plan_row(store, post_id).next_number == 2
    assert len(scripted_ai.calls_for("evergreen_variation")) == 1
