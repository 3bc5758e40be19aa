#!/usr/bin/env python3
"""Hostile request bodies against a real `socialgen serve` (issue 19).

For every endpoint that takes a body (the cap each route declares) and for the security
review's own requests, prints: the status and time until the 4xx, how much of the
body went out before it, the slowest small request (GET /api/v1/carousel/templates,
on another connection, asked again and again meanwhile), and how much the server's
resident memory grew (its peak, from /proc; Linux only).

Per endpoint, three bodies, all generated as they are sent:

* no key: 20 MB of JSON, chunked (no Content-Length): the key is checked first;
* with a key, chunked: the cap plus 1 MB, refused while it streams in;
* with a key, a Content-Length of 100 MB: refused on the headers.

Prints one row per request (code, seconds to the 4xx, MB sent, slowest small request,
RSS growth). The server, key and home come from the bench harness (bench/harness/).

    .venv/bin/python bench/hostile_bodies.py
"""

from __future__ import annotations

import sys

# isort: off
# The harness first: it puts the repository (and so `tests`) on sys.path.
from harness import bench_env, bench_home, create_key, serve
from tests.hostile_support import (
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

# isort: on


def endpoint_cases(workspace_id: str, key: str) -> list[Hostile]:
    from socialgen.app.runtime import Runtime
    from socialgen.http.request_body import body_limits
    from socialgen.http.server import create_app
    from socialgen.kit.limits import DEFAULT_BODY_LIMIT

    ids = {"workspaceId": workspace_id, "postId": "p1", "styleId": "s1", "accountId": "a1"}
    cases: list[Hostile] = []
    for (method, template), declared in body_limits(create_app(Runtime())).items():
        limit = declared or DEFAULT_BODY_LIMIT
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
    with bench_home("hostile-bench-") as home:
        env = bench_env(home / "home", SOCIALGEN_SCHEDULER="0")
        key, workspace_id = create_key(env)
        with serve(env, home / "serve.log") as server:
            header = (
                f"{'request':78} {'code':4} {'to 4xx':>8} {'sent':>10} "
                f"{'small max':>10} {'(n)':5} {'RSS +':>10}"
            )
            print(header)
            print("-" * len(header))
            print("# the security review's requests")
            for case in issue_cases(workspace_id, key):
                print(row(measure(server.port, server.pid, case.hostile)), flush=True)
            print("# every endpoint with a body")
            for hostile in endpoint_cases(workspace_id, key):
                print(row(measure(server.port, server.pid, hostile)), flush=True)
        print(f"server: {server.stopped}")


if __name__ == "__main__":
    main()
