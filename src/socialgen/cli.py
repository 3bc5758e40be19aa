"""The `socialgen` command. Sub-commands import their heavy modules when they run,
so `socialgen --help` stays fast."""

from __future__ import annotations

from typing import Annotated

import typer

from socialgen.ai.models_cli import app as models_app
from socialgen.auth.cli import key_app, token_app
from socialgen.carousels.cli import app as carousel_app
from socialgen.cli_support import SocialgenGroup
from socialgen.config.cli import app as config_app
from socialgen.config.provider_keys_cli import app as provider_key_app
from socialgen.content_calendar.cli import calendar
from socialgen.files.cli import app as files_app
from socialgen.generation.cli import batch, chat, post
from socialgen.posts.cli import app as posts_app
from socialgen.posts.cli import conversations
from socialgen.publishing.accounts_cli import app as accounts_app
from socialgen.publishing.publish_cli import extend_posts_group, publish_due
from socialgen.styles.cli import app as style_app
from socialgen.workspaces.cli import member_app, user_app, workspace_app

app = typer.Typer(
    name="socialgen",
    cls=SocialgenGroup,
    help="Write and manage LinkedIn-style posts with AI, offline by default.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: typer's rich help renderer doubles start-up time
    add_completion=False,
)
app.command()(chat)
app.command()(post)
app.command()(batch)
app.command()(calendar)
app.add_typer(posts_app, name="posts")
app.command("conversations")(conversations)
app.add_typer(style_app, name="style")
app.add_typer(carousel_app, name="carousel")
app.add_typer(workspace_app, name="workspace")
app.add_typer(user_app, name="user")
app.add_typer(member_app, name="member")
app.add_typer(key_app, name="key")
app.add_typer(token_app, name="token")
app.add_typer(files_app, name="files")
app.add_typer(accounts_app, name="accounts")
app.add_typer(models_app, name="models")
extend_posts_group(posts_app)  # posts publish/schedule --to/stats: the outbox's commands
app.command("publish-due")(publish_due)
app.add_typer(config_app, name="config")
app.add_typer(provider_key_app, name="provider-key")


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
    app()
