"""The names of the full-text search objects over posts (migration 0009), which live
outside the SQLModel tables: an FTS5 table and its triggers on SQLite, a generated
column and its GIN index on PostgreSQL. SQLAlchemy cannot declare them, so the check that migrations
make exactly the models (tests/test_store.py) leaves these names out.

The queries that use them are posts.repository_listing's and
posts.repository_quick_listing's."""

from __future__ import annotations

SEARCH_TABLE = "post_search"  # SQLite FTS5; its shadow tables are post_search_*
SEARCH_KEYS = "post_search_key"  # SQLite: the FTS5 rowid of each post id
SEARCH_INDEX = "ix_post_search"  # PostgreSQL: GIN on post_search_vector
# PostgreSQL: post's generated column to_tsvector('simple', content), and the text
# search configuration a query must name to match it.
SEARCH_VECTOR = "post_search_vector"
SEARCH_CONFIG = "simple"


def is_search_object(name: str | None) -> bool:
    """A table, column or index of the search, not of the models."""
    return bool(name) and (name == SEARCH_INDEX or str(name).startswith(SEARCH_TABLE))
