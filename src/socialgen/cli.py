"""The `socialgen` command. Sub-commands import their heavy modules when they run,
so `socialgen --help` stays fast."""

from __future__ import annotations

from typing import Annotated

import typer

from socialgen.cli_support import SocialgenGroup, use_runtime
from socialgen.features import add_commands

app = typer.Typer(
    name="socialgen",
    cls=SocialgenGroup,
    help="Write and manage LinkedIn-style posts with AI, offline by default.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: typer's rich help renderer doubles start-up time
    add_completion=False,
    # `-h` as `gh`, `git` and `llm` users type it; sub-command contexts inherit this.
    context_settings={"help_option_names": ["-h", "--help"]},
)
add_commands(app)  # every feature's commands: socialgen/*/feature.py


def _print_version(value: bool) -> None:
    if value:
        from socialgen import __version__
        from socialgen.ai.engine import describe_engine

        # The engine that runs local models (nothing imported to name it).
        print(f"socialgen {__version__} (engine: {describe_engine()})")
        raise typer.Exit()


@app.callback()
def root(
    ctx: typer.Context,
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
    use_runtime(ctx)  # settings and models, each made on first use


@app.command()
def serve(
    host: Annotated[
        str | None,
        typer.Option(help="Interface to listen on [setting host; default 127.0.0.1]."),
    ] = None,
    port: Annotated[
        int | None,
        typer.Option(min=1, max=65535, help="TCP port [setting port; default 8000]."),
    ] = None,
    workers: Annotated[
        int, typer.Option(min=1, max=64, help="Worker processes (use PostgreSQL for many).")
    ] = 1,
    scheduler: Annotated[
        bool | None,
        typer.Option(
            "--scheduler/--no-scheduler",
            help="Publish due posts from this server [setting scheduler; default on].",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Run the HTTP API (OpenAPI docs at /docs)."""
    import os

    import uvicorn

    from socialgen.config.loading import current_settings

    # Options win over the environment and the config file (unset options: None).
    settings = current_settings(host=host, port=port, scheduler=scheduler)
    # Read by the app factory in each worker (it takes no arguments): the resolved value.
    os.environ["SOCIALGEN_SCHEDULER"] = "1" if settings.scheduler else "0"

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
        host=settings.host,
        port=settings.port,
        workers=workers,
        log_level="info",
    )


def main() -> None:
    try:
        app()  # typer ends with SystemExit, whatever the command did
    except SystemExit as done:
        from socialgen.process_exit import end_now

        end_now(done.code)  # without the interpreter's 1-2 s teardown, when it can
        raise
