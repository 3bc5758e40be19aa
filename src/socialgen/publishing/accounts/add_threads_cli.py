"""`socialgen accounts add threads`: connect a Threads account, by a browser sign-in
with the user's own Meta app, or with a long-lived token read from stdin.

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

THREADS_CLIENT_ID_ENV = "SOCIALGEN_THREADS_CLIENT_ID"
TOKEN_NAME = "The access token"  # how messages name it (the HTTP API's field: secret)


def add_threads(
    token_stdin: Annotated[
        bool,
        typer.Option("--token-stdin", help="Read a long-lived access token from stdin instead."),
    ] = False,
    client_id: Annotated[
        str | None,
        typer.Option(
            "--client-id",
            envvar=THREADS_CLIENT_ID_ENV,
            help="Your Meta app's Threads app id (for the browser sign-in).",
            show_default=False,
        ),
    ] = None,
    client_secret_stdin: Annotated[
        bool,
        typer.Option(
            "--client-secret-stdin",
            help="Read the Threads app secret from stdin (else a hidden prompt).",
        ),
    ] = False,
    redirect_uri: Annotated[
        str | None,
        typer.Option(
            "--redirect-uri",
            help="The https redirect URI your Meta app lists, which must reach "
            "http://127.0.0.1:PORT/callback here (a tunnel); default: that loopback address.",
            show_default=False,
        ),
    ] = None,
    port: Annotated[
        int,
        typer.Option("--port", min=1, max=65535, help="Loopback port the redirect reaches."),
    ] = 8765,
    service: Annotated[
        str | None,
        typer.Option(
            "--service",
            help="The Threads API base, if not https://graph.threads.net/v1.0.",
            show_default=False,
        ),
    ] = None,
    no_browser: Annotated[
        bool, typer.Option("--no-browser", help="Print the sign-in link instead of opening it.")
    ] = False,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Connect a Threads account: sign in through your own Meta app (Threads use case;
    permissions threads_basic, threads_content_publish, threads_manage_replies,
    threads_read_replies, threads_manage_insights), or give a long-lived token."""
    from socialgen.kit.errors import BadRequest
    from socialgen.publishing.accounts.service import authorize_account, connect_account

    if token_stdin and client_secret_stdin:
        raise BadRequest("Only one secret can come from stdin: --token-stdin or the app secret")
    engine, workspace_id = open_workspace(workspace)
    if token_stdin:
        token = read_stdin("access token")
        connected = connect_account(
            command_networks(), "threads", service, "", token, secret_name=TOKEN_NAME
        )
    else:
        if not client_id:
            raise BadRequest(
                "Give your Meta app's Threads app id with --client-id ID (and its app "
                "secret), or a long-lived access token with --token-stdin"
            )
        if client_secret_stdin:
            client_secret = read_stdin("app secret")
        else:
            client_secret = prompt_secret("Threads app secret")
        connected = authorize_account(
            command_networks(),
            "threads",
            service,
            {
                "client_id": client_id,
                "client_secret": client_secret,
                "port": str(port),
                "redirect_uri": redirect_uri or "",
            },
            open_browser=not no_browser,
            announce=announce,
        )
    store_connected(engine, workspace_id, "threads", connected, json_output)
