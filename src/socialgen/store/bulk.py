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
from collections.abc import Iterator, Sequence
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
    dialect = connection.dialect.name
    if dialect not in ("postgresql", "sqlite"):
        connection.execute(sa.insert(table), list(rows))
        return
    names = list(rows[0])
    # Column by column: only timestamp and JSON columns are converted, each with one
    # comprehension, where a call and type checks per value took a fifth of the CPU
    # time of a 100,000-row import. zip() then makes the rows in C.
    times: dict[datetime, Any] = {}  # a row's moments repeat (created, updated, ...)
    columns = [
        _stored(table.c[name].type, [row[name] for row in rows], dialect, times) for name in names
    ]
    if dialect == "postgresql":
        _copy(connection, table, names, zip(*columns, strict=True))
    else:
        _sqlite_executemany(connection, table, names, zip(*columns, strict=True), len(rows))


def _stored(
    kind: sa.types.TypeEngine[Any], values: list[Any], dialect: str, times: dict[datetime, Any]
) -> list[Any]:
    """A column's values as the backend stores them, since neither COPY nor the
    driver's executemany goes through SQLAlchemy's bind processing: JSON as text,
    timestamps as naive UTC (the UTCDateTime convention), on SQLite as the text
    SQLAlchemy's SQLite dialect writes ("2026-01-02 08:00:00.000000"), so that rows
    written here and through the ORM compare and sort alike (SQLite compares them as
    text). `times` keeps the timestamps converted so far."""
    if isinstance(kind, sa.JSON):
        return [_json_text(value) for value in values]
    if isinstance(kind, sa.types.TypeDecorator):
        kind = kind.impl_instance
    if not isinstance(kind, sa.DateTime):
        return values
    convert = _sqlite_time if dialect == "sqlite" else _naive_utc
    stored: list[Any] = []
    for value in values:
        if value is None:
            stored.append(None)
            continue
        done = times.get(value)
        if done is None:
            done = times[value] = convert(value)
        stored.append(done)
    return stored


def _json_text(value: Any) -> str | None:
    if value is None:
        return None
    if type(value) is dict and not value:  # most metadata: json.dumps({})
        return "{}"
    return json.dumps(value)


def _naive_utc(value: Any) -> Any:
    if not isinstance(value, datetime) or value.tzinfo is None:
        return value
    if value.tzinfo is not UTC:
        value = value.astimezone(UTC)
    return value.replace(tzinfo=None)


def _sqlite_time(value: Any) -> Any:
    if not isinstance(value, datetime):
        return value
    if value.tzinfo is not None and value.tzinfo is not UTC:
        value = value.astimezone(UTC)
    # Naive or UTC: the first 26 characters leave out any "+00:00" (years have 4 digits).
    return value.isoformat(sep=" ", timespec="microseconds")[:26]


def _copy(
    connection: Connection, table: sa.Table, names: list[str], rows: Iterator[tuple[Any, ...]]
) -> None:
    quoted = ", ".join(f'"{name}"' for name in names)
    driver = connection.connection.driver_connection
    assert driver is not None
    with (
        driver.cursor() as cursor,
        cursor.copy(f'COPY "{table.name}" ({quoted}) FROM STDIN') as copy,
    ):
        for row in rows:
            copy.write_row(row)


# Random ids (uuid4) spread a bulk load's inserts over every page of each index; with
# SQLite's default 2 MB page cache the pages go in and out of it all along. A 32 MB
# cache took a sixth off the CPU time of 100,000 published posts with their snapshots.
SQLITE_BULK_CACHE_KIB = 32 * 1024
SQLITE_BULK_CACHE_FROM_ROWS = 1000


def _sqlite_executemany(
    connection: Connection,
    table: sa.Table,
    names: list[str],
    rows: Iterator[tuple[Any, ...]],
    count: int,
) -> None:
    quoted = ", ".join(f'"{name}"' for name in names)
    marks = ", ".join("?" for _ in names)
    driver = connection.connection.driver_connection
    assert driver is not None
    cursor = driver.cursor()
    try:
        if count >= SQLITE_BULK_CACHE_FROM_ROWS:
            _widen_cache(cursor)
        cursor.executemany(f'INSERT INTO "{table.name}" ({quoted}) VALUES ({marks})', rows)
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
