"""Ids as a person reads and types them: a short unique prefix, as git shows commits.

Standard library only: the CLI's quick listing (posts.quick_listing) uses it without
SQLAlchemy. The queries that find rows by these prefixes are in store/refs.py.
"""

from __future__ import annotations

from collections.abc import Iterable

MIN_PREFIX_CHARS = 6  # the least a command takes in place of a whole id
SHORT_ID_CHARS = 8  # the least a listing shows (4 billion values: clashes are rare)


def prefix_of(ref: str) -> str:
    """What an id prefix is compared as: lower case (ids are stored lower-case hex),
    without the dashes of a UUID's usual spelling."""
    return ref.strip().lower().replace("-", "")


def clashing_ids_sql(table: str, scope_column: str | None) -> str:
    """The ids of `table` (in one scope, e.g. one workspace: bound as :scope) whose
    first SHORT_ID_CHARS characters some other id shares: usually none. One
    aggregate query, the same text on SQLite (sqlite3 or SQLAlchemy) and PostgreSQL."""
    where = f"WHERE {scope_column} = :scope" if scope_column else ""
    head = f"substr(id, 1, {SHORT_ID_CHARS})"
    return (
        f"SELECT id FROM {table} {where} {'AND' if where else 'WHERE'} {head} IN "
        f"(SELECT {head} FROM {table} {where} GROUP BY {head} HAVING count(*) > 1)"
    )


def shortest_unique(ids: Iterable[str], clashing: Iterable[str]) -> dict[str, str]:
    """Each id's shortest prefix of at least SHORT_ID_CHARS characters that no id of
    `clashing` (the scope's ids sharing a short head with another) also starts with."""
    others = [other for other in clashing]
    short: dict[str, str] = {}
    for whole in ids:
        length = SHORT_ID_CHARS
        rivals = [o for o in others if o != whole and o.startswith(whole[:length])]
        while rivals and length < len(whole):
            length += 1
            rivals = [o for o in rivals if o.startswith(whole[:length])]
        short[whole] = whole[:length]
    return short
