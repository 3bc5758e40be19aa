"""Many rows into one table inside the caller's transaction, as fast as the backend
allows: COPY on PostgreSQL (binary: the server parses no text, nine timestamps a
published post), the driver's own executemany on SQLite (the INSERT is
prepared once; values go in as SQLAlchemy would store them, without its per-value
bind processing: some 15% of the CPU time of a 100,000-row import).

Rows are plain dicts keyed by column name, every dict with the same keys; values are
what the column's type takes in Python (aware or naive-UTC datetimes, dicts for
JSON). No ORM objects: nothing is kept in a session, so memory stays flat however
many batches go in.

insert_batches takes batches from a generator and makes the next one (the caller's
dicts, then the backend's values) in a helper thread while the database writes this
one: the import's Python work then runs while the server checks foreign keys and
updates indexes, not after (a third off the wall time of 100,000 published rows on
PostgreSQL, measured on a loaded machine).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy import Connection

Rows = Sequence[dict[str, Any]]
Batch = Sequence[tuple[sa.Table, Rows]]  # tables in the order their rows go in


def table_of(model: Any) -> sa.Table:
    """The table of a SQLModel table class (typed: SQLModel does not declare it)."""
    table = model.__table__
    assert isinstance(table, sa.Table)
    return table


def insert_rows(connection: Connection, table: sa.Table, rows: Rows) -> None:
    if not rows:
        return
    dialect = connection.dialect.name
    if dialect not in _FAST_DIALECTS:
        connection.execute(sa.insert(table), list(rows))
        return
    _write(connection, _prepared(table, rows, dialect))


def insert_batches(connection: Connection, batches: Iterable[Batch]) -> None:
    """Each batch's rows, table after table and batch after batch, as insert_rows
    writes them; the next batch is drawn from `batches` (and converted) in a helper
    thread while this one is written, so an error the generator raises (a row found
    bad while building) comes out here, in order, and the caller's transaction rolls
    back. Never more than two batches in memory."""
    dialect = connection.dialect.name
    if dialect not in _FAST_DIALECTS:
        for batch in batches:
            for table, rows in batch:
                insert_rows(connection, table, rows)
        return
    source = iter(batches)

    def next_prepared() -> list[_Prepared] | None:
        batch = next(source, None)
        if batch is None:
            return None
        return [_prepared(table, rows, dialect) for table, rows in batch if rows]

    # Both threads hold the GIL in turn; the writer lets go of it while it waits for
    # the server (psycopg) or inside SQLite's own code, which is when the helper runs.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="bulk-rows") as helper:
        pending = helper.submit(next_prepared)
        while (prepared := pending.result()) is not None:
            pending = helper.submit(next_prepared)
            for part in prepared:
                _write(connection, part)


_FAST_DIALECTS = ("postgresql", "sqlite")


@dataclass(frozen=True, slots=True)
class _Prepared:
    """One table's rows as the backend takes them: tuples in the order of `names`."""

    table: sa.Table
    names: list[str]
    rows: list[tuple[Any, ...]]


def _prepared(table: sa.Table, rows: Rows, dialect: str) -> _Prepared:
    names = list(rows[0])
    # Column by column: only timestamp and JSON columns are converted, each with one
    # comprehension, where a call and type checks per value took a fifth of the CPU
    # time of a 100,000-row import. zip() then makes the rows in C.
    times: dict[datetime, Any] = {}  # a row's moments repeat (created, updated, ...)
    columns = [
        _stored(table.c[name].type, [row[name] for row in rows], dialect, times) for name in names
    ]
    return _Prepared(table, names, list(zip(*columns, strict=True)))


def _write(connection: Connection, prepared: _Prepared) -> None:
    if connection.dialect.name == "postgresql":
        _copy(connection, prepared)
    else:
        _sqlite_executemany(connection, prepared)


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


def _copy(connection: Connection, prepared: _Prepared) -> None:
    table, names = prepared.table, prepared.names
    quoted = ", ".join(f'"{name}"' for name in names)
    driver = connection.connection.driver_connection
    assert driver is not None
    types = _binary_types(table, names)
    options = "" if types is None else " (FORMAT BINARY)"
    with (
        driver.cursor() as cursor,
        cursor.copy(f'COPY "{table.name}" ({quoted}) FROM STDIN{options}') as copy,
    ):
        if types is not None:
            copy.set_types(types)
        for row in prepared.rows:
            copy.write_row(row)


def _binary_types(table: sa.Table, names: list[str]) -> list[str] | None:
    """The PostgreSQL type of each column for a binary COPY, or None (then text) when
    a column's type is not one of these. JSON goes as text: JSON's binary form is its
    text, which _stored made."""
    types: list[str] = []
    for name in names:
        kind = table.c[name].type
        if isinstance(kind, sa.types.TypeDecorator):
            kind = kind.impl_instance
        if isinstance(kind, sa.JSON) and kind.__visit_name__ == "JSON":  # not JSONB
            types.append("text")
        elif isinstance(kind, sa.DateTime) and not kind.timezone:  # _stored: naive UTC
            types.append("timestamp")
        elif isinstance(kind, sa.Boolean):
            types.append("bool")
        elif isinstance(kind, sa.BigInteger):
            types.append("int8")
        elif isinstance(kind, sa.Integer) and not isinstance(kind, sa.SmallInteger):
            types.append("int4")
        elif isinstance(kind, sa.String) and not isinstance(kind, sa.Enum):
            types.append("text")
        else:
            return None
    return types


# Random ids (uuid4) spread a bulk load's inserts over every page of each index; with
# SQLite's default 2 MB page cache the pages go in and out of it all along. A 32 MB
# cache took a sixth off the CPU time of 100,000 published posts with their snapshots.
SQLITE_BULK_CACHE_KIB = 32 * 1024
SQLITE_BULK_CACHE_FROM_ROWS = 1000


def _sqlite_executemany(connection: Connection, prepared: _Prepared) -> None:
    quoted = ", ".join(f'"{name}"' for name in prepared.names)
    marks = ", ".join("?" for _ in prepared.names)
    driver = connection.connection.driver_connection
    assert driver is not None
    cursor = driver.cursor()
    try:
        if len(prepared.rows) >= SQLITE_BULK_CACHE_FROM_ROWS:
            _widen_cache(cursor)
        cursor.executemany(
            f'INSERT INTO "{prepared.table.name}" ({quoted}) VALUES ({marks})', prepared.rows
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
