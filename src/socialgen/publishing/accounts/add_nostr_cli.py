"""`socialgen accounts add nostr`: connect a Nostr key and its relays.

The private key (nsec1...) comes from stdin or a hidden prompt, never from an option
(options land in shell history and `ps`), and is never printed: what is shown is the
npub it derives.
"""

from __future__ import annotations

from typing import Annotated

import typer

from socialgen.cli.support import JsonOpt, WorkspaceOpt, open_workspace
from socialgen.publishing.accounts.connected_cli import store_connected
from socialgen.publishing.accounts.secret_input_cli import prompt_secret, read_stdin
from socialgen.publishing.networks_cli import command_networks

KEY_NAME = "The private key"  # how messages name it (the HTTP API's field: secret)


def add_nostr(
    relays: Annotated[
        str | None,
        typer.Option(
            "--relays",
            help="Your relays, comma-separated wss:// URLs (default: relay.damus.io, "
            "nos.lol, relay.primal.net).",
            show_default=False,
        ),
    ] = None,
    nsec_stdin: Annotated[
        bool, typer.Option("--nsec-stdin", help="Read the private key (nsec1...) from stdin.")
    ] = False,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Connect a Nostr account: notes are signed with your private key (nsec1..., or
    64 hex digits) and sent to your relays; the account is the key's npub."""
    from socialgen.publishing.accounts.service import connect_account

    engine, workspace_id = open_workspace(workspace)
    key = read_stdin("private key") if nsec_stdin else prompt_secret("Private key (nsec1...)")
    connected = connect_account(command_networks(), "nostr", relays, "", key, secret_name=KEY_NAME)
    store_connected(engine, workspace_id, "nostr", connected, json_output)
