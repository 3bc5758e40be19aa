"""The local store: SQLModel tables on SQLite (default) or PostgreSQL.

- `engine.py`: engines and sessions (`new_engine`, `transaction`, `read_session`).
- `stores.py`: the stores a Runtime opened: one engine per database URL, which of them
  are ready, and the Runtime's quota lease (`leases.py`), found by `hold_lease(session)`
  through the engine's execution options.
- `tables/`: the SQLModel tables; `types.py`: the column types they share.
- `migrate.py`, `migrations/`: Alembic migrations, applied on start; the head revision
  is in `revision.py`, importable without SQLAlchemy.
- `bulk.py`: many rows at once (binary COPY on PostgreSQL, the driver's executemany on
  SQLite); `insert_batches` makes the next batch in a helper thread while the database
  writes one.
- `refs.py`: a row found by what a person typed, its whole id, its name or a unique id
  prefix (`find_id`, `short_ids`), for the CLI's refs (`cli/refs.py`).
"""
