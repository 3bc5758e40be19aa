"""What every `accounts add NETWORK` command ends with: the account the network
accepted stored (secret encrypted), and said; and how a browser sign-in speaks."""

from __future__ import annotations

from typing import TYPE_CHECKING

from socialgen.cli.support import console, emit, styled
from socialgen.publishing.networks_cli import command_networks

if TYPE_CHECKING:
    from sqlalchemy import Engine

    from socialgen.publishing.networks.base import Connected


def store_connected(
    engine: Engine, workspace_id: str, network: str, connected: Connected, json_output: bool
) -> None:
    """Store the account (or reconnect it: same network and handle) and say which."""
    from socialgen.publishing.accounts.service import account_view, add_account, list_accounts
    from socialgen.store.engine import transaction

    with transaction(engine) as session:
        before = {account.id for account in list_accounts(session, workspace_id)}
        account = add_account(
            session, workspace_id, network, connected, networks=command_networks()
        )
        view = account_view(account)
    verb = "Reconnected" if view.id in before else "Connected"
    name = f" ({view.displayName})" if view.displayName else ""
    emit(
        json_output,
        view.model_dump(),
        lambda out: out.print(
            styled((verb, "green"), f" {network} account {view.handle}{name}: {view.id}")
        ),
    )


def announce(message: str) -> None:
    """A sign-in's instructions, on stderr: --json output on stdout stays one document."""
    console(stderr=True).print(message)
