#!/usr/bin/env python3
"""Hostile request bodies against a real `socialgen serve` (issue 19).

For every endpoint that takes a body (limits.BODY_LIMITS) and for the security
review's own requests, prints: the status and time until the 4xx, how much of the
body went out before it, the slowest small request (GET /api/v1/carousel/templates,
on another connection, asked again and again meanwhile), and how much the server's
resident memory grew (its peak, from /proc; Linux only).

Per endpoint, three bodies, all generated as they are sent:

* no key: 20 MB of JSON, chunked (no Content-Length): the key is checked first;
* with a key, chunked: the cap plus 1 MB, refused while it streams in;
* with a key, a Content-Length of 100 MB: refused on the headers.

    .venv/bin/python bench/hostile_bodies.py
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.serving import free_port, start_server, stop_server  # noqa: E402
from tests.hostile_support import (  # noqa: E402
    FORM_TYPE,
    JSON_TYPE,
    MB,
    Figures,
    Hostile,
    issue_cases,
    json_array,
    json_under_field,
    measure,
    repeat,
)


def endpoint_cases(workspace_id: str, key: str) -> list[Hostile]:
    from socialgen.limits import BODY_LIMITS

    ids = {"workspaceId": workspace_id, "postId": "p1", "styleId": "s1"}
    cases: list[Hostile] = []
    for (method, template), limit in BODY_LIMITS.items():
        path = template.format(**ids)
        short = f"{method} {template.removeprefix('/api/v1/')}"
        no_key, _ = json_array(20 * MB + 1)
        cases.append(Hostile(f"{short}: 20 MB, no key", method, path, JSON_TYPE, no_key, None))
        over, _ = json_under_field("unknownField", limit.json_bytes + MB)
        cases.append(
            Hostile(
                f"{short}: JSON cap + 1 MB, chunked",
                method,
                path,
                {**JSON_TYPE, "x-api-key": key},
                over,
                None,
            )
        )
        if limit.form_bytes is not None:
            cases.append(
                Hostile(
                    f"{short}: form cap + 1 MB, chunked",
                    method,
                    path,
                    {**FORM_TYPE, "x-api-key": key},
                    repeat(b"\x00" * MB, limit.form_bytes + MB),
                    None,
                )
            )
        cases.append(
            Hostile(
                f"{short}: Content-Length 100 MB",
                method,
                path,
                {**JSON_TYPE, "x-api-key": key},
                repeat(b"x" * MB, 100 * MB),
                100 * MB,
            )
        )
    return cases


def row(figures: Figures) -> str:
    return (
        f"{figures.name[:78]:78} {figures.status:4} {figures.seconds:6.2f} s "
        f"{figures.sent_mb:7.1f} MB {figures.small_max_s * 1000:7.1f} ms "
        f"({figures.small_count:3}) {figures.rss_growth_mb:7.1f} MB"
    )


def main() -> None:
    if not sys.platform.startswith("linux"):
        raise SystemExit("Linux only: the server's memory is read from /proc")
    home = Path(tempfile.mkdtemp(prefix="hostile-bench-")) / "home"
    os.environ["SOCIALGEN_HOME"] = str(home)
    os.environ.pop("SOCIALGEN_DATABASE_URL", None)
    os.environ["SOCIALGEN_SCHEDULER"] = "0"
    from socialgen.auth.service import create_api_key
    from socialgen.startup import open_store
    from socialgen.store.engine import transaction
    from socialgen.workspaces.service import default_workspace

    with transaction(open_store()) as session:
        workspace = default_workspace(session)
        assert workspace is not None
        workspace_id = workspace.id
        key = create_api_key(session, name="bench", workspace_id=workspace_id)[1]
    port = free_port()
    server = start_server(dict(os.environ), port, home.parent / "serve.log")
    try:
        header = (
            f"{'request':78} {'code':4} {'to 4xx':>8} {'sent':>10} "
            f"{'small max':>10} {'(n)':5} {'RSS +':>10}"
        )
        print(header)
        print("-" * len(header))
        print("# the security review's requests")
        for case in issue_cases(workspace_id, key):
            print(row(measure(port, server.pid, case.hostile)), flush=True)
        print("# every endpoint with a body")
        for hostile in endpoint_cases(workspace_id, key):
            print(row(measure(port, server.pid, hostile)), flush=True)
    finally:
        print(f"server: {stop_server(server)}")


if __name__ == "__main__":
    main()
