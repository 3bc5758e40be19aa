"""The MCP tools of the social accounts: list them (list_accounts), as `accounts list`
does, and connect one with its secret (add_account), as POST social-accounts does
(owners and admins only over HTTP). Registered by this slice's feature.py."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, Field, StrictStr

from socialgen.app.caller import Caller
from socialgen.app.runtime import Runtime
from socialgen.mcp_server.access import KEY, Face, Need
from socialgen.mcp_server.inputs import InWorkspace
from socialgen.mcp_server.tooling import add_tool, hints, in_thread
from socialgen.publishing.accounts.schemas import AccountView
from socialgen.publishing.accounts.service import MAX_HANDLE, MAX_SECRET_CHARS, MAX_SERVICE_URL
from socialgen.publishing.registry import BUILT_IN
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import Role

MANAGER = Need(roles=frozenset({Role.OWNER, Role.ADMIN}))  # POST social-accounts' guard


class AccountList(BaseModel):
    accounts: list[AccountView] = Field(description="Never with their secrets.")


class AddAccountInput(InWorkspace):
    network: StrictStr = Field(description="One of: " + ", ".join(BUILT_IN) + ".")
    secret: StrictStr = Field(
        max_length=MAX_SECRET_CHARS,
        description="A Bluesky app password; a Mastodon, Pixelfed, LinkedIn, X or Threads "
        "access token; a Telegram bot token; a Discord webhook URL; a Nostr key (nsec1...). "
        "Stored encrypted; never returned.",
    )
    handle: StrictStr = Field(
        default="",
        max_length=MAX_HANDLE,
        description="Bluesky: the handle the app password belongs to. Telegram: the channel "
        "(@name or its numeric id). Others: leave out.",
    )
    serviceUrl: StrictStr | None = Field(
        default=None,
        max_length=MAX_SERVICE_URL,
        description="A Mastodon or Pixelfed instance (required for those), a Bluesky PDS, a "
        "Nostr account's relays (comma-separated wss:// URLs); else the network's own.",
    )


def register(server: MCPServer[Any], face: Face) -> None:
    async def list_accounts(context: Context[Any, Any], request: InWorkspace) -> AccountList:
        who = await in_thread(face.caller, context, request.workspaceId, KEY)
        return await in_thread(_accounts, who)

    async def add_account(context: Context[Any, Any], request: AddAccountInput) -> AccountView:
        who = await in_thread(face.caller, context, request.workspaceId, MANAGER)
        return await in_thread(_add, who, face.runtime(context), request)

    add_tool(
        server, "add_account", AddAccountInput, add_account, AccountView,
        hints(read_only=False, idempotent=True),
        title="Connect a social account",
        description="Connect a social account with its secret, checked with the network "
        "first (a secret the network refuses is refused); the same account again is "
        "reconnected (same id, new secret). Over HTTP only owners and admins may. Never "
        "returns the secret.",
    )  # fmt: skip
    add_tool(
        server, "list_accounts", InWorkspace, list_accounts, AccountList, hints(read_only=True),
        title="List social accounts",
        description="The social accounts posts can be published to (never their secrets).",
    )  # fmt: skip


def _accounts(who: Caller) -> AccountList:
    from socialgen.publishing.accounts import service as accounts

    with read_session(who.engine) as session:
        found = accounts.list_accounts(session, who.workspace_id)
        return AccountList(accounts=[accounts.account_view(account) for account in found])


def _add(who: Caller, runtime: Runtime, request: AddAccountInput) -> AccountView:
    from socialgen.publishing.accounts import service as accounts
    from socialgen.publishing.registry import Networks

    networks = Networks.of(runtime)
    connected = accounts.connect_account(
        networks, request.network, request.serviceUrl, request.handle, request.secret
    )  # outside any transaction: it calls the network
    with transaction(who.engine) as session:
        account = accounts.add_account(
            session, who.workspace_id, request.network, connected, networks=networks
        )
        return accounts.account_view(account)
