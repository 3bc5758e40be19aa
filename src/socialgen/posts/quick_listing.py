"""`posts recent` and `posts timeline` on a SQLite store with the standard library
alone: the CLI's quick read path.

Importing SQLAlchemy and SQLModel costs a command about 200 ms, five times what
Typer itself costs; a listing is one indexed query. So when the store is a SQLite
file already at the head revision with a default workspace, the CLI reads it here
with `sqlite3`, and otherwise (PostgreSQL, a first run, a store to migrate) returns
None and the caller goes the usual way (open_store, posts.listing), which migrates
and creates the defaults. Both paths give the same answer, the same errors and the
same order: tests/test_posts_quick_listing.py compares them on every case.

Read only: a listing never writes, so the quota reconciliation that open_store runs
waits for the next command that opens the store for real.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from socialgen.clock import iso, utcnow
from socialgen.limits import POST_LIST_LIMIT, POST_WINDOW_DAYS
from socialgen.posts.cursor import Position, decode_cursor, encode_cursor
from socialgen.posts.views import PostRow, post_views, stored_moment
from socialgen.short_ids import chunks, clashing_ids_query, shortest_unique
from socialgen.store.revision import HEAD_REVISION

if TYPE_CHECKING:
    from socialgen.posts.schemas import PostList

SQLITE_PREFIX = "sqlite:///"
BUSY_TIMEOUT_SECONDS = 30  # as store.engine: wait for a writer, never fail on a lock
# PostRow's fields in its order, as posts.listing selects them.
_COLUMNS = ", ".join(
    "c.title" if name == "conversation_title" else f"p.{name}" for name in PostRow._fields
)
_TIMELINE_STATUSES = "p.status IN ('scheduled', 'published')"


def quick_listing(
    kind: str,
    workspace_ref: str | None,
    *,
    limit: int | None,
    cursor: str | None,
    database_url: str,
    now: datetime | None = None,
) -> PostList | None:
    """recent (kind "recent") or timeline posts, or None when this path cannot answer."""
    connection = _connect(database_url)
    if connection is None:
        return None
    try:
        connection.execute("BEGIN")  # one snapshot for the count and the page
        if _revision(connection) != HEAD_REVISION:
            return None
        workspace_id = _workspace_id(connection, workspace_ref)
        if workspace_id is None:
            return None
        return _window(connection, workspace_id, kind, limit, cursor, now or utcnow())
    finally:
        connection.close()


def _connect(database_url: str) -> sqlite3.Connection | None:
    """A connection to the store's SQLite file, or None (not SQLite, no file yet)."""
    path = _sqlite_file(database_url)
    if path is None:
        return None
    try:
        return sqlite3.connect(path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None)
    except sqlite3.Error:
        return None


def _sqlite_file(url: str) -> str | None:
    if not url.startswith(SQLITE_PREFIX) or "?" in url:
        return None
    path = url.removeprefix(SQLITE_PREFIX)
    if not path or path == ":memory:" or not Path(path).is_file():
        return None
    return path


def _revision(connection: sqlite3.Connection) -> str | None:
    try:
        row = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    except sqlite3.Error:  # no such table: a store never migrated
        return None
    return str(row[0]) if row else None


def _workspace_id(connection: sqlite3.Connection, ref: str | None) -> str | None:
    """As workspaces.service.resolve_workspace for a whole id or the one workspace of
    an exact name; the default when `ref` is None. None otherwise (no default yet, a
    name in another case, an id prefix, a name twice, none at all): the full path
    resolves those and words their errors."""
    if ref is None or not ref.strip():
        row = connection.execute("SELECT id FROM workspace WHERE is_default LIMIT 1").fetchone()
        return str(row[0]) if row else None
    ref = ref.strip()
    if connection.execute("SELECT 1 FROM workspace WHERE id = ?", (ref,)).fetchone():
        return ref
    named = connection.execute("SELECT id FROM workspace WHERE name = ? LIMIT 2", (ref,)).fetchall()
    return str(named[0][0]) if len(named) == 1 else None


def quick_short_ids(
    workspace_ref: str | None, ids: list[str], *, database_url: str
) -> dict[str, str] | None:
    """The posts table's short ids (short_ids.shortest_unique within the workspace),
    read as quick_listing reads; None when the full path must answer."""
    connection = _connect(database_url)
    if connection is None:
        return None
    try:
        workspace_id = _workspace_id(connection, workspace_ref)
        if workspace_id is None:
            return None
        clashing: list[str] = []
        for some in chunks(ids):
            sql, params = clashing_ids_query("post", "workspace_id", some)
            rows = connection.execute(sql, {**params, "scope": workspace_id})
            clashing += [str(row[0]) for row in rows]
        return shortest_unique(ids, clashing)
    finally:
        connection.close()


def _stored(moment: datetime) -> str:
    """A timestamp as SQLAlchemy stores it on SQLite (naive UTC, microseconds), so
    that text comparison orders it right."""
    naive = moment.astimezone(UTC).replace(tzinfo=None)
    return naive.strftime("%Y-%m-%d %H:%M:%S.%f")


def _window(
    connection: sqlite3.Connection,
    workspace_id: str,
    kind: str,
    limit: int | None,
    cursor: str | None,
    now: datetime,
) -> PostList:
    start = now - timedelta(days=POST_WINDOW_DAYS)
    where = "p.workspace_id = ? AND p.timeline_at >= ?"
    params: list[Any] = [workspace_id, _stored(start)]
    if kind != "recent":
        where += f" AND {_TIMELINE_STATUSES}"
    select = (
        f"SELECT {_COLUMNS} FROM post AS p "
        "LEFT OUTER JOIN conversation AS c ON c.id = p.conversation_id "
    )
    if limit is None and cursor is None:
        rows = connection.execute(
            f"{select} WHERE {where} ORDER BY p.timeline_at DESC", params
        ).fetchall()
        latest = stored_moment(rows[0][-1]) if rows else now
        return {
            "posts": post_views(rows),
            "total": len(rows),
            "dateRange": {"from": iso(start) or "", "to": iso(max(now, latest)) or ""},
        }
    if limit is not None:
        POST_LIST_LIMIT.check(limit)
    total, latest_text = connection.execute(
        f"SELECT count(*), max(p.timeline_at) FROM post AS p WHERE {where}", params
    ).fetchone()
    page_where, page_params = where, list(params)
    if cursor is not None:
        after = decode_cursor(cursor)
        # As posts.listing: `<=` gives the index a range, the OR splits ties by id.
        page_where += " AND p.timeline_at <= ? AND (p.timeline_at < ? OR p.id < ?)"
        page_params += [_stored(after.timeline_at), _stored(after.timeline_at), after.post_id]
    statement = f"{select} WHERE {page_where} ORDER BY p.timeline_at DESC, p.id DESC"
    if limit is not None:
        statement += " LIMIT ?"
        page_params.append(limit + 1)
    rows = connection.execute(statement, page_params).fetchall()
    more = limit is not None and len(rows) > limit
    rows = rows[:limit] if limit is not None else rows
    next_cursor = None
    if more and rows:
        last = PostRow._make(rows[-1])
        next_cursor = encode_cursor(Position(stored_moment(last.timeline_at), last.id))
    latest = stored_moment(latest_text) if latest_text else now
    return {
        "posts": post_views(rows),
        "total": total,
        "dateRange": {"from": iso(start) or "", "to": iso(max(now, latest)) or ""},
        "nextCursor": next_cursor,
    }
