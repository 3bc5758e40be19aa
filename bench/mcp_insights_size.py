#!/usr/bin/env python3
"""How large one `insights` MCP answer is (issue 40): by default (findings, best slots,
a few example posts) and with detail: true (every post's point and every slot, the
whole report the tool gave before), on synthetic histories of the sizes asked
(tests/insights_synthetic.py, the planted effects; 293 posts is two years of a
LinkedIn creator's history).

In-process through the SDK's own client (`mcp.Client(server)`) on the stdio face, on
a fresh SQLite store in a temporary folder. Bytes are what travels in a tools/call
result: the text block (the SDK's indented JSON), the structured content, and the whole
result as JSON. Also the median time of a call, for reference (not a target).

    .venv/bin/python bench/mcp_insights_size.py
    .venv/bin/python bench/mcp_insights_size.py --posts 293 2000 --calls 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "src")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--posts", type=int, nargs="+", default=[293, 2000])
    parser.add_argument("--calls", type=int, default=3, help="Calls per figure (median).")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        os.environ["SOCIALGEN_HOME"] = home
        os.environ["SOCIALGEN_CONFIG"] = str(Path(home) / "config.toml")
        os.environ.pop("SOCIALGEN_DATABASE_URL", None)
        rows = [row for count in arguments.posts for row in measure(count, arguments.calls)]
    print(f"{'posts':>6} {'answer':>8} {'text B':>9} {'struct B':>9} {'result B':>9} {'ms':>7}")
    for row in rows:
        print(
            f"{row['posts']:>6} {row['answer']:>8} {row['text']:>9,} {row['structured']:>9,} "
            f"{row['result']:>9,} {row['ms']:>7.0f}"
        )


def measure(count: int, calls: int) -> list[dict[str, Any]]:
    import anyio
    from mcp import Client
    from tests.insights_support import put_history
    from tests.insights_synthetic import synthetic_history

    from socialgen.app.runtime import Runtime
    from socialgen.mcp_server.access import LocalFace
    from socialgen.mcp_server.build import build_server
    from socialgen.store.engine import transaction
    from socialgen.workspaces.service import create_workspace

    runtime = Runtime()
    engine = runtime.open_store()
    with transaction(engine) as session:
        workspace_id = create_workspace(session, f"History of {count}").id
    put_history(engine, workspace_id, synthetic_history(count, seed=7))
    server = build_server(LocalFace(runtime, engine, workspace_id), runtime.features)
    results: list[dict[str, Any]] = []

    async def run() -> None:
        async with Client(server) as client:
            for answer, extra in (("default", {}), ("detail", {"detail": True})):
                times = []
                for _ in range(calls):
                    started = time.perf_counter()
                    result = await client.call_tool("insights", {"tz": "Europe/Berlin", **extra})
                    times.append(time.perf_counter() - started)
                text = "".join(getattr(block, "text", "") for block in result.content)
                whole = result.model_dump(mode="json", by_alias=True, exclude_none=True)
                results.append(
                    {
                        "posts": count,
                        "answer": answer,
                        "text": len(text.encode()),
                        "structured": len(json.dumps(result.structured_content).encode()),
                        "result": len(json.dumps(whole).encode()),
                        "ms": statistics.median(times) * 1000,
                    }
                )

    anyio.run(run)
    runtime.close()
    return results


if __name__ == "__main__":
    main()
