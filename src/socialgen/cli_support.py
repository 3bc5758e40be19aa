"""What every command shares: the --json and --workspace options, output, errors.

Kept light on purpose (typer only): `socialgen --help` imports this.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, TypeVar

import typer
from typer._click.exceptions import UsageError
from typer.core import TyperGroup
from typer.exceptions import TyperException

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text
    from sqlalchemy import Engine

    from socialgen.runtime import Runtime

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
    from rich.console import Console

    # No markup: post text, names and error messages are printed as written (a post
    # saying "[beta]" must not lose it); styling goes through style= and Text.
    return Console(stderr=stderr, highlight=False, markup=False, soft_wrap=stderr)


def styled(*parts: str | tuple[str, str]) -> Text:
    """A line from plain strings and (text, style) pairs, never parsed as markup."""
    from rich.text import Text

    return Text.assemble(*parts)


def emit(json_output: bool, data: Any, render: Callable[[Console], None]) -> None:
    """Print `data` as one JSON document, or let `render` draw it for a person."""
    if json_output:
        sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")
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
    Written to the console's file as is (rich would wrap long lines)."""
    for row in rows:
        out.file.write("\t".join(field.translate(_ONE_FIELD) for field in row) + "\n")


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
    prefix (the column's shortener: cli_refs.shortener). Plain rows keep ids whole.
    `empty` is the command that fills an empty list, said after "none"."""
    from rich.table import Table

    if not rows:
        notes(out).print(f"{title}: none." + (f" {empty}" if empty else ""))
        return
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
    from socialgen.runtime import Runtime

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
        payload = json.dumps({"success": False, "message": message}, ensure_ascii=False)
        sys.stdout.write(payload + "\n")
    else:
        console(stderr=True).print(styled(("Error:", "red"), " ", message))
    return typer.Exit(code)


@dataclass(frozen=True)
class LazyGroup:
    """A command group `socialgen --help` lists by its help, loaded when it is named."""

    help: str
    load: Callable[[], Any]  # -> the group's click command


class SocialgenGroup(TyperGroup):
    """Root command group: turns domain errors into a message and exit 1, never a
    traceback; loads a command group only when a command line names it."""

    lazy_groups: ClassVar[dict[str, LazyGroup]] = {}  # filled by features.add_commands

    def list_commands(self, ctx: Any) -> list[str]:
        self._add_handed_in(ctx)
        names = super().list_commands(ctx)
        return [*names, *(name for name in self.lazy_groups if name not in self.commands)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        self._add_handed_in(ctx)
        lazy = self.lazy_groups.get(cmd_name)
        if cmd_name not in self.commands and lazy is not None:
            command = lazy.load()
            _check_text_everywhere(command)
            self.commands[cmd_name] = command
        return super().get_command(ctx, cmd_name)

    def _add_handed_in(self, ctx: Any) -> None:
        """The commands and groups of the features a Runtime handed in (a test's
        `invoke(app, args, obj=Runtime(features=...))`), added to this invocation's
        root group: typer builds a new one per `invoke`, so they do not outlive it."""
        from socialgen.registration import resolve

        runtime = ctx.find_root().obj if ctx is not None else None  # None: a doc walker
        for feature in getattr(runtime, "features", ()):
            for name, target in feature.commands:
                if name not in self.commands:
                    self.commands[name] = _single_command(name, resolve(target))
            for group in feature.groups:
                if group.name not in self.commands:
                    command = typer.main.get_group(resolve(group.target))
                    command.name, command.help = group.name, group.help
                    self.commands[group.name] = command

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """As click lists commands, but a group not loaded yet shows its declared help."""
        from typer._click.utils import make_default_short_help

        rows: list[tuple[str, str | None]] = []
        for name in self.list_commands(ctx):
            command = self.commands.get(name)
            if command is not None and not command.hidden:
                rows.append((name, None))
            elif command is None:
                rows.append((name, self.lazy_groups[name].help))
        if not rows:
            return
        limit = formatter.width - 6 - max(len(name) for name, _ in rows)
        listed = [
            (
                name,
                self.commands[name].get_short_help_str(limit)
                if text is None
                else make_default_short_help(text, limit),
            )
            for name, text in rows
        ]
        with formatter.section("Commands"):
            formatter.write_dl(listed)

    def invoke(self, ctx: Any) -> Any:
        from socialgen.errors import SocialgenError

        asked_json = _asks_json([*getattr(ctx, "_protected_args", []), *ctx.args])
        try:
            _check_text_everywhere(self)
            return super().invoke(ctx)
        except UsageError as error:
            if not asked_json:
                raise  # typer's own: the usage line, the message, exit 2
            # Parsing failed, so --json's callback never ran: the command line says it.
            _json_mode.set(True)
            raise fail(error.format_message(), code=error.exit_code) from None
        except (TyperException, typer.Exit, typer.Abort, KeyboardInterrupt):
            raise  # typer's own flow: --help, confirmations
        except SocialgenError as error:
            from socialgen.cli_words import cli_message

            command = next(iter([*getattr(ctx, "_protected_args", []), *ctx.args]), None)
            raise fail(cli_message(error.message, command)) from None
        except Exception as error:  # a bug or an unreachable store: still no traceback
            if _is_click_error(error):  # from click helpers such as click.edit
                raise fail(error.format_message()) from None  # type: ignore[attr-defined]
            if _is_store_error(error):
                raise fail(f"Cannot use the store: {_first_line(error)}") from None
            raise fail(f"Unexpected error: {_first_line(error)}") from None


class TextCheckedContext(typer.Context):
    """A command's context that refuses text options and arguments with a lone
    surrogate (bytes the terminal's encoding could not decode) or a NUL (from an
    environment variable), before the command runs: such text could be neither
    printed nor stored. Paths stay as given (a file name need not be UTF-8)."""

    def invoke(self, callback: Callable[..., V], /, *args: Any, **kwargs: Any) -> V:
        if callback is self.command.callback:
            from socialgen.text_check import check_cli_text

            for param in self.command.params:
                value = self.params.get(param.name or "")
                texts = value if isinstance(value, list | tuple) else [value]
                for text in texts:
                    if isinstance(text, str):
                        check_cli_text(text, _param_label(param))
        return super().invoke(callback, *args, **kwargs)


def _check_text_everywhere(command: Any) -> None:
    """Give every command under the root the text-checking context: sub-command
    contexts are made from each command's own `context_class`."""
    command.context_class = TextCheckedContext
    for sub in getattr(command, "commands", {}).values():
        _check_text_everywhere(sub)


def _param_label(param: Any) -> str:
    """ "--content" for an option, "POST_ID" for an argument."""
    long_names = [opt for opt in param.opts if opt.startswith("--")]
    return long_names[0] if long_names else str(param.name).upper()


def _asks_json(args: list[str]) -> bool:
    """Whether the command line has --json before any `--` (after it, it is a value)."""
    options = args[: args.index("--")] if "--" in args else args
    return "--json" in options


def _is_click_error(error: Exception) -> bool:
    # The click package proper (typer 0.29 bundles its own); not imported at start-up.
    click = sys.modules.get("click")
    return click is not None and isinstance(error, click.ClickException)


def _is_store_error(error: Exception) -> bool:
    return type(error).__module__.startswith("sqlalchemy")


def _first_line(error: Exception) -> str:
    text = str(getattr(error, "orig", None) or error).strip()
    return text.splitlines()[0] if text else type(error).__name__


def _single_command(name: str, function: Callable[..., Any]) -> Any:
    """The click command typer makes of one function, as `app.command(name)` would."""
    holder = typer.Typer(rich_markup_mode=None, add_completion=False)
    holder.command(name)(function)
    command = typer.main.get_command(holder)
    command.name = name
    return command
