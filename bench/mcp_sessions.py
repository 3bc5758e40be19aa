#!/usr/bin/env python3
"""What an MCP session costs, and what the caps cost (the security issue: one key could
fill the SDK's 10,000 sessions and lock every workspace out; a 200 MB stdio line took
654 MB).

1. Memory per open session: `socialgen serve` (a subprocess) with a cap high enough
   not to matter; one key opens --sessions sessions by hand (initialize, then
   notifications/initialized); the server's RSS before and after, per session. Then
   what one key may hold: the default cap (20) against the SDK's 10,000.
2. Time to open a session and to be refused: `serve` with the default cap; one key
   opens its 20; then --opens more, each closing that key's longest-idle session first;
   then, all 20 kept busy (their GET streams open), --opens refused with a 429; and
   another workspace's key opening a session all the while.
3. stdio: `socialgen mcp` fed a --frame-mb MB line, then a ping: its peak RSS (VmHWM)
   and whether it answered both; the same through the SDK's own stdio transport.

Linux (/proc). Run from the repository root:

    .venv/bin/python bench/mcp_sessions.py
    .venv/bin/python bench/mcp_sessions.py --sessions 1000 --frame-mb 200 --json s.json
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

import httpx

from harness import (
    Report,
    Samples,
    Table,
    bench_env,
    bench_home,
    create_key,
    machine_line,
    ms,
    proc_status,
    serve,
    socialgen_command,
)

SDK_CAP = 10_000  # the SDK's sessions for the whole server
DEFAULT_CAP = 20  # socialgen's per caller (mcp_sessions_per_caller)
INITIALIZE: dict[str, Any] = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "0"},
    },
}
ACCEPT = {"accept": "application/json, text/event-stream"}
# `socialgen mcp` as it ran before: the SDK's stdio transport on the same server.
SDK_STDIO = """
import anyio
from socialgen.app.runtime import Runtime
from socialgen.mcp_server.access import LocalFace
from socialgen.mcp_server.build import build_server
from socialgen.store.engine import read_session
from socialgen.workspaces.service import default_workspace

runtime = Runtime()
engine = runtime.open_store()
with read_session(engine) as session:
    workspace_id = default_workspace(session).id
server = build_server(LocalFace(runtime, engine, workspace_id), runtime.features)
anyio.run(server.run_stdio_async)
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=500, help="for 1 (default 500)")
    parser.add_argument("--opens", type=int, default=100, help="for 2 (default 100)")
    parser.add_argument("--frame-mb", type=int, default=200, help="for 3 (default 200)")
    Report.add_option(parser)
    args = parser.parse_args()
    report = Report("mcp_sessions")
    print(machine_line())
    with bench_home("socialgen-bench-mcp-sessions-") as home:
        env = bench_env(home, SOCIALGEN_SCHEDULER="0")
        key, _ = create_key(env)
        other_key = _other_workspace_key(env)
        roomy = {**env, "SOCIALGEN_MCP_SESSIONS_PER_CALLER": str(10 * args.sessions)}
        with serve(roomy, home / "serve-1.log") as server:
            _memory(server.url, server.pid, key, args.sessions, report)
        with serve(env, home / "serve-2.log") as server:
            _times(server.url, key, other_key, args.opens, report)
        _stdio(env, args.frame_mb, report)
    report.write(args.json)
    return 0


# --- 1. memory --------------------------------------------------------------------------


def _memory(url: str, pid: int, key: str, count: int, report: Report) -> None:
    with httpx.Client(headers={"x-api-key": key}, timeout=30) as http:
        _open(http, url)  # the SDK loads at the first request
        _open(http, url)
        before = proc_status(pid).rss_kb
        for _ in range(count):
            _open(http, url)
        after = proc_status(pid).rss_kb
    per_session = (after - before) * 1024 / count
    print(f"\n1. memory: {count} sessions opened by one key")
    table = Table("figure", "value")
    table.add("server RSS before", f"{before / 1024:.1f} MB")
    table.add(f"server RSS with {count} more", f"{after / 1024:.1f} MB")
    table.add("per open session", f"{per_session / 1024:.1f} KB")
    table.add(f"one key before (the SDK's {SDK_CAP:,})", f"{SDK_CAP * per_session / 2**20:.0f} MB")
    table.add(f"one key now (its {DEFAULT_CAP})", f"{DEFAULT_CAP * per_session / 2**20:.2f} MB")
    table.print()
    report.add("bytes_per_session", per_session)


# --- 2. times ---------------------------------------------------------------------------


