"""Many rows into one table inside the caller's transaction, as fast as the backend
allows: COPY on PostgreSQL, the driver's own executemany on SQLite (the INSERT is
prepared once; values go in as SQLAlchemy would store them, without its per-value
bind processing: some 15% of the CPU time of a 100,000-row import).

Rows are plain dicts keyed by column name, every dict with the same keys; values are
what the column's type takes in Python (aware or naive-UTC datetimes, dicts for
JSON). No ORM objects: nothing is kept in a session, so memory stays flat however
many batches go in.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy import Connection


def table_of(model: Any) -> sa.Table:
    """The table of a SQLModel table class (typed: SQLModel does not declare it)."""
    table = model.__table__
    assert isinstance(table, sa.Table)
    return table


def insert_rows(connection: Connection, table: sa.Table, rows: Sequence[dict[str, Any]]) -> None:
    if not rows:
        return
    if connection.dialect.name == "postgresql":
        _copy(connection, table, rows)
    elif connection.dialect.name == "sqlite":
        _sqlite_executemany(connection, table, rows)
    else:
        connection.execute(sa.insert(table), list(rows))


def _copy(connection: Connection, table: sa.Table, rows: Sequence[dict[str, Any]]) -> None:
    names = list(rows[0])
    quoted = ", ".join(f'"{name}"' for name in names)
    json_columns = {name for name in names if isinstance(table.c[name].type, sa.JSON)}
    driver = connection.connection.driver_connection
    assert driver is not None
    with (
        driver.cursor() as cursor,
        cursor.copy(f'COPY "{table.name}" ({quoted}) FROM STDIN') as copy,
    ):
        for row in rows:
            copy.write_row([_copy_value(row[name], name in json_columns) for name in names])


# Random ids (uuid4) spread a bulk load's inserts over every page of each index; with
# SQLite's default 2 MB page cache the pages go in and out of it all along. A 32 MB
# cache took a sixth off the CPU time of 100,000 published posts with their snapshots.
SQLITE_BULK_CACHE_KIB = 32 * 1024
SQLITE_BULK_CACHE_FROM_ROWS = 1000


def _sqlite_executemany(
    connection: Connection, table: sa.Table, rows: Sequence[dict[str, Any]]
) -> None:
    names = list(rows[0])
    quoted = ", ".join(f'"{name}"' for name in names)
    marks = ", ".join("?" for _ in names)
    json_columns = {name for name in names if isinstance(table.c[name].type, sa.JSON)}
    driver = connection.connection.driver_connection
    assert driver is not None
    cursor = driver.cursor()
    try:
        if len(rows) >= SQLITE_BULK_CACHE_FROM_ROWS:
            _widen_cache(cursor)
        cursor.executemany(
            f'INSERT INTO "{table.name}" ({quoted}) VALUES ({marks})',
            ([_sqlite_value(row[name], name in json_columns) for name in names] for row in rows),
        )
    finally:
        cursor.close()


def _widen_cache(cursor: Any) -> None:
    """At least SQLITE_BULK_CACHE_KIB of page cache on this connection (kept: it is a
    ceiling, not an allocation, and a connection that loaded in bulk may again)."""
    (current,) = cursor.execute("PRAGMA cache_size").fetchone()
    # Negative: KiB; positive: pages (of 4 KiB by default).
    kib = -current if current < 0 else current * 4
    if kib < SQLITE_BULK_CACHE_KIB:
        cursor.execute(f"PRAGMA cache_size=-{SQLITE_BULK_CACHE_KIB}")


def _sqlite_value(value: Any, is_json: bool) -> Any:
    """What SQLAlchemy's SQLite dialect stores: JSON as text, timestamps as naive UTC
    text with microseconds ("2026-01-02 08:00:00.000000"), so that rows written here
    and through the ORM compare and sort alike (SQLite compares them as text)."""
    if is_json:
        return None if value is None else json.dumps(value)
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            value = value.astimezone(UTC).replace(tzinfo=None)
        return value.isoformat(sep=" ", timespec="microseconds")
    return value


def _copy_value(value: Any, is_json: bool) -> Any:
    """What the column would store: JSON as text, timestamps as naive UTC (the
    UTCDateTime convention), since COPY bypasses SQLAlchemy's bind processing."""
    if is_json:
        return None if value is None else json.dumps(value)
    if isinstance(value, datetime) and value.tzinfo is not None:
        return value.astimezone(UTC).replace(tzinfo=None)
    return value
