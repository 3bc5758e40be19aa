"""What every command shares: the --json and --workspace options, output, errors.

Kept light on purpose (typer only): `socialgen --help` imports this.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

if TYPE_CHECKING:
    from zoneinfo import ZoneInfo

    from rich.console import Console
    from rich.text import Text
    from sqlalchemy import Engine

    from socialgen.app.runtime import Runtime

_json_mode: ContextVar[bool] = ContextVar("socialgen_json_mode", default=False)
_runtime: ContextVar[Runtime | None] = ContextVar("socialgen_runtime", default=None)
V = TypeVar("V")


def _remember_json(value: bool) -> bool:
    _json_mode.set(value)
    return value


def command_group(help_text: str | None = None) -> typer.Typer:
    """A sub-command group. Help is plain text (no rich renderer): importing typer's
    rich help alone costs more than the rest of `socialgen --help`. A top-level group's
    help is written in its feature.py (it is shown before the group is loaded)."""
    return typer.Typer(help=help_text, no_args_is_help=True, rich_markup_mode=None)


JsonOpt = Annotated[
    bool,
    typer.Option(
        "--json", help="Print machine-readable JSON instead of a table.", callback=_remember_json
    ),
]
WorkspaceOpt = Annotated[
    str | None,
    typer.Option(
        "--workspace",
        "-w",
        envvar="SOCIALGEN_WORKSPACE",
        help="Workspace id or name (default: your default workspace).",
        show_default=False,
    ),
]


def console(stderr: bool = False) -> Console:
    from socialgen.cli.printable_console import PrintableConsole

    # No markup: post text, names and error messages are printed as written (a post
    # saying "[beta]" must not lose it); styling goes through style= and Text. Nor
    # control characters: each is shown as a symbol, never sent to the terminal.
    return PrintableConsole(stderr=stderr, highlight=False, markup=False, soft_wrap=stderr)


def styled(*parts: str | tuple[str, str]) -> Text:
    """A line from plain strings and (text, style) pairs, never parsed as markup,
    its control characters shown as symbols (before rich measures the line)."""
    from rich.text import Text

    from socialgen.kit.control_chars import printable

    return Text.assemble(
        *(
            printable(part) if isinstance(part, str) else (printable(part[0]), part[1])
            for part in parts
        )
    )


def json_text(data: Any) -> str:
    """`data` as one JSON document for stdout: non-ASCII text as it is, control
    characters (C1 and DEL included, which json.dumps leaves) as \\u escapes."""
    from socialgen.kit.control_chars import escape_json_controls

    return escape_json_controls(json.dumps(data, ensure_ascii=False))


def emit(json_output: bool, data: Any, render: Callable[[Console], None]) -> None:
    """Print `data` as one JSON document, or let `render` draw it for a person."""
    if json_output:
        sys.stdout.write(json_text(data) + "\n")
    else:
        render(console())


def piped(out: Console) -> bool:
    """Whether `out` goes to a program (a pipe, a file), not a person's terminal:
    listings print plain tab-separated rows there, as `gh` does. Rich decides, so
    FORCE_COLOR / TTY_COMPATIBLE=1 still ask for the tables."""
    return not out.is_terminal


def notes(out: Console) -> Console:
    """Where a listing's title-like words go: beside the table for a person, on stderr
    when stdout is piped (so `| wc -l` counts rows and `| cut -f1` gets only ids)."""
    return console(stderr=True) if piped(out) else out


_ONE_FIELD = str.maketrans({"\t": " ", "\n": " ", "\r": " "})


def print_plain_rows(out: Console, rows: list[list[str]]) -> None:
    """One line per row, fields split by tabs, nothing else: no header, colour or box.
    Written to the console's file (rich would wrap long lines), each field on one
    line and its control characters shown as symbols, as the console shows them."""
    from socialgen.kit.control_chars import printable

    for row in rows:
        out.file.write("\t".join(printable(field.translate(_ONE_FIELD)) for field in row) + "\n")


IdShortener = Callable[[list[str]], Mapping[str, str]]


def print_rows(
    out: Console,
    title: str,
    rows: list[dict[str, Any]],
    short_ids: Mapping[str, IdShortener] | None = None,
    *,
    empty: str | None = None,
) -> None:
    """A list of flat records as a table (plain rows when piped). Id columns ("id",
    "...Id") are never wrapped; those of `short_ids` show each id as its short unique
    prefix (the column's shortener: cli.refs.shortener). Plain rows keep ids whole.
    `empty` is the command that fills an empty list, said after "none"."""
    from rich.table import Table

    if not rows:
        notes(out).print(f"{title}: none." + (f" {empty}" if empty else ""))
        return
    rows = local_times(rows, creator_zone(), plain=piped(out))
    if piped(out):
        print_plain_rows(
            out, [["" if value is None else str(value) for value in row.values()] for row in rows]
        )
        return
    rows = shorten_ids(rows, short_ids or {})
    table = Table(title=title, title_justify="left")
    for column in rows[0]:
        if column == "id" or column.endswith("Id"):  # whole on its line: double-click copies it
            widest = max(len(str(row[column] or "")) for row in rows)
            table.add_column(column, no_wrap=True, min_width=max(widest, len(column)))
        else:
            table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(*("" if value is None else str(value) for value in row.values()))
    out.print(table)


def local_times(rows: list[dict[str, Any]], zone: ZoneInfo, *, plain: bool) -> list[dict[str, Any]]:
    """Copies of `rows` whose times (the "...At" columns, ISO 8601 UTC as `--json` has
    them) are in `zone`: "2026-12-16 09:00" under a header that names the zone for a
    person; ISO 8601 with the zone's offset in plain rows, which a program reads."""
    from socialgen.kit.local_time import in_zone, local_minute, zone_header

    times = [key for key in rows[0] if key.endswith("At")]
    if not times:
        return rows

    def shown_time(value: Any) -> Any:
        if not isinstance(value, str) or not value:
            return value
        try:
            there = in_zone(value, zone)
        except ValueError:  # not a time after all: shown as it is
            return value
        return there.isoformat(timespec="minutes") if plain else local_minute(there, zone)

    header = {key: key if plain or key not in times else zone_header(key, zone) for key in rows[0]}
    return [
        {
            header.get(key, key): shown_time(value) if key in times else value
            for key, value in row.items()
        }
        for row in rows
    ]


def shorten_ids(
    rows: list[dict[str, Any]], short_ids: Mapping[str, IdShortener]
) -> list[dict[str, Any]]:
    """Copies of `rows` with the ids of each `short_ids` column in their short form."""
    rows = [dict(row) for row in rows]
    for column, shorten in short_ids.items():
        short = shorten([str(row[column]) for row in rows if row.get(column)])
        for row in rows:
            if row.get(column):
                row[column] = short.get(str(row[column]), row[column])
    return rows


def use_runtime(ctx: typer.Context) -> None:
    """The root callback's part: this invocation's Runtime in `ctx.obj` (a test may
    have handed one in: `invoke(app, args, obj=Runtime(...))`), reachable from any
    command's helpers through current_runtime() until the invocation ends, which
    closes it (its engines disposed, its lease keeper stopped)."""
    from socialgen.app.runtime import Runtime

    if not isinstance(ctx.obj, Runtime):
        ctx.obj = Runtime()
    runtime = ctx.obj
    token = _runtime.set(runtime)

    def end() -> None:
        _runtime.reset(token)
        runtime.close()

    ctx.call_on_close(end)


def current_runtime() -> Runtime:
    """The Runtime of the command running now. Outside a command there is none, and
    asking is a bug: a made-up Runtime would read settings the command never saw."""
    runtime = _runtime.get()
    if runtime is None:
        raise RuntimeError("no command is running: pass the Runtime in (current_runtime)")
    return runtime


def creator_zone() -> ZoneInfo:
    """The zone the running command shows times in (kit.local_time): the `timezone`
    setting, else the system's (config.zone)."""
    from socialgen.config.zone import resolve_zone

    runtime = _runtime.get()  # a table printed outside a command: the system's zone
    return resolve_zone(None, runtime.light_setting("timezone") if runtime is not None else None)


def open_store() -> Engine:
    """The store of the running command's Runtime, migrated (Runtime.open_store)."""
    return current_runtime().open_store()


def open_workspace(ref: str | None) -> tuple[Engine, str]:
    """The store's engine and the id of the workspace the command acts on: `ref`
    (--workspace or SOCIALGEN_WORKSPACE), else the config file's `workspace`."""
    from socialgen.store.engine import read_session
    from socialgen.workspaces.service import resolve_workspace

    engine = open_store()
    if ref is None:
        ref = current_runtime().light_setting("workspace")
    with read_session(engine) as session:
        return engine, resolve_workspace(session, ref).id


def confirm(question: str) -> None:
    """Ask a person before something that cannot be undone; go on only on yes.
    Without a terminal on stdin (a script, a pipe, cron) nobody can answer: fail at
    once, saying how to go on, rather than print a prompt nobody sees."""
    if not sys.stdin.isatty():
        raise fail(f"Cannot ask without a terminal ({question}): pass --yes to go on.")
    typer.confirm(question, abort=True, err=True)


def fail(message: str, code: int = 1) -> typer.Exit:
    """Report an error the way --json or a person expects it; return the Exit to raise.
    Under --json the error goes to stdout, where `... --json | jq` reads it (as `gh`
    does); the exit code still says it failed."""
    if _json_mode.get():
        sys.stdout.write(json_text({"success": False, "message": message}) + "\n")
    else:
        console(stderr=True).print(styled(("Error:", "red"), " ", message))
    return typer.Exit(code)


def remember_json_mode() -> None:
    """A command line that asked for --json before its options were parsed (a usage
    error): `fail` answers in JSON."""
    _json_mode.set(True)
