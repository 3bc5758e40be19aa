"""The root command group: errors as a message and exit 1 (never a traceback), a
reader that left the pipe as any Unix tool ends, "Did you mean" for a mistyped
command or group, text options checked before a command runs, command groups loaded
when a command line names them.

Kept light on purpose (typer only): `socialgen --help` imports this.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import typer
from typer._click.exceptions import UsageError
from typer.core import TyperGroup
from typer.exceptions import TyperException

from socialgen.cli.process_exit import PIPE_CLOSED, closed_pipe
from socialgen.cli.suggest import summary, with_suggestion
from socialgen.cli.support import fail, remember_json_mode

if TYPE_CHECKING:
    from socialgen.cli.commands import LazyGroup

V = TypeVar("V")


class SocialgenGroup(TyperGroup):
    """Root command group: turns domain errors into a message and exit 1, never a
    traceback; loads a command group only when a command line names it.

    Its commands and groups are those of the features found under socialgen/ and of
    those the invocation's Runtime handed in (a test's `invoke(app, args,
    obj=Runtime(features=...))`), by one path: `commands.add_commands` registers the
    found features' single commands when the app is built, and every invocation adds
    the handed-in ones and knows every group (with the `extends` that add to it) from
    `commands.lazy_groups`. Nothing is kept on the class."""

    def list_commands(self, ctx: Any) -> list[str]:
        groups = self._lazy_groups(ctx)
        names = super().list_commands(ctx)
        return [*names, *(name for name in groups if name not in self.commands)]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        lazy = self._lazy_groups(ctx).get(cmd_name)
        if cmd_name not in self.commands and lazy is not None:
            command = lazy.load()
            _prepare(command)
            self.commands[cmd_name] = command
        return super().get_command(ctx, cmd_name)

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        """As typer resolves it, but "Did you mean" knows the groups not loaded yet
        (typer looks only at those loaded: `socialgen insight` suggested nothing)."""
        try:
            return super().resolve_command(ctx, args)
        except UsageError as error:
            if args and error.message.startswith("No such command"):
                error.message = with_suggestion(error.message, args[0], self.list_commands(ctx))
            raise

    def _lazy_groups(self, ctx: Any) -> Mapping[str, LazyGroup]:
        """The groups of every feature this invocation knows, the single commands of
        those its Runtime handed in added to this invocation's root group (typer builds
        a new one per `invoke`, so they do not outlive it)."""
        from socialgen.app.features import features
        from socialgen.cli.commands import lazy_groups, single_command

        runtime = ctx.find_root().obj if ctx is not None else None  # None: a doc walker
        handed_in = tuple(getattr(runtime, "features", ()))
        for feature in handed_in:
            for name, target in feature.commands:
                if name not in self.commands:
                    self.commands[name] = single_command(name, target)
        return lazy_groups(features(handed_in))

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """As click lists commands, but a group not loaded yet shows its declared help."""
        rows: list[tuple[str, str | None]] = []
        for name in self.list_commands(ctx):
            command = self.commands.get(name)
            if command is not None and not command.hidden:
                rows.append((name, None))
            elif command is None:
                rows.append((name, self._lazy_groups(ctx)[name].help))
        if not rows:
            return
        # Each line's first sentence whole, wrapped (cli/suggest.py), as `_prepare`
        # gives the groups' own listings: `socialgen -h` runs before `invoke`.
        listed = [
            (name, _listed(self.commands[name]) if text is None else summary(text))
            for name, text in rows
        ]
        with formatter.section("Commands"):
            formatter.write_dl(listed)

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        """The root's context; `socialgen -h | head -1` prints while it is made."""
        try:
            return super().make_context(*args, **kwargs)
        except BrokenPipeError:  # click would exit 1: end as with any other output
            raise typer.Exit(PIPE_CLOSED) from None

    def invoke(self, ctx: Any) -> Any:
        from socialgen.kit.errors import SocialgenError

        asked_json = _asks_json([*getattr(ctx, "_protected_args", []), *ctx.args])
        try:
            _prepare(self)
            return super().invoke(ctx)
        except UsageError as error:
            if not asked_json:
                raise  # typer's own: the usage line, the message, exit 2
            # Parsing failed, so --json's callback never ran: the command line says it.
            remember_json_mode()
            raise fail(error.format_message(), code=error.exit_code) from None
        except (TyperException, typer.Exit, typer.Abort, KeyboardInterrupt):
            raise  # typer's own flow: --help, confirmations
        except SocialgenError as error:
            from socialgen.cli.words import cli_message

            command = next(iter([*getattr(ctx, "_protected_args", []), *ctx.args]), None)
            raise fail(cli_message(error.message, command)) from None
        except Exception as error:  # a bug or an unreachable store: still no traceback
            if closed_pipe(error):  # `socialgen insights | head -1`: the reader has left
                raise typer.Exit(PIPE_CLOSED) from None
            if _is_click_error(error):  # from click helpers such as click.edit
                raise fail(error.format_message()) from None  # type: ignore[attr-defined]
            if _is_store_error(error):
                raise fail(f"Cannot use the store: {_first_line(error)}") from None
            raise fail(f"Unexpected error: {_first_line(error)}") from None


class TextCheckedContext(typer.Context):
    """A command's context that refuses text options and arguments with a lone
    surrogate (bytes the terminal's encoding could not decode), a NUL (from an
    environment variable) or another control character (an ESC pasted in), before
    the command runs: such text could not be stored, or would act when printed.
    Paths stay as given (a file name need not be UTF-8)."""

    def invoke(self, callback: Callable[..., V], /, *args: Any, **kwargs: Any) -> V:
        if callback is self.command.callback:
            from socialgen.kit.text_check import check_cli_text

            for param in self.command.params:
                value = self.params.get(param.name or "")
                texts = value if isinstance(value, list | tuple) else [value]
                for text in texts:
                    if isinstance(text, str):
                        check_cli_text(text, _param_label(param))
        return super().invoke(callback, *args, **kwargs)


def _listed(command: Any) -> str:
    return str(command.short_help or summary(command.help or ""))


def _prepare(command: Any) -> None:
    """Give every command under the root the text-checking context (sub-command
    contexts are made from each command's own `context_class`) and, for the listing
    of its group, its first sentence whole (`summary`)."""
    command.context_class = TextCheckedContext
    if not command.short_help and command.help:
        command.short_help = summary(command.help)
    for sub in getattr(command, "commands", {}).values():
        _prepare(sub)


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
