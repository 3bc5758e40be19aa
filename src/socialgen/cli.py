"""The `socialgen` command. Sub-commands import their heavy modules when they run,
so `socialgen --help` stays fast."""

from __future__ import annotations

from typing import Annotated

import typer

from socialgen.cli_support import SocialgenGroup
from socialgen.features import add_commands

app = typer.Typer(
    name="socialgen",
    cls=SocialgenGroup,
    help="Write and manage LinkedIn-style posts with AI, offline by default.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: typer's rich help renderer doubles start-up time
    add_completion=False,
)
add_commands(app)  # every feature's commands: socialgen/*/feature.py


def _print_version(value: bool) -> None:
    if value:
        from socialgen import __version__

        print(f"socialgen {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,  # before any sub-command is required or run
            help="Print the version and exit.",
        ),
    ] = False,
) -> None:
    """Write and manage LinkedIn-style posts with AI, offline by default."""


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="TCP port.")] = 8000,
    workers: Annotated[
        int, typer.Option(min=1, max=64, help="Worker processes (use PostgreSQL for many).")
    ] = 1,
    scheduler: Annotated[
        bool,
        typer.Option("--scheduler/--no-scheduler", help="Publish due posts from this server."),
    ] = True,
) -> None:
    """Run the HTTP API (OpenAPI docs at /docs)."""
    import os

    import uvicorn

    if not scheduler:  # read by the app factory in each worker (it takes no arguments)
        os.environ["SOCIALGEN_SCHEDULER"] = "0"

    from socialgen.startup import open_store

    engine = open_store()  # migrate once, before any worker starts
    from socialgen.carousels.sweep import sweep_orphaned_carousels
    from socialgen.files.backend import StorageUnavailable

    try:
        if removed := sweep_orphaned_carousels(engine):
            print(f"removed {removed} orphaned carousel folder(s)")
    except StorageUnavailable as error:  # serve anyway; the next start sweeps
        print(f"orphaned carousel sweep skipped: {error.message}")
    uvicorn.run(
        "socialgen.server:create_app",
        factory=True,
        host=host,
        port=port,
        workers=workers,
        log_level="info",
    )


def main() -> None:
    app()
