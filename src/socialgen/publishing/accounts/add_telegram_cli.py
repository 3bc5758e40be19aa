"""`socialgen accounts add telegram CHANNEL`: a channel, posted to by the user's own
bot. The bot token comes from stdin (--token-stdin) or a hidden prompt, never from an
option (options land in shell history and `ps`)."""

from __future__ import annotations

from typing import Annotated

import typer

from socialgen.cli.support import JsonOpt, WorkspaceOpt, open_workspace
from socialgen.publishing.accounts.connected_cli import store_connected
from socialgen.publishing.accounts.secret_input_cli import prompt_secret, read_stdin
from socialgen.publishing.networks_cli import command_networks


def add_telegram(
    channel: Annotated[
        str,
        typer.Argument(
            help="The channel: its @name, or its numeric chat id (-100...) for a private one.",
            show_default=False,
        ),
    ],
    api: Annotated[
        str | None,
        typer.Option(
            "--api",
            help="The Bot API's base URL, if not https://api.telegram.org (a local Bot API "
            "server).",
            show_default=False,
        ),
    ] = None,
    token_stdin: Annotated[
        bool, typer.Option("--token-stdin", help="Read the bot token from stdin.")
    ] = False,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Connect a Telegram channel through your bot: create it with @BotFather (/newbot
    gives its token), add it to the channel as an admin who may post, edit and delete
    messages."""
    from socialgen.publishing.accounts.service import connect_account

    engine, workspace_id = open_workspace(workspace)
    token = read_stdin("bot token") if token_stdin else prompt_secret("Bot token")
    connected = connect_account(
        command_networks(), "telegram", api, channel, token, secret_name="The bot token"
    )
    store_connected(engine, workspace_id, "telegram", connected, json_output)