def _times(url: str, key: str, other_key: str, opens: int, report: Report) -> None:
    with (
        httpx.Client(headers={"x-api-key": key}, timeout=30) as http,
        httpx.Client(headers={"x-api-key": other_key}, timeout=30) as other,
    ):
        _open(other, url)  # the SDK loads at the first request
        first = _timed(lambda: _initialize(http, url), DEFAULT_CAP)
        closing = _timed(lambda: _initialize(http, url), opens)
        sessions = [_open(http, url) for _ in range(DEFAULT_CAP)]  # the newest 20
        with ExitStack() as held:
            for session in sessions:
                stream = held.enter_context(
                    http.stream("GET", f"{url}/mcp", headers=_session_headers(session))
                )
                assert stream.status_code == 200, stream.status_code
            refused = _timed(lambda: _refused(http, url), opens)
            theirs = _timed(lambda: _initialize(other, url), opens)
    found = {
        f"open, under the cap (the first {DEFAULT_CAP})": first,
        "open at the cap: the longest-idle one closed first": closing,
        "open at the cap, all busy: 429": refused,
        "another workspace's key opens meanwhile": theirs,
    }
    print(f"\n2. initialize (one POST) over HTTP, cap {DEFAULT_CAP}, {opens} times each")
    table = Table("request", "p50", "p95", "min")
    for name, samples in found.items():
        table.add(name, ms(samples.median), ms(samples.p95), ms(samples.min))
    table.print()
    report.add("open_s", {name: samples.values for name, samples in found.items()})


def _timed(call: Callable[[], object], count: int) -> Samples:
    values = []
    for _ in range(count):
        started = time.perf_counter()
        call()
        values.append(time.perf_counter() - started)
    return Samples(values)


def _initialize(http: httpx.Client, url: str) -> str:
    """The initialize request, which opens a session: its id."""
    opened = http.post(f"{url}/mcp", json=INITIALIZE, headers=ACCEPT)
    opened.raise_for_status()
    return opened.headers["mcp-session-id"]


def _open(http: httpx.Client, url: str) -> str:
    """initialize and notifications/initialized: the new session's id."""
    session = _initialize(http, url)
    ready = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    http.post(f"{url}/mcp", json=ready, headers=_session_headers(session)).raise_for_status()
    return session


def _refused(http: httpx.Client, url: str) -> None:
    answer = http.post(f"{url}/mcp", json=INITIALIZE, headers=ACCEPT)
    assert answer.status_code == 429, answer.status_code


def _session_headers(session: str) -> dict[str, str]:
    return {**ACCEPT, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18"}


def _other_workspace_key(env: dict[str, str]) -> str:
    def cli(*arguments: str) -> Any:
        done = subprocess.run(
            [*socialgen_command(), *arguments, "--json"],
            env=env,
            capture_output=True,
            check=True,
            timeout=60,
        )
        return json.loads(done.stdout)

    workspace = cli("workspace", "create", "Theirs")
    return str(
        cli("key", "create", "--name", "theirs", "--workspace", workspace["workspaceId"])["apiKey"]
    )


# --- 3. stdio ---------------------------------------------------------------------------


def _stdio(env: dict[str, str], frame_mb: int, report: Report) -> None:
    found = {
        "socialgen mcp": _frame_run([*socialgen_command(), "mcp"], env, frame_mb),
        "the SDK's stdio transport": _frame_run([sys.executable, "-c", SDK_STDIO], env, frame_mb),
    }
    print(f"\n3. stdio: initialize, a {frame_mb} MB tools/call line, a ping")
    table = Table("transport", "peak RSS", "answers", "the big line's answer")
    for name, (peak_kb, answers) in found.items():
        big = next((a for a in answers if a.get("id") == 2), None)
        said = "none" if big is None else json.dumps(big.get("error") or "a result")[:70]
        table.add(name, f"{peak_kb / 1024:.0f} MB", str(len(answers)), said)
    table.print()
    report.add("stdio_peak_kb", {name: peak for name, (peak, _) in found.items()})


def _frame_run(command: list[str], env: dict[str, str], frame_mb: int) -> tuple[int, list[Any]]:
    """Peak RSS (KB) of `command` fed the lines, and what it answered."""
    process = subprocess.Popen(
        command, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )
    assert process.stdin is not None and process.stdout is not None
    answers: list[Any] = []
    reader = threading.Thread(
        target=lambda: answers.extend(json.loads(line) for line in process.stdout or ()),
        daemon=True,
    )
    reader.start()
    process.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
    head = b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_post",'
    process.stdin.write(head + b'"arguments":{"postId":"')
    chunk = b"a" * 2**20
    for _ in range(frame_mb):
        process.stdin.write(chunk)
    process.stdin.write(b'"}}}\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n')
    process.stdin.flush()
    deadline = time.monotonic() + 120
    while not any(answer.get("id") == 3 for answer in answers) and time.monotonic() < deadline:
        time.sleep(0.05)
    peak = proc_status(process.pid).hwm_kb
    process.stdin.close()
    process.wait(timeout=30)
    reader.join(timeout=5)
    return peak, answers


if __name__ == "__main__":
    sys.exit(main())
