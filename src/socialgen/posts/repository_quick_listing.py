"""The SQL of the CLI's quick read path (posts.quick_listing), on a SQLite store with
the standard library's sqlite3 alone: importing SQLAlchemy would cost the command more
than the query. The same rows, in the same order, as posts.repository_listing's
queries. Reads only; every function takes the caller's connection."""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from socialgen.kit.short_ids import chunks, clashing_ids_query
from socialgen.posts.cursor import Position
from socialgen.posts.views import PostRow

SQLITE_PREFIX = "sqlite:///"
BUSY_TIMEOUT_SECONDS = 30  # as store.engine: wait for a writer, never fail on a lock
# PostRow's fields in its order, as repository_listing selects them.
_COLUMNS = ", ".join(
    "c.title" if name == "conversation_title" else f"p.{name}" for name in PostRow._fields
)
_SELECT = (
    f"SELECT {_COLUMNS} FROM post AS p "
    "LEFT OUTER JOIN conversation AS c ON c.id = p.conversation_id "
)
_IN_WINDOW = "p.workspace_id = ? AND p.timeline_at >= ?"
_TIMELINE_STATUSES = "p.status IN ('scheduled', 'published')"


def open_store_file(database_url: str) -> sqlite3.Connection | None:
    """A connection to the store's SQLite file (autocommit: the caller begins), or None
    (not SQLite, no file yet)."""
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


def begin_snapshot(connection: sqlite3.Connection) -> None:
    """Begin a read transaction: the reads that follow see one snapshot."""
    connection.execute("BEGIN")


def store_revision(connection: sqlite3.Connection) -> str | None:
    """The store's migration revision, None when it was never migrated."""
    try:
        row = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    except sqlite3.Error:  # no such table: a store never migrated
        return None
    return str(row[0]) if row else None


def default_workspace_id(connection: sqlite3.Connection) -> str | None:
    row = connection.execute("SELECT id FROM workspace WHERE is_default LIMIT 1").fetchone()
    return str(row[0]) if row else None


def workspace_exists(connection: sqlite3.Connection, workspace_id: str) -> bool:
    return bool(
        connection.execute("SELECT 1 FROM workspace WHERE id = ?", (workspace_id,)).fetchone()
    )


def workspace_ids_named(connection: sqlite3.Connection, name: str) -> list[str]:
    """The ids of the workspaces with exactly this name: two at most (one is enough to
    know it is not unique)."""
    named = connection.execute("SELECT id FROM workspace WHERE name = ? LIMIT 2", (name,))
    return [str(row[0]) for row in named.fetchall()]


def clashing_post_ids(
    connection: sqlite3.Connection, workspace_id: str, ids: list[str]
) -> list[str]:
    """The workspace's post ids that share their first characters with one of `ids`
    (short_ids.clashing_ids_query, a chunk of ids a query)."""
    clashing: list[str] = []
    for some in chunks(ids):
        sql, params = clashing_ids_query("post", "workspace_id", some)
        rows = connection.execute(sql, {**params, "scope": workspace_id})
        clashing += [str(row[0]) for row in rows]
    return clashing


def _stored(moment: datetime) -> str:
    """A timestamp as SQLAlchemy stores it on SQLite (naive UTC, microseconds), so
    that text comparison orders it right."""
    naive = moment.astimezone(UTC).replace(tzinfo=None)
    return naive.strftime("%Y-%m-%d %H:%M:%S.%f")


def _window(workspace_id: str, start: datetime, timeline_only: bool) -> tuple[str, list[Any]]:
    where = _IN_WINDOW
    if timeline_only:
        where += f" AND {_TIMELINE_STATUSES}"
    return where, [workspace_id, _stored(start)]


def window_rows(
    connection: sqlite3.Connection, workspace_id: str, start: datetime, *, timeline_only: bool
) -> list[Any]:
    """As repository_listing.window_rows: every post of the window, PostRow-shaped,
    latest timeline time first."""
    where, params = _window(workspace_id, start, timeline_only)
    statement = f"{_SELECT} WHERE {where} ORDER BY p.timeline_at DESC"
    return connection.execute(statement, params).fetchall()


def window_count_and_latest(
    connection: sqlite3.Connection, workspace_id: str, start: datetime, *, timeline_only: bool
) -> tuple[int, str | None]:
    """How many posts the window has, and its latest timeline time as stored."""
    where, params = _window(workspace_id, start, timeline_only)
    total, latest = connection.execute(
        f"SELECT count(*), max(p.timeline_at) FROM post AS p WHERE {where}", params
    ).fetchone()
    return total, latest


def window_page_rows(
    connection: sqlite3.Connection,
    workspace_id: str,
    start: datetime,
    *,
    timeline_only: bool,
    after: Position | None,
    at_most: int | None,
) -> list[Any]:
    """As repository_listing.window_page_rows: the window's posts past `after`, latest
    first and ties by id, at most `at_most` of them."""
    where, params = _window(workspace_id, start, timeline_only)
    if after is not None:
        # As repository_listing: `<=` gives the index a range, the OR splits ties by id.
        where += " AND p.timeline_at <= ? AND (p.timeline_at < ? OR p.id < ?)"
        params += [_stored(after.timeline_at), _stored(after.timeline_at), after.post_id]
    statement = f"{_SELECT} WHERE {where} ORDER BY p.timeline_at DESC, p.id DESC"
    if at_most is not None:
        statement += " LIMIT ?"
        params.append(at_most)
    return connection.execute(statement, params).fetchall()
