"""`socialgen accounts add x`: connect an X account through the user's own X app.

Secrets come from stdin or a hidden prompt, never from an option (options land in
shell history and `ps`), and are never printed.
"""

from __future__ import annotations

from typing import Annotated

import typer

from socialgen.cli.support import JsonOpt, WorkspaceOpt, open_workspace
from socialgen.publishing.accounts.connected_cli import announce, store_connected
from socialgen.publishing.accounts.secret_input_cli import prompt_secret, read_stdin
from socialgen.publishing.networks_cli import command_networks

X_CLIENT_ID_ENV = "SOCIALGEN_X_CLIENT_ID"
TOKEN_NAME = "The access token"  # how messages name it (the HTTP API's field: secret)


def add_x(
    token_stdin: Annotated[
        bool,
        typer.Option(
            "--token-stdin",
            help="Read an OAuth 2.0 user access token from stdin instead (it lasts two "
            "hours and cannot be refreshed).",
        ),
    ] = False,
    client_id: Annotated[
        str | None,
        typer.Option(
            "--client-id",
            envvar=X_CLIENT_ID_ENV,
            help="Your X app's OAuth 2.0 client id (for the browser sign-in).",
            show_default=False,
        ),
    ] = None,
    public_client: Annotated[
        bool,
        typer.Option(
            "--public-client",
            help="Your app is a public client (type Native App): it has no client secret.",
        ),
    ] = False,
    client_secret_stdin: Annotated[
        bool,
        typer.Option(
            "--client-secret-stdin",
            help="Read the app's client secret from stdin (else a hidden prompt).",
        ),
    ] = False,
    port: Annotated[
        int,
        typer.Option(
            "--port", min=1, max=65535, help="Loopback port: the callback URL your app lists."
        ),
    ] = 8765,
    service: Annotated[
        str | None,
        typer.Option(
            "--service", help="X's API base, if not https://api.x.com.", show_default=False
        ),
    ] = None,
    no_browser: Annotated[
        bool, typer.Option("--no-browser", help="Print the sign-in link instead of opening it.")
    ] = False,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Connect an X account: sign in through your own X app (OAuth 2.0 with PKCE;
    scopes tweet.read tweet.write users.read offline.access media.write; callback
    http://127.0.0.1:PORT/callback), or give an access token."""
    from socialgen.kit.errors import BadRequest
    from socialgen.publishing.accounts.service import authorize_account, connect_account

    if token_stdin and client_secret_stdin:
        raise BadRequest("Only one secret can come from stdin: --token-stdin or the client secret")
    if public_client and client_secret_stdin:
        raise BadRequest("A public client has no client secret: drop --client-secret-stdin")
    engine, workspace_id = open_workspace(workspace)
    if token_stdin:
        token = read_stdin("access token")
        connected = connect_account(
            command_networks(), "x", service, "", token, secret_name=TOKEN_NAME
        )
    else:
        if not client_id:
            raise BadRequest(
                "Give your X app with --client-id ID (developer.x.com > your app > Keys and "
                f"tokens; or {X_CLIENT_ID_ENV}), or an access token with --token-stdin"
            )
        client_secret = ""
        if client_secret_stdin:
            client_secret = read_stdin("client secret")
        elif not public_client:
            client_secret = prompt_secret("Client secret")
        connected = authorize_account(
            command_networks(),
            "x",
            service,
            {"client_id": client_id, "client_secret": client_secret, "port": str(port)},
            open_browser=not no_browser,
            announce=announce,
        )
    store_connected(engine, workspace_id, "x", connected, json_output)
