"""docs/architecture.md's "Add a feature", proven: a toy feature declared in tests/
alone (tests/toy_feature.py: its own events, stream, routes, a body route with its
cap and a quota plan behind the workspace guard, commands, a command group and an
`extends` of it, an MCP tool, lifespan and start work), handed in through the Runtime,
runs through the command line (rich and --json, its completion event deciding the exit
code), through the API (SSE, its lifespan around the app) and through an MCP client.
Nothing under src/ names it: a central list that had to name a feature's event,
command, route or tool would fail one of these. Its model call has
a purpose of its own, answered by the scripted models as the toy's tests/toy_replies.py
declares: tests/scripted_support.py names no purpose."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from socialgen.app.features import features, serve_start, streams
from socialgen.app.runtime import Runtime
from socialgen.cli.main import app
from socialgen.events.errors import EventContractError
from socialgen.events.registry import read
from socialgen.http.server import create_app
from tests import toy_feature
from tests.doubles import scripted_replies as replies_module
from tests.doubles.scripted_replies import reply_modules, scripted_replies
from tests.event_examples import EXAMPLES, check_round_trip, examples, without_examples
from tests.scripted_support import ScriptedAI
from tests.toy_feature import FEATURE, WORD_PURPOSE, ToyDone, ToyTick

runner = CliRunner()


def _with_toy() -> Runtime:
    return Runtime(features=(FEATURE,))


def test_the_toy_is_only_where_a_runtime_hands_it_in(store: Any) -> None:
    assert FEATURE not in features()
    assert FEATURE in features((FEATURE,))
    assert "toy" in {stream.key for stream in streams((FEATURE,))}
    assert "toy" not in {stream.key for stream in streams()}
    # Its events are read by the Runtime it was handed to, by no other.
    assert read("toy_tick", {"n": 1}, among=streams((FEATURE,))) == ToyTick(n=1)
    with pytest.raises(EventContractError, match="not sent by any stream"):
        read("toy_tick", {"n": 1}, among=streams())
    plain = runner.invoke(app, ["toy-count", "2"], obj=Runtime())
    assert plain.exit_code == 2, plain.output  # no such command without the Runtime's
    with TestClient(create_app(Runtime())) as client:
        assert client.get("/api/v1/toy/count/2").status_code == 404
        assert not hasattr(client.app.state, "toy")  # type: ignore[attr-defined]


def test_the_command_line_runs_the_toy_stream(store: Any) -> None:
    result = runner.invoke(app, ["toy-count", "3"], obj=_with_toy())
    assert result.exit_code == 0, result.output
    assert result.stdout.split("\n")[:4] == ["tick 1", "tick 2", "tick 3", "counted 3"]
    listed = runner.invoke(app, ["--help"], obj=_with_toy())
    assert "toy-count" in listed.stdout and "Count to N, as a stream." in listed.stdout


def test_json_lines_read_back_as_the_toys_events_and_its_completion_sets_the_exit(
    store: Any,
) -> None:
    result = runner.invoke(app, ["toy-count", "2", "--json"], obj=_with_toy())
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    payloads = [read(line["event"], line["data"]) for line in lines]
    assert payloads == [ToyTick(n=1), ToyTick(n=2), ToyDone(success=True, counted=2)]
    # A count of nothing: the toy's own completion event reports the failure, and
    # --json exits 1 without the terminal naming the event.
    empty = runner.invoke(app, ["toy-count", "0", "--json"], obj=_with_toy())
    assert empty.exit_code == 1, empty.output
    assert json.loads(empty.stdout)["event"] == "toy_done"


def _sse_events(text: str) -> list[tuple[str, dict[str, Any]]]:
    events = []
    for block in text.strip().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines())
        events.append((fields["event"], json.loads(fields["data"])))
    return events


def test_the_api_streams_the_toy_over_sse_inside_its_lifespan(store: Any) -> None:
    built = create_app(_with_toy())
    with TestClient(built) as client:
        assert built.state.toy == "running"  # the feature's lifespan, entered by the app
        response = client.get("/api/v1/toy/count/2")
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        events = [(name, data) for name, data in _sse_events(response.text)]
        payloads = [read(name, data) for name, data in events if name != "keepalive"]
        assert payloads == [ToyTick(n=1), ToyTick(n=2), ToyDone(success=True, counted=2)]
        assert "/api/v1/toy/count/{n}" in client.get("/openapi.json").json()["paths"]
    assert built.state.toy == "stopped"


def test_the_toys_body_route_has_its_cap_its_guard_and_its_quota_plan(store: Any) -> None:
    """The body gate reads the cap and the quota the toy's route declares, the guard
    checks the key, the plan reserves the quota and the stream spends it: all from
    tests/ alone."""
    from socialgen.store.engine import read_session, transaction
    from socialgen.workspaces.service import get_usage, set_post_quota

    url = f"/api/v1/toy/notes/{store.workspace_id}"
    key = {"x-api-key": store.api_key()}
    with TestClient(create_app(_with_toy())) as client:
        assert client.post(url, json={"notes": ["a"]}).status_code == 401  # the guard
        big = client.post(url, headers=key, json={"notes": ["x" * 2000]})
        assert big.status_code == 413, big.text
        assert big.json()["message"] == "The toy's body is larger than 1 KB"  # its own cap
        with transaction(store.engine) as session:
            set_post_quota(session, store.workspace_id, 1)
        over = client.post(url, headers=key, json={"notes": ["one", "two"]})
        assert over.status_code == 403, over.text  # the plan: 2 asked, 1 left
        assert over.json()["message"] == "Post quota exceeded: 2 requested, 1 left of 1"
        done = client.post(url, headers=key, json={"notes": ["one"]})
        assert done.status_code == 200, done.text
        payloads = [
            read(name, data) for name, data in _sse_events(done.text) if name != "keepalive"
        ]
        assert payloads == [ToyTick(n=1), ToyDone(success=True, counted=1)]
        gated = client.post(url, headers=key, json={"notes": ["two"]})
        assert gated.status_code == 403, gated.text  # the gate: none left, body unread
    with read_session(store.engine) as session:
        usage = get_usage(session, store.workspace_id)
    assert (usage.posts_used, usage.post_quota) == (1, 1)  # spent once, nothing leaked
    with TestClient(create_app(Runtime())) as plain:
        assert plain.post(url, headers=key, json={"notes": ["a"]}).status_code == 404


def test_serve_runs_the_toys_start_work(store: Any) -> None:
    started = toy_feature.STARTED
    started.clear()
    serve_start(store.engine, Runtime(features=(FEATURE,)))  # the sweep's too: nothing to sweep
    assert started == [store.engine]


def test_the_toys_command_group_and_its_extension_load_when_named(store: Any) -> None:
    # The same path as the groups found under socialgen/: listed by the help declared
    # in feature.py, loaded when named, with the commands `extends` adds to it.
    listed = runner.invoke(app, ["--help"], obj=_with_toy())
    assert "Toy commands, loaded when named." in listed.stdout
    echoed = runner.invoke(app, ["toy", "echo", "hello"], obj=_with_toy())
    assert echoed.exit_code == 0 and echoed.stdout == "hello\n", echoed.output
    shouted = runner.invoke(app, ["toy", "shout", "hello"], obj=_with_toy())
    assert shouted.exit_code == 0 and shouted.stdout == "HELLO\n", shouted.output
    plain = runner.invoke(app, ["toy", "echo", "hello"], obj=Runtime())
    assert plain.exit_code == 2, plain.output  # no toy group without the Runtime's
    assert "toy" not in runner.invoke(app, ["--help"], obj=Runtime()).stdout


def test_an_mcp_client_runs_the_toys_tool_over_http(store: Any) -> None:
    from tests.conftest import serving
    from tests.mcp_support import http_session, run, structured

    async def tools(with_toy: bool) -> tuple[list[str], dict[str, Any] | None]:
        runtime = _with_toy() if with_toy else Runtime()
        with serving(create_app(runtime)) as server:
            async with http_session(server.base_url, {"x-api-key": store.api_key()}) as mcp:
                names = [tool.name for tool in (await mcp.list_tools()).tools]
                if not with_toy:
                    return names, None
                counted = structured(await mcp.call_tool("toy_count", {"n": 3}))
                # The declared operation, as a tool: the notes saved, its result the
                # stream's completion event.
                saved = structured(await mcp.call_tool("toy_notes", {"notes": ["via mcp"]}))
                return names, {"count": counted, "notes": saved}

    names, called = run(lambda: tools(True))
    assert {"toy_count", "toy_notes", "write_post"} <= set(names)  # beside the built-in
    assert called == {
        "count": {"success": True, "counted": 3},
        "notes": {"success": True, "counted": 1},
    }
    assert _drafts(store) == ["via mcp"]
    plain, _ = run(lambda: tools(False))
    assert set(plain) == set(names) - {"toy_count", "toy_notes"}


def test_the_command_line_runs_the_toys_declared_operation(store: Any) -> None:
    """`toy-notes` streams the same operation the API's route and the MCP tool serve:
    the plan reserves, the run saves and spends, the completion event ends it."""
    result = runner.invoke(app, ["toy-notes", "first", "second"], obj=_with_toy())
    assert result.exit_code == 0, result.output
    assert result.stdout.split("\n")[:3] == ["tick 1", "tick 2", "counted 2"]
    assert sorted(_drafts(store)) == ["first", "second"]


def _drafts(store: Any) -> list[str]:
    from sqlmodel import select

    from socialgen.store.engine import read_session
    from socialgen.store.tables import Post

    with read_session(store.engine) as session:
        return list(session.exec(select(Post.content)).all())


def test_the_toys_events_are_in_the_event_contract_by_their_own_examples() -> None:
    # tests/event_examples.py collects the examples from the features' streams: the
    # toy's events are covered once a Runtime hands the toy in, and by nothing else.
    toy = [(name, data) for name, data in examples((FEATURE,)) if name.startswith("toy_")]
    assert [name for name, _ in toy] == ["toy_tick", "toy_done", "toy_done"]
    assert not any(name.startswith("toy_") for name, _ in EXAMPLES)
    assert without_examples((FEATURE,)) == []
    for name, data in toy:
        check_round_trip(name, data)


def test_the_toys_model_call_is_answered_as_its_own_replies_declare(
    store: Any, scripted_ai: ScriptedAI
) -> None:
    declared = scripted_replies()[WORD_PURPOSE]
    assert declared.reply.__module__ == "tests.toy_replies"  # beside the toy, found by name
    said = scripted_ai.invoke(["toy-word", "rivers"], features=(FEATURE,))
    assert said.exit_code == 0, said.output
    assert said.stdout == "pebble\n"  # the reply's default
    scripted_ai.toy_word = "granite"  # the toy's own knob
    with TestClient(create_app(scripted_ai.runtime((FEATURE,)))) as client:
        response = client.get("/api/v1/toy/word", params={"topic": "stones"})
    assert response.status_code == 200 and response.json() == {"word": "granite"}
    asked = scripted_ai.calls_for(WORD_PURPOSE)
    assert [call.prompt for call in asked] == ["One word about rivers.", "One word about stones."]


def _strings(path: Path) -> set[str]:
    return {
        node.value
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    }


def test_the_central_scripted_support_names_no_purpose_and_no_toy() -> None:
    # Each feature's replies are in its own tests/<feature>_replies.py: a string in the
    # central files that is some purpose would mean a feature was answered there.
    purposes = set(scripted_replies())
    assert {WORD_PURPOSE, "post", "carousel_outline", "calendar_themes"} <= purposes
    assert "tests.toy_replies" in reply_modules()
    tests = Path(__file__).parent
    for central in (tests / "scripted_support.py", Path(replies_module.__file__)):
        assert not _strings(central) & purposes, central
        assert "toy" not in central.read_text().lower(), central


def test_a_knob_no_feature_declares_is_refused(scripted_ai: ScriptedAI) -> None:
    with pytest.raises(AttributeError, match="toy_wrod"):
        scripted_ai.toy_wrod = "typo"  # would otherwise change nothing, silently
