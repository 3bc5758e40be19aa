#!/usr/bin/env python3
"""Memory of `socialgen serve` holding many idle SSE streams open.

Starts the fake OpenAI-compatible provider (tests/fakes/openai_server.py, 127.0.0.1) and
`socialgen serve` in a subprocess (temporary SOCIALGEN_HOME, SOCIALGEN_KEEPALIVE_SECONDS
small so keep-alive events flow; API key made in-process with
socialgen.auth.service.create_api_key, bound to the default workspace). One chat is run
to the end first with the fake answering at once, so litellm is imported and warm and the
baseline is a server that has already served. Then the fake is switched to never answer
in time (first_delay, default 120 s, on every request) and --streams (default 500)
concurrent POST /api/v1/ai-conversation/chat/{ws} streams are opened with one asyncio
httpx client (limits=httpx.Limits(max_connections=600)). Each chat waits on the model,
so only `keepalive` events flow.

It checks that every stream got 200 and receives keep-alives (at least two each), holds
them open for --hold seconds, and reports the server's VmRSS and VmHWM (from
/proc/PID/status) before and with the streams open, the memory per stream, the server's
threads and open file descriptors, and how many model requests reached the fake. Then it
closes every stream, reads VmRSS once more and stops the server and the fake.

Bounded: every phase has a deadline inside --budget seconds (default 110); a watchdog
kills the server and exits if the whole run ever passes --budget + 20 s. 127.0.0.1 only.
The soft open-file limit is raised (resource.setrlimit) when it is too low.

The server, the key, /proc figures and the fake come from the bench harness
(bench/harness/), which also puts the repository on sys.path (`tests.fakes` imports
without PYTHONPATH=.). Prints the stream tally, the memory rows and the per-stream
growth; exits 1 when a stream misses its keep-alives. Run from the repository root:

    .venv/bin/python bench/idle_streams.py
    .venv/bin/python bench/idle_streams.py --streams 200 --keepalive 1 --hold 5
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import os
import resource
import statistics
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from harness import (
    Server,
    Status,
    bench_env,
    bench_home,
    create_key,
    machine_line,
    proc_status,
    serve,
)
from harness.fake import FakeOpenAI, Reply, last_user_message, wants_json

API_PREFIX = "/api/v1/ai-conversation"
now = time.monotonic


class Responder:
    """At once while warming up; afterwards every request waits `first_delay` first."""

    def __init__(self, first_delay: float) -> None:
        self.first_delay = first_delay
        self.slow = False
        self.slow_requests = 0
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Reply:
        delay = 0.0
        if self.slow:
            with self._lock:
                self.slow_requests += 1
            delay = self.first_delay
        if wants_json(body):
            if last_user_message(body).startswith("Decide what the user wants"):
                return Reply.json({"intent": "chat"}, first_delay=delay)
            return Reply.json({"questions": ["One?", "Two?", "Three?"]}, first_delay=delay)
        return Reply(text="Hooks name a tension the reader feels.", first_delay=delay)


# --------------------------------------------------------------------------- the server


def show(label: str, status: Status) -> None:
    print(
        f"  {label:38} VmRSS {status.rss_kb / 1024:7.1f} MiB   VmHWM {status.hwm_kb / 1024:7.1f} "
        f"MiB   threads {status.threads:4}   fds {status.fds:5}"
    )


def raise_fd_limit(wanted: int) -> str:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= wanted:
        return f"open-file limit {soft} (enough)"
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return f"open-file limit raised from {soft} to {target}"


# --------------------------------------------------------------------------- the streams


@dataclass
class Stream:
    status: int | None = None
    opened_at: float | None = None
    keepalives: list[float] = field(default_factory=list)
    other_events: list[str] = field(default_factory=list)
    error: str | None = None


async def hold_stream(client: httpx.AsyncClient, url: str, stream: Stream) -> None:
    try:
        async with client.stream("POST", url, json={"userInput": "How do I write a hook?"}) as r:
            stream.status = r.status_code
            stream.opened_at = now()
            if r.status_code != 200:
                await r.aread()
                stream.error = r.text[:200]
                return
            async for line in r.aiter_lines():
                if line.startswith("event:"):
                    name = line[6:].strip()
                    if name == "keepalive":
                        stream.keepalives.append(now())
                    else:
                        stream.other_events.append(name)
    except asyncio.CancelledError:
        raise
    except Exception as error:  # recorded and reported, the other streams go on
        stream.error = f"{type(error).__name__}: {error}"


def tally(streams: list[Stream]) -> tuple[int, int, int, int]:
    ok = sum(1 for s in streams if s.status == 200)
    one = sum(1 for s in streams if len(s.keepalives) >= 1)
    two = sum(1 for s in streams if len(s.keepalives) >= 2)
    failed = sum(1 for s in streams if s.error is not None or (s.status or 200) != 200)
    return ok, one, two, failed


async def run_streams(
    args: argparse.Namespace, pid: int, url: str, api_key: str, deadline: float
) -> tuple[bool, Status, Status]:
    streams = [Stream() for _ in range(args.streams)]
    limits = httpx.Limits(max_connections=600, max_keepalive_connections=600)
    timeout = httpx.Timeout(30.0, read=max(30.0, args.keepalive * 5), pool=60.0)
    ok = False
    async with httpx.AsyncClient(
        headers={"x-api-key": api_key}, limits=limits, timeout=timeout
    ) as client:
        started = now()
        tasks = [asyncio.create_task(hold_stream(client, url, s)) for s in streams]
        all_open = all_one = all_two = None
        wait_until = min(deadline - args.hold - 10, started + args.open_timeout)
        while now() < wait_until:
            await asyncio.sleep(0.25)
            opened, one, two, failed = tally(streams)
            if all_open is None and opened == len(streams):
                all_open = now() - started
            if all_one is None and one == len(streams):
                all_one = now() - started
            if two == len(streams):
                all_two = now() - started
                break
            if failed:
                break
        opened, one, two, failed = tally(streams)
        print(
            f"\n{len(streams)} streams: {opened} answered 200, {one} got a keep-alive, "
            f"{two} got two or more, {failed} failed"
        )
        for label, value in (
            ("all 200", all_open),
            ("all got a first keep-alive", all_one),
            ("all got a second keep-alive", all_two),
        ):
            shown = f"{value:5.2f} s after the first request" if value is not None else "never"
            print(f"  {label:30} {shown}")
        ok = two == len(streams) and failed == 0
        for sample in [s for s in streams if s.error][:5]:
            print(f"  !! status {sample.status}: {sample.error}")

        samples: list[Status] = []
        before_hold = {id(s): len(s.keepalives) for s in streams}
        hold_until = min(now() + args.hold, deadline - 8)
        while now() < hold_until:
            samples.append(proc_status(pid))
            await asyncio.sleep(1.0)
        samples.append(proc_status(pid))
        fresh = [len(s.keepalives) - before_hold[id(s)] for s in streams]
        gaps = [b - a for s in streams for a, b in itertools.pairwise(s.keepalives)]
        print(
            f"  held {args.hold:.0f} s: keep-alives per stream meanwhile min {min(fresh)}, "
            f"median {statistics.median(fresh):.0f}; gap between keep-alives median "
            f"{statistics.median(gaps) if gaps else float('nan'):.2f} s, "
            f"max {max(gaps) if gaps else float('nan'):.2f} s"
        )
        others = sorted({name for s in streams for name in s.other_events})
        print(f"  events other than keepalive: {', '.join(others) or 'none'}")
        ok &= min(fresh) >= 1
        peak = max(samples, key=lambda status: status.rss_kb)

        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return ok, peak, samples[-1]


# --------------------------------------------------------------------------- main


def watch(
    args: argparse.Namespace,
    server: Server,
    responder: Responder,
    api_key: str,
    workspace: str,
    deadline: float,
) -> bool:
    """Memory before, with and after the streams; True when every stream kept alive."""
    url = f"{server.url}{API_PREFIX}/chat/{workspace}"
    print(
        f"`socialgen serve` pid {server.pid} on 127.0.0.1:{server.port}, keep-alive every "
        f"{args.keepalive:g} s; the fake waits {args.first_delay:g} s before any answer"
    )
    print("\nserver memory:")
    show("started, nothing served", proc_status(server.pid))
    warm = httpx.post(
        url, json={"userInput": "How do I write a hook?"},
        headers={"x-api-key": api_key}, timeout=30,
    )  # fmt: skip
    if warm.status_code != 200 or "chat_response" not in warm.text:
        raise SystemExit(f"warm-up chat failed: {warm.status_code} {warm.text[:300]}")
    time.sleep(0.5)
    before = proc_status(server.pid)
    show("after one chat (litellm warm): before", before)
    responder.slow = True
    ok, opened, last = asyncio.run(run_streams(args, server.pid, url, api_key, deadline))
    time.sleep(1.0)
    after = proc_status(server.pid)
    print("\nserver memory:")
    show("before the streams", before)
    show(f"{args.streams} streams open (peak sample)", opened)
    show(f"{args.streams} streams open (last sample)", last)
    show("1 s after closing them all", after)
    per_stream = (opened.rss_kb - before.rss_kb) / args.streams
    print(
        f"\n  with {args.streams} streams: +{(opened.rss_kb - before.rss_kb) / 1024:.1f} "
        f"MiB RSS, {per_stream:.1f} KiB per stream; peak (VmHWM) "
        f"+{(opened.hwm_kb - before.hwm_kb) / 1024:.1f} MiB"
    )
    print(
        f"  model requests that reached the fake while slow: {responder.slow_requests} "
        f"(each stream's intent request, held by the fake)"
    )
    print(f"  server stopped: {server.stop()}")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--streams", type=int, default=500, help="concurrent chat streams")
    parser.add_argument("--keepalive", type=float, default=2.0, help="SOCIALGEN_KEEPALIVE_SECONDS")
    parser.add_argument("--first-delay", type=float, default=120.0, help="fake's delay, s")
    parser.add_argument("--hold", type=float, default=10.0, help="seconds to hold them open")
    parser.add_argument("--open-timeout", type=float, default=60.0, help="to open them all")
    parser.add_argument("--budget", type=float, default=110.0, help="whole run, seconds")
    args = parser.parse_args()
    if not 1 <= args.streams <= 590:
        parser.error("--streams must be between 1 and 590 (the client allows 600 connections)")

    began = now()
    deadline = began + args.budget
    running: list[Server] = []

    def watchdog() -> None:
        for server in running:
            if server.process.poll() is None:
                server.process.kill()
        print("!! watchdog: the run passed its budget; server killed", flush=True)
        os._exit(2)

    guard = threading.Timer(args.budget + 20, watchdog)
    guard.daemon = True
    guard.start()
    print(machine_line())
    print(raise_fd_limit(args.streams * 3 + 256))
    responder = Responder(args.first_delay)
    ok = False
    try:
        with bench_home("socialgen-bench-idle-") as home, FakeOpenAI(responder) as fake:
            env = bench_env(home, **fake.env(), SOCIALGEN_KEEPALIVE_SECONDS=str(args.keepalive))
            api_key, workspace = create_key(env)
            with serve(env, home / "serve.log") as server:
                running.append(server)
                ok = watch(args, server, responder, api_key, workspace, deadline)
    finally:
        guard.cancel()
    print(f"\nwhole run {now() - began:.1f} s; {'OK' if ok else 'streams MISSED the check'}")
    return 0 if ok else 1


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
