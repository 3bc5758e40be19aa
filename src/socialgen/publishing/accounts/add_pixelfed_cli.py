"""`socialgen accounts add pixelfed`: connect a Pixelfed account, by signing in in the
browser (OAuth as Mastodon's, scopes `read write`) or with a personal access token
(Settings > Applications on the instance) read from stdin or a hidden prompt, never
from an option (options land in shell history and `ps`).

Registered beside the others in accounts/cli.py (`add_app.command("pixelfed")`).
"""

from __future__ import annotations

from typing import Annotated

import typer

from socialgen.cli.support import JsonOpt, WorkspaceOpt, open_workspace
from socialgen.publishing.accounts.connected_cli import announce, store_connected
from socialgen.publishing.accounts.secret_input_cli import prompt_secret, read_stdin
from socialgen.publishing.networks_cli import command_networks

TOKEN_NAME = "The access token"  # how messages name it (the HTTP API's field: secret)


def add_pixelfed(
    instance: Annotated[
        str, typer.Option("--instance", help="Your server, e.g. https://pixelfed.social.")
    ],
    token_stdin: Annotated[
        bool, typer.Option("--token-stdin", help="Read an access token from stdin instead.")
    ] = False,
    ask_token: Annotated[
        bool,
        typer.Option("--ask-token", help="Type an access token at a hidden prompt instead."),
    ] = False,
    no_browser: Annotated[
        bool, typer.Option("--no-browser", help="Print the sign-in link instead of opening it.")
    ] = False,
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="Loopback port (0: any free one).")
    ] = 0,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Connect a Pixelfed account: sign in in the browser, or give a personal access
    token (Settings > Applications, scopes read and write)."""
    from socialgen.kit.errors import BadRequest
    from socialgen.publishing.accounts.service import authorize_account, connect_account

    if token_stdin and ask_token:
        raise BadRequest("Give the access token one way: --token-stdin or --ask-token")
    engine, workspace_id = open_workspace(workspace)
    if token_stdin or ask_token:
        token = read_stdin("access token") if token_stdin else prompt_secret("Access token")
        connected = connect_account(
            command_networks(), "pixelfed", instance, "", token, secret_name=TOKEN_NAME
        )
    else:
        connected = authorize_account(
            command_networks(),
            "pixelfed",
            instance,
            {"port": str(port)},
            open_browser=not no_browser,
            announce=announce,
        )
    store_connected(engine, workspace_id, "pixelfed", connected, json_output)
