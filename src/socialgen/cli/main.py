"""The `socialgen` command. Sub-commands import their heavy modules when they run,
so `socialgen --help` stays fast."""

from __future__ import annotations

from typing import Annotated

import typer

from socialgen.cli.commands import add_commands
from socialgen.cli.root_group import SocialgenGroup
from socialgen.cli.support import use_runtime

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
add_commands(app)  # every feature's commands (cli/commands.py)


def _print_version(ctx: typer.Context, value: bool) -> None:
    if value:
        from socialgen import __version__
        from socialgen.ai.engine import describe_engine
        from socialgen.app.runtime import Runtime

        # Before the root callback: the Runtime a test handed in, else this one's.
        runtime = ctx.obj if isinstance(ctx.obj, Runtime) else Runtime()
        # The engine that runs local models (nothing imported to name it).
        print(
            f"socialgen {__version__} (engine: {describe_engine(runtime.light_setting('engine'))})"
        )
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
    ctx: typer.Context,
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
    import uvicorn

    # Options win over the environment and the config file (unset options: None).
    runtime = ctx.obj.derived(host=host, port=port, scheduler=scheduler)
    settings = runtime.settings

    engine = runtime.open_store()  # migrate once, before any worker starts
    from socialgen.app.features import serve_start

    serve_start(engine, runtime)  # every feature's start work (the carousel sweep)
    from socialgen.http.server import create_app, worker_app

    if workers == 1:
        uvicorn.run(create_app(runtime), host=settings.host, port=settings.port, log_level="info")
        return
    # Each worker is a process of its own: it gets the options (pickled with uvicorn's
    # config) and reads the settings itself. uvicorn.run takes only an import string
    # for workers, so its step for workers is spelt out here.
    from functools import partial

    from uvicorn.supervisors import Multiprocess

    runtime.close()  # each worker opens the store in its own Runtime
    config = uvicorn.Config(
        partial(worker_app, runtime.options),
        factory=True,
        host=settings.host,
        port=settings.port,
        workers=workers,
        log_level="info",
    )
    Multiprocess(config, sockets=[config.bind_socket()]).run()


def main() -> None:
    try:
        app()  # typer ends with SystemExit, whatever the command did
    except SystemExit as done:
        from socialgen.cli.process_exit import end_now

        end_now(done.code)  # without the interpreter's 1-2 s teardown, when it can
        raise
