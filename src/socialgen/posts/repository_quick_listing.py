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
from socialgen.posts.post_filter import PostFilter
from socialgen.posts.views import PostRow
from socialgen.store.search import SEARCH_KEYS, SEARCH_TABLE

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
# As repository_search.SEARCHED and key_conditions: the full-text index read once.
_SEARCHED = f"{SEARCH_KEYS} AS k JOIN {SEARCH_TABLE} ON {SEARCH_TABLE}.rowid = k.id"
_MATCHES = f"{SEARCH_TABLE} MATCH ?"
_ORDER = "ORDER BY {0}.timeline_at DESC, {0}.{1} DESC"


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


def _kept(workspace_id: str, where: PostFilter, alias: str = "p") -> tuple[list[str], list[Any]]:
    """As repository_search.kept_by: the workspace, time range and statuses of `where`,
    on the post table (alias p) or the search keys (alias k)."""
    conditions, params = [f"{alias}.workspace_id = ?"], [workspace_id]
    if where.since is not None:
        conditions.append(f"{alias}.timeline_at >= ?")
        params.append(_stored(where.since))
    if where.until is not None:
        conditions.append(f"{alias}.timeline_at <= ?")
        params.append(_stored(where.until))
    if where.statuses:
        conditions.append(f"{alias}.status IN ({', '.join('?' for _ in where.statuses)})")
        params += where.statuses
    return conditions, params


def _after(alias: str, id_column: str, after: Position | None) -> tuple[list[str], list[Any]]:
    """As repository_search.after_position: `<=` gives the index a range, the OR splits
    ties by id."""
    if after is None:
        return [], []
    moment = _stored(after.timeline_at)
    return [
        f"{alias}.timeline_at <= ?",
        f"({alias}.timeline_at < ? OR {alias}.{id_column} < ?)",
    ], [moment, moment, after.post_id]


def _keys(
    workspace_id: str, where: PostFilter, after: Position | None = None
) -> tuple[str, list[Any]]:
    """As repository_search.key_conditions: the search keys of the posts kept."""
    conditions, params = _kept(workspace_id, where, "k")
    more, more_params = _after("k", "post_id", after)
    return " AND ".join([_MATCHES, *conditions, *more]), [
        where.fts5_query(),
        *params,
        *more_params,
    ]


def window_rows(connection: sqlite3.Connection, workspace_id: str, where: PostFilter) -> list[Any]:
    """As repository_listing.window_rows: every post `where` keeps, PostRow-shaped,
    latest timeline time first."""
    if where.words:
        keys, params = _keys(workspace_id, where)
        kept = f"p.id IN (SELECT k.post_id FROM {_SEARCHED} WHERE {keys})"
    else:
        conditions, params = _kept(workspace_id, where)
        kept = " AND ".join(conditions)
    statement = f"{_SELECT} WHERE {kept} ORDER BY p.timeline_at DESC"
    return connection.execute(statement, params).fetchall()


def window_count_and_bounds(
    connection: sqlite3.Connection, workspace_id: str, where: PostFilter
) -> tuple[int, str | None, str | None]:
    """How many posts `where` keeps, and their earliest and latest timeline times as
    stored (a search: counted in the search keys alone)."""
    if where.words:
        kept, params = _keys(workspace_id, where)
        table = _SEARCHED
        at = "k.timeline_at"
    else:
        conditions, params = _kept(workspace_id, where)
        kept, table, at = " AND ".join(conditions), "post AS p", "p.timeline_at"
    total, earliest, latest = connection.execute(
        f"SELECT count(*), min({at}), max({at}) FROM {table} WHERE {kept}", params
    ).fetchone()
    return total, earliest, latest


def window_page_rows(
    connection: sqlite3.Connection,
    workspace_id: str,
    where: PostFilter,
    *,
    after: Position | None,
    at_most: int | None,
) -> list[Any]:
    """As repository_listing.window_page_rows: the posts `where` keeps past `after`,
    latest first and ties by id, at most `at_most` of them."""
    limit = "" if at_most is None else " LIMIT ?"
    extra = [] if at_most is None else [at_most]
    if where.words:  # the page chosen in the search keys, then its posts read
        keys, params = _keys(workspace_id, where, after)
        page = f"SELECT k.post_id FROM {_SEARCHED} WHERE {keys} {_ORDER.format('k', 'post_id')}"
        statement = f"{_SELECT} WHERE p.id IN ({page}{limit}) {_ORDER.format('p', 'id')}"
        return connection.execute(statement, [*params, *extra]).fetchall()
    conditions, params = _kept(workspace_id, where)
    more, more_params = _after("p", "id", after)
    kept = " AND ".join([*conditions, *more])
    statement = f"{_SELECT} WHERE {kept} {_ORDER.format('p', 'id')}{limit}"
    return connection.execute(statement, [*params, *more_params, *extra]).fetchall()
