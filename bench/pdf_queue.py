#!/usr/bin/env python3
"""generate-pdf after abandoned heavy renders, through a real `socialgen serve`.

N clients each send a slide holding a 20,000-row table (about 40 s of WeasyPrint
layout) and hang up after --hold seconds; then one client asks for a one-line
slide. Prints that request's latency, how many heavy requests were turned away
with 503 while they waited, and how many worker processes are still busy
afterwards (each abandoned render should have had its worker killed).

Before the render pool (abandoned renders ran to the end): 4 abandoned requests
made the one-line request wait 58.9 s.

The home and the server come from the bench harness (bench/harness/).

    .venv/bin/python bench/pdf_queue.py
    .venv/bin/python bench/pdf_queue.py --abandoned 34 --callers 34
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import time
from pathlib import Path

import httpx

from harness import bench_env, bench_home, serve
from socialgen.app.runtime import Runtime

HEAVY = "<table>" + "<tr><td>x</td></tr>" * 20000 + "</table>"
ONE_LINE = "<p>One line</p>"
PDF_PATH = "/api/v1/carousel/generate-pdf"


def create_keys(count: int) -> list[str]:
    """`count` API keys, each bound to a workspace of its own: separate callers."""
    from socialgen.auth.service import create_api_key
    from socialgen.store.engine import transaction
    from socialgen.workspaces.service import create_workspace

    engine = Runtime().open_store()
    keys = []
    with transaction(engine) as session:
        for n in range(count):
            workspace = create_workspace(session, f"Bench {n}")
            keys.append(create_api_key(session, name=f"bench {n}", workspace_id=workspace.id)[1])
    engine.dispose()
    return keys


def send_heavy(port: int, key: str) -> socket.socket:
    body = json.dumps({"slidesHtml": [HEAVY]}).encode()
    client = socket.create_connection(("127.0.0.1", port))
    head = (
        f"POST {PDF_PATH} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nx-api-key: {key}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    client.sendall(head.encode() + body)
    return client


def answered_503(client: socket.socket) -> bool:
    client.setblocking(False)
    try:
        return client.recv(64).startswith(b"HTTP/1.1 503")
    except BlockingIOError:
        return False


def busy_workers(server_pid: int, interval: float = 1.0) -> int:
    """Children of the server named socialgen-pdf that used CPU during `interval`."""

    def workers() -> dict[int, int]:
        found = {}
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                comm = (entry / "comm").read_text().strip()
            except OSError:
                continue
            if comm == "socialgen-pdf" and int(fields[1]) == server_pid:
                found[int(entry.name)] = int(fields[11]) + int(fields[12])
        return found

    before = workers()
    time.sleep(interval)
    after = workers()
    return sum(1 for pid, ticks in after.items() if ticks > before.get(pid, ticks))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--abandoned", type=int, default=4, help="heavy requests that hang up")
    parser.add_argument("--hold", type=float, default=1.5, help="seconds before they hang up")
    parser.add_argument("--callers", type=int, default=1, help="distinct keys they use")
    args = parser.parse_args()

    with bench_home("socialgen-bench-") as home:
        # Only hanging up may stop a heavy render.
        env = bench_env(home, SOCIALGEN_PDF_TIMEOUT="120")
        os.environ.update(env)  # the keys are made in this process, on the same home
        keys = create_keys(args.callers + 1)
        heavy_keys, own_key = keys[:-1], keys[-1]
        with serve(env, home / "serve.log") as server:
            url = f"{server.url}{PDF_PATH}"
            with httpx.Client(headers={"x-api-key": own_key}, timeout=300) as client:
                client.post(url, json={"slidesHtml": [ONE_LINE]}).raise_for_status()  # warm-up
                clients = [
                    send_heavy(server.port, heavy_keys[n % len(heavy_keys)])
                    for n in range(args.abandoned)
                ]
                time.sleep(args.hold)
                refused = sum(answered_503(heavy) for heavy in clients)
                for heavy in clients:
                    heavy.close()
                started = time.perf_counter()
                response = client.post(url, json={"slidesHtml": [ONE_LINE]})
                latency = time.perf_counter() - started
                response.raise_for_status()
            busy = busy_workers(server.pid)
    print(
        f"{args.abandoned} heavy requests from {len(heavy_keys)} caller(s), abandoned after "
        f"{args.hold:g} s ({refused} answered 503 first)"
    )
    print(f"  one-line generate-pdf after them: {latency:.3f} s")
    print(f"  worker processes still busy afterwards: {busy}")


if __name__ == "__main__":
    main()
