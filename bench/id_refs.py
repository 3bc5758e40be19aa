#!/usr/bin/env python3
"""What finding a post by an id prefix and shortening a table's ids cost on a large store.

1. Builds a store (SQLite in a temporary folder, or `--database-url`, e.g. a
   PostgreSQL database) holding --posts posts (default 100,000) in the default
   workspace, plus as many in a second workspace, written with SQLAlchemy Core
   executemany; two of the default workspace's posts share their first 8 characters.
2. Times, over --calls calls each (p50/p95/max; target p50 < 50 ms at 100,000 posts):
   - store.refs.find_id with a unique 6-character prefix (the LIKE 'prefix%' query),
   - find_id with the shared prefix (refused, listing the matches),
   - find_id with a whole id (the primary key),
   - store.refs.short_ids for a table's 50 ids (one aggregate query over the workspace),
   - on SQLite, posts.quick_listing.quick_short_ids (the same query through sqlite3).
3. On SQLite, prints the EXPLAIN QUERY PLAN of the prefix and short-id queries.

Exits 1 when a target is missed.

Run from the repository root:

    .venv/bin/python bench/id_refs.py
    .venv/bin/python bench/id_refs.py --database-url postgresql://postgres@127.0.0.1:5432/test
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Callable

import sqlalchemy as sa

from harness import Samples, Table, machine_line, ms

TARGET_SECONDS = 0.050
TWIN_HEAD = "a7c0e1f2"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--posts", type=int, default=100_000)
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--database-url", default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sg-id-refs-") as folder:
        os.environ["SOCIALGEN_HOME"] = folder
        if not args.database_url:
            return run(args)
        # PostgreSQL: a schema of its own, dropped at the end (as tests/conftest.py does).
        from socialgen.config import normalise_database_url

        base = normalise_database_url(args.database_url)
        schema = f"sg_bench_id_refs_{os.getpid()}"
        admin = sa.create_engine(base)
        with admin.begin() as connection:
            connection.execute(sa.text(f"CREATE SCHEMA {schema}"))
        separator = "&" if "?" in base else "?"
        os.environ["SOCIALGEN_DATABASE_URL"] = f"{base}{separator}options=-csearch_path%3D{schema}"
        try:
            return run(args)
        finally:
            with admin.begin() as connection:
                connection.execute(sa.text(f"DROP SCHEMA {schema} CASCADE"))
            admin.dispose()


def run(args: argparse.Namespace) -> int:
    from socialgen.app.runtime import Runtime
    from socialgen.cli.refs import kind
    from socialgen.kit.errors import BadRequest
    from socialgen.store.engine import read_session, transaction
    from socialgen.store.refs import find_id, short_ids
    from socialgen.workspaces.service import create_workspace, default_workspace

    runtime = Runtime()
    engine = runtime.open_store()
    with transaction(engine) as session:
        main_ws = default_workspace(session).id  # type: ignore[union-attr]
        other_ws = create_workspace(session, f"bench-other-{uuid.uuid4().hex[:6]}").id
    print(machine_line())
    print(f"store: {engine.dialect.name}, {args.posts:,} posts in each of 2 workspaces")
    ids = fill(engine, main_ws, args.posts, twins=True)
    fill(engine, other_ws, args.posts, twins=False)
    if engine.dialect.name == "postgresql":  # as autovacuum would soon after a bulk load
        with engine.begin() as connection:
            connection.execute(sa.text("ANALYZE post"))
    twin = f"{TWIN_HEAD}{'0' * 24}"
    lone = ids[len(ids) // 2]
    shown = ids[-50:]  # a table's worth
    post = kind("post")

    def prefix() -> None:
        with read_session(engine) as session:
            assert find_id(session, post, main_ws, lone[:6].upper()) == lone

    def ambiguous() -> None:
        with read_session(engine) as session:
            try:
                find_id(session, post, main_ws, TWIN_HEAD)
            except BadRequest:
                return
        raise AssertionError("the shared prefix was not refused")

    def whole() -> None:
        with read_session(engine) as session:
            assert find_id(session, post, main_ws, twin) == twin

    def shorten() -> None:
        with read_session(engine) as session:
            short = short_ids(session, post, main_ws, [*shown, twin])
        assert short[twin] == twin[:9], short[twin]

    cases: list[tuple[str, Callable[[], None]]] = [
        ("find_id, 6-character prefix", prefix),
        ("find_id, prefix of 2 posts (refused)", ambiguous),
        ("find_id, whole id", whole),
        ("short_ids, 50 ids", shorten),
    ]
    if engine.dialect.name == "sqlite":
        from socialgen.posts.quick_listing import quick_short_ids

        database_url = runtime.store_settings.database_url

        def quick() -> None:
            short = quick_short_ids(None, [*shown, twin], database_url=database_url)
            assert short is not None and short[twin] == twin[:9]

        cases.append(("quick_short_ids (sqlite3), 50 ids", quick))
        explain(engine, main_ws)
    table = Table("case", "p50", "p95", "max", "target p50")
    missed = False
    for name, case in cases:
        samples = Samples([timed(case) for _ in range(args.calls)])
        ok = samples.median < TARGET_SECONDS
        missed = missed or not ok
        table.add(
            name,
            ms(samples.median),
            ms(samples.p95),
            ms(samples.max),
            f"< {ms(TARGET_SECONDS, 0)} {'ok' if ok else 'MISSED'}",
        )
    table.print()
    return 1 if missed else 0


def fill(engine: sa.Engine, workspace_id: str, count: int, *, twins: bool) -> list[str]:
    """`count` drafts; with `twins`, the first two share their first 8 characters."""
    from socialgen.kit.clock import utcnow
    from socialgen.store.tables import Post

    now = utcnow()
    ids = [uuid.uuid4().hex for _ in range(count)]
    if twins:
        ids[:2] = [f"{TWIN_HEAD}{'0' * 24}", f"{TWIN_HEAD}{'1' * 24}"]
    rows = [
        {
            "id": post_id,
            "workspace_id": workspace_id,
            "content": "shipping weekly beats shipping perfect",
            "post_type": "text",
            "status": "draft",
            "created_at": now,
            "updated_at": now,
            "timeline_at": now,
            "likes": 0,
            "comments": 0,
        }
        for post_id in ids
    ]
    with engine.begin() as connection:
        for start in range(0, len(rows), 10_000):
            connection.execute(sa.insert(Post.__table__), rows[start : start + 10_000])  # type: ignore[attr-defined]
    return ids


def explain(engine: sa.Engine, workspace_id: str) -> None:
    from socialgen.kit.short_ids import clashing_ids_query

    sql, params = clashing_ids_query("post", "workspace_id", [f"{TWIN_HEAD}{'0' * 24}"])
    queries = {
        "prefix": (
            "SELECT id FROM post WHERE id LIKE :p ESCAPE '\\' AND id >= :low AND id < :high"
            " AND workspace_id || '' = :scope",
            {"p": "a7c0e1%", "low": "a7c0e1", "high": "a7c0e2", "scope": workspace_id},
        ),
        "short ids": (sql, {**params, "scope": workspace_id}),
    }
    with engine.connect() as connection:
        for name, (sql, params) in queries.items():
            plan = connection.execute(sa.text(f"EXPLAIN QUERY PLAN {sql}"), params).fetchall()
            print(f"plan, {name}: " + "; ".join(str(row[-1]) for row in plan))


def timed(case: Callable[[], None]) -> float:
    started = time.perf_counter()
    case()
    return time.perf_counter() - started


if __name__ == "__main__":
    sys.exit(main())
