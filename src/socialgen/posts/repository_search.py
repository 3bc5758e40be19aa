"""The SQL of search words in the post listings (posts.repository_listing), over the
full-text objects of migration 0009 (store/search.py).

PostgreSQL: post's generated column post_search_vector under a GIN index, matched with
to_tsquery in the 'simple' configuration; the rest of the listing is as without words.

SQLite: the FTS5 table post_search gives the rowids of the matching posts once (the
planner reads it first, joined to the keys by their INTEGER PRIMARY KEY), and
post_search_key, one small row per post with a copy of its workspace, status and
timeline time (kept by triggers), filters, counts and orders them: a word in most
posts keeps 100,000 of them, and reading that many post rows (their text inline)
costs seconds where the keys cost tens of milliseconds (bench/posts_search.py). Only
the page's posts are then read from the post table.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import sqlalchemy as sa
from sqlalchemy import ColumnElement, Integer, String
from sqlmodel import Session

from socialgen.posts.cursor import Position
from socialgen.posts.post_filter import PostFilter
from socialgen.store.search import SEARCH_CONFIG, SEARCH_KEYS, SEARCH_TABLE, SEARCH_VECTOR
from socialgen.store.types import UTCDateTime

KEYS = sa.table(
    SEARCH_KEYS,
    sa.column("id", Integer()),
    sa.column("post_id", String()),
    sa.column("workspace_id", String()),
    sa.column("status", String()),
    sa.column("timeline_at", UTCDateTime()),  # stored as post.timeline_at is
)


SEARCH = sa.table(SEARCH_TABLE, sa.column("rowid", Integer()))
# The keys of the posts whose text matches: the full-text index read once, in its order.
SEARCHED = KEYS.join(SEARCH, SEARCH.c.rowid == KEYS.c.id)


class Placed(NamedTuple):
    """Where a listing finds a post's id and the columns it filters and sorts by."""

    id: Any
    workspace_id: Any
    status: Any
    timeline_at: Any


ON_KEYS = Placed(KEYS.c.post_id, KEYS.c.workspace_id, KEYS.c.status, KEYS.c.timeline_at)


def uses_search_keys(session: Session, where: PostFilter) -> bool:
    """Whether this listing reads through post_search_key: a search on SQLite."""
    return bool(where.words) and session.get_bind().dialect.name == "sqlite"


def kept_by(placed: Placed, workspace_id: str, where: PostFilter) -> list[ColumnElement[bool]]:
    """The workspace, time range and statuses of `where` (not its words)."""
    kept = [placed.workspace_id == workspace_id]
    if where.since is not None:
        kept.append(placed.timeline_at >= where.since)
    if where.until is not None:
        kept.append(placed.timeline_at <= where.until)
    if where.statuses:
        kept.append(placed.status.in_(where.statuses))
    return kept


def after_position(placed: Placed, after: Position | None) -> list[ColumnElement[bool]]:
    """The posts past a cursor's position, in the listings' order."""
    if after is None:
        return []
    # `<=` first: a range on the index (an OR alone makes SQLite sort the window).
    return [
        placed.timeline_at <= after.timeline_at,
        sa.or_(placed.timeline_at < after.timeline_at, placed.id < after.post_id),
    ]


def key_conditions(
    workspace_id: str, where: PostFilter, after: Position | None = None
) -> list[ColumnElement[bool]]:
    """SQLite: the search keys of the posts `where` keeps (past `after`), in SEARCHED."""
    match = sa.text(f"{SEARCH_TABLE} MATCH :words").bindparams(words=where.fts5_query())
    return [
        match,  # type: ignore[list-item]  # a text clause: FTS5's own operator
        *kept_by(ON_KEYS, workspace_id, where),
        *after_position(ON_KEYS, after),
    ]


def matching_ids(
    workspace_id: str,
    where: PostFilter,
    *,
    after: Position | None = None,
    at_most: int | None = None,
) -> sa.Select[Any]:
    """SQLite: the ids of the posts `where` keeps; with `after` or `at_most`, one page
    of them in the listings' order."""
    statement = (
        sa.select(KEYS.c.post_id)
        .select_from(SEARCHED)
        .where(*key_conditions(workspace_id, where, after))
    )
    if after is not None or at_most is not None:
        statement = statement.order_by(KEYS.c.timeline_at.desc(), KEYS.c.post_id.desc())
    if at_most is not None:
        statement = statement.limit(at_most)
    return statement


def vector_matches(where: PostFilter) -> ColumnElement[bool]:
    """PostgreSQL: the posts whose text holds every search word (as a word's start)."""
    config: ColumnElement[Any] = sa.literal_column(f"'{SEARCH_CONFIG}'::regconfig")
    vector: ColumnElement[Any] = sa.literal_column(f"post.{SEARCH_VECTOR}")
    return vector.op("@@")(sa.func.to_tsquery(config, where.tsquery()))
