"""Posts, their versions, and the conversations that produced them.

Writes are `service.py`'s; reads are `listing.py`'s (recent posts and the timeline,
paged by `cursor.py`), and the CLI's SQLAlchemy-free read of a ready SQLite store is
`quick_listing.py`'s. Conversations and their messages go through `conversations.py`.
`rules.py` says what a post's content and status may be, for every way in; `views.py`
turns rows into SPEC.md's shapes (`schemas.py`); `removal.py` deletes a post for good,
with its files.

Every query is in a repository: `repository.py` (a post of the workspace, its versions,
its publications locked, its deletion, and what plans and faces need: a conversation of
the workspace, the post being refined, drafts by id),
`repository_conversations.py` (messages, pages of conversations),
`repository_listing.py` (the listings' window, count and page),
`repository_quick_listing.py` (the same on sqlite3 alone), `repository_imports.py`
(the owners of imported ids, the published keys streamed), `repository_exports.py` (the
export's rows) and `repository_counts.py` (the counts the store holds per post: the
export's, and `posts stats`').

Export: `exports.py` writes posts as iCalendar, CSV, Markdown or JSON (`ics.py` the
iCalendar, each post an `export_item.py` item; `csv_cells.py` keeps a spreadsheet from
running a cell as a formula, and gives the import the cell back). Import: `imports.py`
reads a CSV or JSON file, checked whole before any post is created, and
`import_rows.py` writes its rows in bulk through `store/bulk.py`. Published history
with its counts is read by `history_rows.py`, a backup's media flag, variation and
account by `import_fields.py`, X's archive `tweets.js` by
`x_archive.py` and X's analytics exports by `x_analytics.py`; `import_dedup.py` finds
the duplicates of what the workspace has, and `import_ids.py` the rows that are posts
of the workspace by their id.

The faces are `api.py`, `cli.py` (its output in `tables_cli.py`, export and import in
`transfer_cli.py`) and the MCP tools over posts (`mcp_tools.py`), declared in
`feature.py`.
"""
