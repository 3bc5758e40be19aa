"""The MCP tool that lists the social accounts (list_accounts), as `accounts list`
and its endpoint do. Registered by this slice's feature.py."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, Field

from socialgen.app.caller import Caller
from socialgen.mcp_server.access import KEY, Face
from socialgen.mcp_server.inputs import InWorkspace
from socialgen.mcp_server.tooling import add_tool, hints, in_thread
from socialgen.publishing.accounts.schemas import AccountView
from socialgen.store.engine import read_session


class AccountList(BaseModel):
    accounts: list[AccountView] = Field(description="Never with their secrets.")


def register(server: MCPServer[Any], face: Face) -> None:
    async def list_accounts(context: Context[Any, Any], request: InWorkspace) -> AccountList:
        who = await in_thread(face.caller, context, request.workspaceId, KEY)
        return await in_thread(_accounts, who)

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
