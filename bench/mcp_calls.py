#!/usr/bin/env python3
"""What the MCP server adds (issue 27), on a real `socialgen serve` and its /mcp.

1. write_post through MCP against the same service called directly. The model is the
   fake OpenAI-compatible provider (tests/fakes/openai_server.py) sending the post at a
   fixed pace (--chunk-chars characters every --token-delay seconds; side requests such
   as the refinement questions at once), so both paths wait on the same model:
     direct  generation.plan.prepare_post + generation.single.run_generate_post in this
             process, the events consumed as they come (litellm to the fake);
     MCP     tools/call write_post over Streamable HTTP to `socialgen serve` (a
             subprocess on the same store), with the SDK's own client.
   Interleaved rounds (--runs, one warm-up each first); target: MCP's median within
   1.1x direct's.
2. list_posts over HTTP on a store of 10,000 posts (1,000 of them in the 90-day window,
   built with posts_listing_store.py): tools/call list_posts (its default page of 20,
   latest first) --calls times after 20 warm-up calls, posted as JSON-RPC by httpx (the
   server's time) for view recent and timeline, then through the Python SDK's client
   (which also validates each result against the tool's output schema, in pure
   Python); the same page from GET posts-timeline?limit=20 for reference. Target:
   tools/call p50 under 20 ms.

Prints both tables and the targets; exits 1 when one is missed. Run from the
repository root:

    .venv/bin/python bench/mcp_calls.py
    .venv/bin/python bench/mcp_calls.py --runs 10 --calls 500 --json mcp.json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import httpx

from harness import (
    Report,
    Samples,
    Table,
    bench_env,
    bench_home,
    create_key,
    create_token,
    environ,
    interleave,
    machine_line,
    ms,
    serve,
)
from harness.fake import FakeOpenAI, PacedResponder, post_text
from posts_listing_store import build_store, plan_for
from socialgen.app.runtime import Runtime

WRITE_TARGET = 1.10
LIST_TARGET_S = 0.020
PAGE = 20  # list_posts' default page
TOPIC = "Why small teams ship weekly"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="write_post rounds (default 5)")
    parser.add_argument("--calls", type=int, default=200, help="list_posts calls (default 200)")
    parser.add_argument("--chunk-chars", type=int, default=8)
    parser.add_argument("--token-delay", type=float, default=0.01)
    Report.add_option(parser)
    args = parser.parse_args()
    report = Report("mcp")
    print(machine_line())
    responder = PacedResponder(post_text(600), args.chunk_chars, args.token_delay)
    with bench_home("socialgen-bench-mcp-") as home, FakeOpenAI(responder=responder) as fake:
        env = bench_env(home, **fake.env(), SOCIALGEN_SCHEDULER="0")
        key, workspace_id = create_key(env)
        token = create_token(env)
        with serve(env, home / "serve.log") as server, environ(env):
            ok = _write_post(server.url, key, workspace_id, args.runs, report)
            _fill(home)
            ok = _list_posts(server.url, key, token, workspace_id, args.calls, report) and ok
    report.write(args.json)
    return 0 if ok else 1


# --- 1. write_post --------------------------------------------------------------------


def _write_post(url: str, key: str, workspace_id: str, runs: int, report: Report) -> bool:
    from socialgen.app.caller import Caller
    from socialgen.files.backends import files_of
    from socialgen.generation.plan import prepare_post
    from socialgen.generation.schemas import GeneratePostRequest
    from socialgen.generation.single import run_generate_post

    runtime = Runtime()
    engine = runtime.open_store()
    caller = Caller(engine, workspace_id, None, runtime.settings, files=files_of(runtime))
    model = Runtime().text_model()

    def direct() -> float:
        async def consume() -> None:
            plan = await asyncio.to_thread(
                prepare_post, caller, GeneratePostRequest(userInput=TOPIC)
            )
            async for _ in run_generate_post(plan, model):
                pass

        started = time.perf_counter()
        asyncio.run(consume())
        return time.perf_counter() - started

    def through_mcp() -> float:
        async def call() -> float:
            async with _session(url, {"x-api-key": key}) as mcp:
                started = time.perf_counter()
                result = await mcp.call_tool("write_post", {"userInput": TOPIC})
                elapsed = time.perf_counter() - started
                assert not result.is_error, result.content
                return elapsed

        return anyio.run(call)

    samples = {
        name: Samples(values)
        for name, values in interleave(
            {"direct": direct, "MCP": through_mcp}, runs, warmup=1
        ).items()
    }
    ratio = samples["MCP"].ratio(samples["direct"])
    print("\n1. write_post: the service called directly vs tools/call over /mcp")
    table = Table("path", "median", "min", "max", "x direct")
    for name, found in samples.items():
        table.add(
            name,
            ms(found.median),
            ms(found.min),
            ms(found.max),
            f"{found.ratio(samples['direct']):.3f}",
        )
    table.print()
    met = ratio <= WRITE_TARGET
    print(f"target MCP <= {WRITE_TARGET}x direct: {ratio:.3f}x {'met' if met else 'MISSED'}")
    report.add("write_post", {name: found.values for name, found in samples.items()})
    report.add("write_post_ratio", ratio)
    return met


# --- 2. list_posts ----------------------------------------------------------------------


def _fill(home: Path) -> None:
    from sqlalchemy import create_engine

    engine = create_engine(f"sqlite:///{home / 'socialgen.db'}")
    build_store(engine, plan_for(10_000, 1_000), plan_for(100, 10), seed=27)
    engine.dispose()


def _list_posts(
    url: str, key: str, token: str, workspace_id: str, calls: int, report: Report
) -> bool:
    headers = {"x-api-key": key, "authorization": f"Bearer {token}"}
    arguments = {"view": "timeline", "limit": PAGE}

    def repeat(call: Callable[[], object]) -> Samples:
        for _ in range(20):
            call()
        values = []
        for _ in range(calls):
            started = time.perf_counter()
            call()
            values.append(time.perf_counter() - started)
        return Samples(values)

    def raw(view: str) -> Samples:
        with httpx.Client(headers=headers, timeout=30) as http:
            session = _raw_session(http, url)
            body = {"view": view, "limit": PAGE}
            return repeat(lambda: _raw_call(http, url, session, "list_posts", body))

    async def sdk() -> Samples:
        async with _session(url, headers) as mcp:
            values = []
            for n in range(20 + calls):
                started = time.perf_counter()
                result = await mcp.call_tool("list_posts", arguments)
                if n >= 20:
                    values.append(time.perf_counter() - started)
                assert not result.is_error and len(result.structured_content["posts"]) == PAGE
            return Samples(values)

    def endpoint() -> Samples:
        path = f"{url}/api/v1/ai-conversation/posts-timeline/{workspace_id}?limit={PAGE}"
        with httpx.Client(headers=headers) as http:
            return repeat(lambda: http.get(path).raise_for_status())

    found = {
        "list_posts recent, tools/call": raw("recent"),
        "list_posts timeline, tools/call": raw("timeline"),
        "list_posts timeline, SDK client": anyio.run(sdk),
        f"GET posts-timeline?limit={PAGE}": endpoint(),
    }
    print(f"\n2. a page of {PAGE} posts over HTTP, 10,000 posts in the store, {calls} calls each")
    table = Table("call", "p50", "p95", "mean", "min")
    for name, samples in found.items():
        table.add(name, ms(samples.median), ms(samples.p95), ms(samples.mean), ms(samples.min))
    table.print()
    print(
        "  tools/call: JSON-RPC posted by httpx, the SSE answer parsed (the server's time);\n"
        "  SDK client: the Python SDK's ClientSession, which also checks every result against\n"
        "  the tool's output schema with jsonschema (pure Python, about 0.7 ms a post here)."
    )
    worst = max(
        found["list_posts recent, tools/call"].median,
        found["list_posts timeline, tools/call"].median,
    )
    met = worst < LIST_TARGET_S
    print(
        f"target list_posts p50 < {ms(LIST_TARGET_S, 0)}: {ms(worst)} {'met' if met else 'MISSED'}"
    )
    report.add("list_posts_p50_s", {name: samples.median for name, samples in found.items()})
    return met


def _raw_session(http: httpx.Client, url: str) -> dict[str, str]:
    """initialize and notifications/initialized, by hand: the session's headers."""
    opened = http.post(f"{url}/mcp", json=_INITIALIZE, headers=_ACCEPT)
    opened.raise_for_status()
    session = {
        **_ACCEPT,
        "mcp-session-id": opened.headers["mcp-session-id"],
        "mcp-protocol-version": _INITIALIZE["params"]["protocolVersion"],
    }
    ready = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    http.post(f"{url}/mcp", json=ready, headers=session).raise_for_status()
    return session


def _raw_call(
    http: httpx.Client, url: str, session: dict[str, str], name: str, arguments: dict[str, Any]
) -> dict[str, Any]:
    body = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    answer = http.post(f"{url}/mcp", json=body, headers=session)
    answer.raise_for_status()
    data = next(line for line in answer.text.splitlines() if line.startswith("data: "))
    result: dict[str, Any] = json.loads(data.removeprefix("data: "))["result"]
    assert not result.get("isError") and len(result["structuredContent"]["posts"]) == PAGE
    return result


_ACCEPT = {"accept": "application/json, text/event-stream"}
_INITIALIZE: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}


def _session(url: str, headers: dict[str, str]) -> Any:
    from contextlib import asynccontextmanager

    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    @asynccontextmanager
    async def session() -> Any:
        async with (
            create_mcp_http_client(headers=headers) as http,
            streamable_http_client(f"{url}/mcp", http_client=http) as (read, write),
            ClientSession(read, write) as mcp,
        ):
            await mcp.initialize()
            yield mcp

    return session()


if __name__ == "__main__":
    sys.exit(main())
