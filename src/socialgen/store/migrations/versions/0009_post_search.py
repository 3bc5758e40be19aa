"""full-text search over posts' text (`posts list --search`, the listings' `search`)

SQLite: an FTS5 table, post_search, kept in step with post.content by triggers. Its
rowid comes from post_search_key (an INTEGER PRIMARY KEY per post id), not from the
post table's own rowid: a table keyed by a string has rowids that VACUUM may renumber,
which would point the index at other posts. The FTS5 table holds its own copy of the
text (so a rebuild never needs the post table's rowids either). post_search_key also
keeps a copy of what the listings filter and sort by (workspace, status, timeline
time), in step by triggers too: a search that keeps 100,000 posts counts and pages
them in these small rows instead of reading every post's row (1.8 s against 0.1 s:
bench/posts_search.py).

PostgreSQL: a stored generated column, post_search_vector = to_tsvector('simple',
content), with a GIN index on it; built in, no extension (pg_trgm may not be allowed
on a managed server). Stored, not an expression index: a search that keeps thousands
of posts would otherwise parse every one of their texts again to check and order them
(over a second for 5,000 posts: bench/posts_search.py). 'simple' neither stems nor
drops stop words, as FTS5's unicode61 tokenizer, so both stores find the same posts.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-07
"""

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

_SQLITE_UP = (
    "CREATE TABLE post_search_key ("
    " id INTEGER PRIMARY KEY, post_id VARCHAR(64) NOT NULL UNIQUE,"
    " workspace_id VARCHAR(64) NOT NULL, status VARCHAR(16) NOT NULL,"
    " timeline_at DATETIME NOT NULL)",
    # remove_diacritics 0: PostgreSQL's 'simple' keeps accents too (the same answers).
    "CREATE VIRTUAL TABLE post_search USING fts5("
    " content, tokenize = 'unicode61 remove_diacritics 0')",
    "INSERT INTO post_search_key (post_id, workspace_id, status, timeline_at)"
    " SELECT id, workspace_id, status, timeline_at FROM post ORDER BY rowid",
    "INSERT INTO post_search (rowid, content)"
    " SELECT k.id, p.content FROM post_search_key AS k JOIN post AS p ON p.id = k.post_id",
    "CREATE TRIGGER post_search_insert AFTER INSERT ON post BEGIN"
    " INSERT INTO post_search_key (post_id, workspace_id, status, timeline_at)"
    " VALUES (new.id, new.workspace_id, new.status, new.timeline_at);"
    " INSERT INTO post_search (rowid, content) VALUES (last_insert_rowid(), new.content);"
    " END",
    "CREATE TRIGGER post_search_update AFTER UPDATE OF content ON post BEGIN"
    " UPDATE post_search SET content = new.content"
    " WHERE rowid = (SELECT id FROM post_search_key WHERE post_id = new.id);"
    " END",
    "CREATE TRIGGER post_search_place AFTER UPDATE OF workspace_id, status, timeline_at"
    " ON post BEGIN"
    " UPDATE post_search_key SET workspace_id = new.workspace_id, status = new.status,"
    " timeline_at = new.timeline_at WHERE post_id = new.id;"
    " END",
    "CREATE TRIGGER post_search_delete AFTER DELETE ON post BEGIN"
    " DELETE FROM post_search"
    " WHERE rowid = (SELECT id FROM post_search_key WHERE post_id = old.id);"
    " DELETE FROM post_search_key WHERE post_id = old.id;"
    " END",
)
_SQLITE_DOWN = (
    "DROP TRIGGER post_search_delete",
    "DROP TRIGGER post_search_place",
    "DROP TRIGGER post_search_update",
    "DROP TRIGGER post_search_insert",
    "DROP TABLE post_search",
    "DROP TABLE post_search_key",
)
_POSTGRES_UP = (
    "ALTER TABLE post ADD COLUMN post_search_vector tsvector"
    " GENERATED ALWAYS AS (to_tsvector('simple'::regconfig, content)) STORED",
    "CREATE INDEX ix_post_search ON post USING gin (post_search_vector)",
)
_POSTGRES_DOWN = ("DROP INDEX ix_post_search", "ALTER TABLE post DROP COLUMN post_search_vector")


def upgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    for statement in _SQLITE_UP if sqlite else _POSTGRES_UP:
        op.execute(statement)


def downgrade() -> None:
    sqlite = op.get_bind().dialect.name == "sqlite"
    for statement in _SQLITE_DOWN if sqlite else _POSTGRES_DOWN:
        op.execute(statement)
