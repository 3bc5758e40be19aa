"""Finding a row by what a person typed: its whole id, its name, or a unique prefix
of its id (at least MIN_PREFIX_CHARS characters, any case, with or without a UUID's
dashes). Each step is one SQL query scoped to the caller's workspace: the id equal,
the name equal (then lower-cased), the id LIKE 'prefix%' (for a hex prefix also a range
of the primary key, which its index answers: short_ids.hex_range). No table is read
into memory; on 100,000 posts a prefix costs about a millisecond (bench/id_refs.py).

The CLI's part (the kinds it names, how it opens the store) is socialgen.cli.refs;
the HTTP API keeps taking whole ids only.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, func, or_, text
from sqlmodel import Session, select

from socialgen.kit.errors import BadRequest, NotFound
from socialgen.kit.short_ids import (
    MIN_PREFIX_CHARS,
    chunks,
    clashing_ids_query,
    hex_range,
    like_pattern,
    prefix_of,
    shortest_unique,
)

MAX_LISTED = 10  # matches named in an "ambiguous" error


@dataclass(frozen=True)
class RefKind:
    """One kind of row a command names: a post, a style, a workspace..."""

    noun: str  # "post": how messages name one
    plural: str  # "posts"
    table: Any  # the SQLModel table class
    label: Callable[[Any], str]  # a row in a list of matches, after its id
    scope: str | None = "workspace_id"  # the column a search stays within
    names: tuple[str, ...] = ()  # columns matched as names, exact case first
    # Tried after the whole id, before names and prefixes: a kind's own way of naming
    # rows (an account's handle); the id it finds, or None.
    first: Callable[[Session, str | None, str], str | None] | None = None

    @property
    def title(self) -> str:
        return self.noun[:1].upper() + self.noun[1:]

    def _scoped(self, statement: Any, scope: str | None, *, by_id: bool = False) -> Any:
        """`statement` within the scope. `by_id`: the id range leads, so the scope is
        compared as `col || ''`, which no index serves: SQLite (no statistics) would
        otherwise read the whole workspace through its index instead of a few keys."""
        if self.scope is None:
            return statement
        column = getattr(self.table, self.scope)
        return statement.where((column.concat("") if by_id else column) == scope)


def find_id(session: Session, kind: RefKind, scope: str | None, ref: str) -> str:
    """The id of the one row `ref` names, or a BadRequest/NotFound that repeats `ref`."""
    asked = ref.strip()
    if not asked:
        raise BadRequest(f"Give a {kind.noun} id{' or name' if kind.names else ''}")
    table = kind.table
    whole = session.exec(kind._scoped(select(table.id).where(table.id == asked), scope)).first()
    if whole is not None:
        return str(whole)
    if kind.first is not None and (found := kind.first(session, scope, asked)) is not None:
        return found
    if kind.names:
        named = _by_name(session, kind, scope, asked)
        if len(named) == 1:
            return str(named[0].id)
        if named:
            raise BadRequest(
                f"Several {kind.plural} are named {asked!r}; give one's id:\n"
                + _listing(kind, named)
            )
    prefix = prefix_of(asked)
    if len(prefix) < MIN_PREFIX_CHARS:
        # Said only where no name was possible: "Content style not found: nope" is clear.
        hint = "" if kind.names else f" (an id prefix needs at least {MIN_PREFIX_CHARS} characters)"
        raise NotFound(f"{kind.title} not found: {asked}{hint}")
    starts = _starting_with(table, prefix)
    statement = kind._scoped(select(table).where(starts), scope, by_id=True).order_by(table.id)
    matches = list(session.exec(statement.limit(MAX_LISTED + 1)).all())
    if len(matches) == 1:
        return str(matches[0].id)
    if not matches:
        raise NotFound(f"{kind.title} not found: {asked}")
    count = session.exec(
        kind._scoped(select(func.count()).select_from(table).where(starts), scope, by_id=True)
    ).one()
    raise BadRequest(
        f"{asked} starts the ids of {count} {kind.plural}; give more of it:\n"
        + _listing(kind, matches[:MAX_LISTED])
        + ("\n  …" if count > MAX_LISTED else "")
    )


def short_ids(
    session: Session, kind: RefKind, scope: str | None, ids: Iterable[str]
) -> dict[str, str]:
    """Each id's shortest unique prefix (8 characters or more) within the scope: one
    index range per id (short_ids.clashing_ids_query), not a read of the scope."""
    wanted = list(ids)
    clashing: list[str] = []
    for some in chunks(wanted):
        sql, params = clashing_ids_query(kind.table.__tablename__, kind.scope, some)
        if kind.scope:
            params["scope"] = scope or ""
        clashing += [str(row[0]) for row in session.connection().execute(text(sql), params)]
    return shortest_unique(wanted, clashing)


def _starting_with(table: Any, prefix: str) -> Any:
    """ids starting with `prefix`: LIKE says it exactly; for a hex prefix the same as
    a range of the primary key too, which its index answers (short_ids.hex_range)."""
    starts = table.id.like(like_pattern(prefix), escape="\\")
    bounds = hex_range(prefix)
    if bounds is None:
        return starts
    low, high = bounds
    if high is None:
        return and_(starts, table.id >= low)
    return and_(starts, table.id >= low, table.id < high)


def _by_name(session: Session, kind: RefKind, scope: str | None, asked: str) -> list[Any]:
    table = kind.table
    columns = [getattr(table, name) for name in kind.names]
    limit = MAX_LISTED + 1
    exact = kind._scoped(select(table).where(or_(*(c == asked for c in columns))), scope)
    found = list(session.exec(exact.order_by(table.id).limit(limit)).all())
    if found:
        return found
    folded = asked.lower()
    any_case = kind._scoped(
        select(table).where(or_(*(func.lower(c) == folded for c in columns))), scope
    )
    return list(session.exec(any_case.order_by(table.id).limit(limit)).all())


def opening(text: str, limit: int = 50) -> str:
    """A row's text in a list of matches: its first line, cut to `limit` characters."""
    line = text.strip().split("\n", 1)[0].strip()
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def _listing(kind: RefKind, rows: list[Any]) -> str:
    return "\n".join(f"  {row.id}  {kind.label(row)}" for row in rows)
