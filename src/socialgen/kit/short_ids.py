"""Ids as a person reads and types them: a short unique prefix, as git shows commits.

Standard library only: the CLI's quick listing (posts.quick_listing) uses it without
SQLAlchemy. The queries that find rows by these prefixes are in store/refs.py.

Ids are 32 lower-case hex characters (ids.new_id). A hex prefix is also searched as
a range of the id column (`id >= 'a7c0e1' AND id < 'a7c0e2'`), which the primary key's
index answers on SQLite and PostgreSQL alike; LIKE 'prefix%' alone would read every row
of the workspace (SQLite's LIKE ignores case, PostgreSQL's needs a pattern index). Both
bounds are hex strings, so any collation orders them as the ids.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

MIN_PREFIX_CHARS = 6  # the least a command takes in place of a whole id
SHORT_ID_CHARS = 8  # the least a listing shows (4 billion values: clashes are rare)
CHUNK = 200  # ranges per query when a table's ids are checked for clashes
_HEX = re.compile(r"[0-9a-f]+")


def prefix_of(ref: str) -> str:
    """What an id prefix is compared as: lower case (ids are stored lower-case hex),
    without the dashes of a UUID's usual spelling."""
    return ref.strip().lower().replace("-", "")


def hex_range(prefix: str) -> tuple[str, str | None] | None:
    """The ids starting with a hex `prefix`: from the prefix itself up to (not
    including) the next hex number of its length; None after "fff..." (no upper
    bound). None for a prefix that is not hex (only LIKE can find it)."""
    if not _HEX.fullmatch(prefix):
        return None
    following = int(prefix, 16) + 1
    if following >= 16 ** len(prefix):
        return prefix, None
    return prefix, format(following, f"0{len(prefix)}x")


def clashing_ids_query(
    table: str, scope_column: str | None, ids: list[str]
) -> tuple[str, dict[str, str]]:
    """SQL (named parameters, the same text for sqlite3 and SQLAlchemy, SQLite and
    PostgreSQL) for the ids of `table` within one scope (bound as :scope) that share
    their first SHORT_ID_CHARS characters with one of `ids` (at most CHUNK of them):
    the ids themselves and any rivals. One index range per id."""
    params: dict[str, str] = {}
    ranges: list[str] = []
    for number, whole in enumerate(ids):
        head = whole[:SHORT_ID_CHARS]
        bounds = hex_range(head)
        if bounds is None:
            params[f"like{number}"] = like_pattern(head)
            ranges.append(f"id LIKE :like{number} ESCAPE '\\'")
            continue
        params[f"low{number}"] = bounds[0]
        if bounds[1] is None:
            ranges.append(f"id >= :low{number}")
        else:
            params[f"high{number}"] = bounds[1]
            ranges.append(f"(id >= :low{number} AND id < :high{number})")
    where = " OR ".join(ranges) or "1 = 0"
    # `|| ''`: no index on the scope, so SQLite takes the primary key's ranges
    # (store/refs.py says why).
    scope = f"{scope_column} || '' = :scope AND " if scope_column else ""
    return f"SELECT id FROM {table} WHERE {scope}({where})", params


def like_pattern(prefix: str) -> str:
    """`prefix%` for LIKE ... ESCAPE '\\': its own %, _ and \\ taken literally."""
    return prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def shortest_unique(ids: Iterable[str], clashing: Iterable[str]) -> dict[str, str]:
    """Each id's shortest prefix of at least SHORT_ID_CHARS characters that no other
    id of `clashing` (the scope's ids near them, from clashing_ids_query) starts with."""
    others = list(clashing)
    short: dict[str, str] = {}
    for whole in ids:
        length = SHORT_ID_CHARS
        rivals = [o for o in others if o != whole and o.startswith(whole[:length])]
        while rivals and length < len(whole):
            length += 1
            rivals = [o for o in rivals if o.startswith(whole[:length])]
        short[whole] = whole[:length]
    return short


def chunks(ids: list[str]) -> Iterable[list[str]]:
    for start in range(0, len(ids), CHUNK):
        yield ids[start : start + CHUNK]
