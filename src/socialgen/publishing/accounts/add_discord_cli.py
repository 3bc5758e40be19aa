"""`socialgen accounts add discord`: connect a Discord channel through its webhook.

The webhook URL carries the webhook's token: whoever has it can post to the channel.
So it is read like every secret here, from stdin or a hidden prompt, never from an
option (options land in shell history and `ps`), and never printed. The lead
registers the command: `add_app.command("discord")(add_discord)`.
"""

from __future__ import annotations

from typing import Annotated

import typer

from socialgen.cli.support import JsonOpt, WorkspaceOpt, open_workspace
from socialgen.publishing.accounts.connected_cli import store_connected
from socialgen.publishing.accounts.secret_input_cli import prompt_secret, read_stdin
from socialgen.publishing.networks_cli import command_networks

WEBHOOK_NAME = "The webhook URL"  # how messages name the secret


def add_discord(
    channel: Annotated[
        str | None,
        typer.Option(
            "--channel",
            help="The channel's name, kept as the account's handle (#name); default: "
            "the channel's id.",
            show_default=False,
        ),
    ] = None,
    webhook_stdin: Annotated[
        bool, typer.Option("--webhook-stdin", help="Read the webhook URL from stdin.")
    ] = False,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Connect a Discord channel with a webhook (channel settings > Integrations >
    Webhooks > New Webhook > Copy Webhook URL); the URL is asked for, hidden."""
    from socialgen.publishing.accounts.service import connect_account
    from socialgen.publishing.networks.discord.webhook import (
        normalise_service,
        parse_webhook_url,
    )

    engine, workspace_id = open_workspace(workspace)
    url = read_stdin("webhook URL") if webhook_stdin else prompt_secret("Webhook URL")
    # The API base is the URL's own (discord.com, or a stand-in such as a test's).
    service = normalise_service(parse_webhook_url(url).base)
    connected = connect_account(
        command_networks(), "discord", service, channel or "", url, secret_name=WEBHOOK_NAME
    )
    store_connected(engine, workspace_id, "discord", connected, json_output)
