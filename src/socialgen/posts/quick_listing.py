"""`posts recent`, `posts timeline` and `posts list` on a SQLite store with the standard library
alone: the CLI's quick read path.

Importing SQLAlchemy and SQLModel costs a command about 200 ms, five times what
Typer itself costs; a listing is one indexed query. So when the store is a SQLite
file already at the head revision with a default workspace, the CLI reads it here
with `sqlite3`, and otherwise (PostgreSQL, a first run, a store to migrate) returns
None and the caller goes the usual way (open_store, posts.listing), which migrates
and creates the defaults. Both paths give the same answer, the same errors and the
same order: tests/test_posts_quick_listing.py compares them on every case. The SQL
is posts.repository_quick_listing's.

Read only: a listing never writes, so the quota reconciliation that open_store runs
waits for the next command that opens the store for real.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from socialgen.kit.clock import utcnow
from socialgen.kit.limits import POST_LIST_LIMIT, POST_WINDOW_DAYS
from socialgen.kit.short_ids import shortest_unique
from socialgen.posts.cursor import Position, decode_cursor, encode_cursor
from socialgen.posts.post_filter import TIMELINE_STATUSES, PostFilter, date_range, in_window
from socialgen.posts.repository_quick_listing import (
    begin_snapshot,
    clashing_post_ids,
    default_workspace_id,
    open_store_file,
    store_revision,
    window_count_and_bounds,
    window_page_rows,
    window_rows,
    workspace_exists,
    workspace_ids_named,
)
from socialgen.posts.views import PostListJson, PostRow, post_views, stored_moment
from socialgen.store.revision import HEAD_REVISION

if TYPE_CHECKING:
    import sqlite3


def quick_listing(
    kind: str,
    workspace_ref: str | None,
    *,
    limit: int | None,
    cursor: str | None,
    database_url: str,
    now: datetime | None = None,
    where: PostFilter | None = None,
) -> PostListJson | None:
    """Recent posts (kind "recent"), the timeline ("timeline") or every post ("all"),
    as posts.listing's recent_posts, posts_timeline and list_posts give them with
    `where`; None when this path cannot answer."""
    connection = open_store_file(database_url)
    if connection is None:
        return None
    try:
        begin_snapshot(connection)  # one snapshot for the count and the page
        if store_revision(connection) != HEAD_REVISION:
            return None
        workspace_id = _workspace_id(connection, workspace_ref)
        if workspace_id is None:
            return None
        now = now or utcnow()
        kept = _kept(kind, where or PostFilter(), now)
        return _listing(connection, workspace_id, kept, limit, cursor, now)
    finally:
        connection.close()


def _workspace_id(connection: sqlite3.Connection, ref: str | None) -> str | None:
    """As workspaces.service.resolve_workspace for a whole id or the one workspace of
    an exact name; the default when `ref` is None. None otherwise (no default yet, a
    name in another case, an id prefix, a name twice, none at all): the full path
    resolves those and words their errors."""
    if ref is None or not ref.strip():
        return default_workspace_id(connection)
    ref = ref.strip()
    if workspace_exists(connection, ref):
        return ref
    named = workspace_ids_named(connection, ref)
    return named[0] if len(named) == 1 else None


def quick_short_ids(
    workspace_ref: str | None, ids: list[str], *, database_url: str
) -> dict[str, str] | None:
    """The posts table's short ids (short_ids.shortest_unique within the workspace),
    read as quick_listing reads; None when the full path must answer."""
    connection = open_store_file(database_url)
    if connection is None:
        return None
    try:
        workspace_id = _workspace_id(connection, workspace_ref)
        if workspace_id is None:
            return None
        return shortest_unique(ids, clashing_post_ids(connection, workspace_id, ids))
    finally:
        connection.close()


def _kept(kind: str, where: PostFilter, now: datetime) -> PostFilter:
    """The filter as posts.listing applies it for each kind of listing."""
    if kind == "all":
        return where
    windowed = in_window(where, now, POST_WINDOW_DAYS)
    return windowed if kind == "recent" else windowed.keeps_only(TIMELINE_STATUSES)


def _listing(
    connection: sqlite3.Connection,
    workspace_id: str,
    where: PostFilter,
    limit: int | None,
    cursor: str | None,
    now: datetime,
) -> PostListJson:
    if limit is None and cursor is None:
        rows = window_rows(connection, workspace_id, where)
        earliest, latest = (rows[-1][-1], rows[0][-1]) if rows else (None, None)
        return {
            "posts": post_views(rows),
            "total": len(rows),
            "dateRange": date_range(where, now, earliest, latest),
        }
    if limit is not None:
        POST_LIST_LIMIT.check(limit)
    total, earliest, latest = window_count_and_bounds(connection, workspace_id, where)
    rows = window_page_rows(
        connection,
        workspace_id,
        where,
        after=decode_cursor(cursor) if cursor is not None else None,
        at_most=None if limit is None else limit + 1,  # one more: is there a next page?
    )
    more = limit is not None and len(rows) > limit
    rows = rows[:limit] if limit is not None else rows
    next_cursor = None
    if more and rows:
        last = PostRow._make(rows[-1])
        next_cursor = encode_cursor(Position(stored_moment(last.timeline_at), last.id))
    return {
        "posts": post_views(rows),
        "total": total,
        "dateRange": date_range(where, now, earliest, latest),
        "nextCursor": next_cursor,
    }
