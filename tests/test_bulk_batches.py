"""store.bulk on the test's store (SQLite, or PostgreSQL with SOCIALGEN_TEST_DATABASE_URL):
values of every kind read back as written, whether the table's columns all have a
binary COPY type or not; insert_batches stops at a batch the database refuses, one
batch ahead at most, and the transaction takes back the batches already in."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import psycopg
import pytest
import sqlalchemy as sa

from socialgen.store.bulk import Batch, insert_batches, insert_rows, table_of
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import Conversation
from socialgen.store.types import UTCDateTime
from tests.conftest import Store

PARIS = timezone(timedelta(hours=1))


@pytest.fixture
def scratch(store: Store) -> Iterator[tuple[sa.Table, sa.Table]]:
    """Two tables of their own: one of types COPY takes in binary, one with a float
    (not among them: the whole table then goes in as text)."""
    metadata = sa.MetaData()
    binary = sa.Table(
        "bulk_binary",
        metadata,
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("text", sa.Text, nullable=True),
        sa.Column("count", sa.Integer, nullable=True),
        sa.Column("big", sa.BigInteger, nullable=True),
        sa.Column("flag", sa.Boolean, nullable=True),
        sa.Column("at", UTCDateTime, nullable=True),
        sa.Column("meta", sa.JSON(none_as_null=True), nullable=True),
    )
    mixed = sa.Table(
        "bulk_mixed",
        metadata,
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("text", sa.Text, nullable=True),
        sa.Column("ratio", sa.Float, nullable=True),
        sa.Column("at", UTCDateTime, nullable=True),
    )
    metadata.create_all(store.engine)
    try:
        yield binary, mixed
    finally:
        metadata.drop_all(store.engine)


AWKWARD = "tab\there, new\nline, back\\slash, \\N, quote \" and 'é 🚀"


def test_every_kind_of_value_reads_back_as_written(
    store: Store, scratch: tuple[sa.Table, sa.Table]
) -> None:
    binary, mixed = scratch
    at = datetime(2025, 3, 1, 9, 30, 15, 123456, tzinfo=UTC)
    binary_rows: list[dict[str, Any]] = [
        {
            "id": "a",
            "text": AWKWARD,
            "count": 2**31 - 1,
            "big": 2**40,
            "flag": True,
            "at": at,
            "meta": {"k": [1, "two", None]},
        },
        {
            "id": "b",
            "text": "",
            "count": 0,
            "big": -1,
            "flag": False,
            "at": at.astimezone(PARIS),  # stored as the same moment in UTC
            "meta": {},
        },
        {
            "id": "c",
            "text": None,
            "count": None,
            "big": None,
            "flag": None,
            "at": None,
            "meta": None,
        },
    ]
    mixed_rows: list[dict[str, Any]] = [
        {"id": "a", "text": AWKWARD, "ratio": 0.25, "at": at.replace(tzinfo=None)},
        {"id": "b", "text": None, "ratio": None, "at": None},
    ]
    with transaction(store.engine) as session:
        insert_rows(session.connection(), binary, binary_rows)
        insert_rows(session.connection(), mixed, mixed_rows)

    with read_session(store.engine) as session:
        got_binary = [row._asdict() for row in session.execute(sa.select(binary).order_by("id"))]
        got_mixed = [row._asdict() for row in session.execute(sa.select(mixed).order_by("id"))]
    binary_rows[1]["at"] = at
    mixed_rows[0]["at"] = at
    assert got_binary == binary_rows
    assert got_mixed == mixed_rows


def test_a_batch_refused_stops_the_batches_and_nothing_stays(
    store: Store, scratch: tuple[sa.Table, sa.Table]
) -> None:
    binary, _ = scratch
    drawn: list[int] = []

    def batches() -> Iterator[Batch]:
        for number in range(10):
            drawn.append(number)
            # Batch 2 repeats batch 0's first key: the primary key refuses it.
            first = 0 if number == 2 else number * 100
            rows = [{"id": f"k{first + n}", "count": n} for n in range(100)]
            yield [(binary, rows), (table_of(Conversation), [])]

    # The driver's own error: bulk writes go past SQLAlchemy's statement layer.
    refused = (sqlite3.IntegrityError, psycopg.IntegrityError)
    with pytest.raises(refused), transaction(store.engine) as session:
        insert_batches(session.connection(), batches())

    assert max(drawn) <= 3  # batch 2 being written, batch 3 made meanwhile, no further
    with read_session(store.engine) as session:
        assert session.scalar(sa.select(sa.func.count()).select_from(binary)) == 0


def test_an_error_building_a_batch_comes_out_after_the_batches_before(
    store: Store, scratch: tuple[sa.Table, sa.Table]
) -> None:
    binary, _ = scratch

    def batches() -> Iterator[Batch]:
        for number in range(3):
            if number == 2:
                raise ValueError("row 201 is bad")
            yield [(binary, [{"id": f"k{number}", "count": number}])]

    # Raised in the helper thread, it comes out here: the transaction does not commit.
    with pytest.raises(ValueError, match="row 201"), transaction(store.engine) as session:
        insert_batches(session.connection(), batches())

    with read_session(store.engine) as session:
        assert session.scalar(sa.select(sa.func.count()).select_from(binary)) == 0
