"""The MCP tool preview_post: how a post reads on each network, as `posts preview
--json` and GET .../post/{workspaceId}/{postId}/preview answer it (in a worker thread).
Registered by this slice's feature.py."""

from __future__ import annotations

from typing import Annotated, Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import ConfigDict, Field, StrictBool, StrictStr

from socialgen.app.caller import Caller
from socialgen.mcp_server.access import WRITER, Face
from socialgen.mcp_server.inputs import OnePost
from socialgen.mcp_server.tooling import add_tool, hints, in_thread
from socialgen.publishing.preview.schemas import PostPreview
from socialgen.publishing.preview.targets import MAX_TARGETS


class PreviewPostInput(OnePost):
    model_config = ConfigDict(strict=True, populate_by_name=True)

    to: list[Annotated[StrictStr, Field(min_length=1, max_length=320)]] = Field(
        default_factory=list,
        max_length=MAX_TARGETS,
        description="Accounts (id, handle or network:handle, see list_accounts) or networks' "
        "names (bluesky, mastodon, linkedin, x, threads, telegram, discord, nostr, "
        "pixelfed). Default: the accounts the post is scheduled to, else every connected "
        "account, else every network.",
    )
    number_parts: StrictBool = Field(
        default=False,
        alias="numberParts",
        description='Number the parts of a thread ("1/3", "2/3", ...).',
    )


def register(server: MCPServer[Any], face: Face) -> None:
    async def preview_post(context: Context[Any, Any], request: PreviewPostInput) -> PostPreview:
        who = await in_thread(face.caller, context, request.workspaceId, WRITER)
        return await in_thread(_preview, who, request)

    add_tool(
        server, "preview_post", PreviewPostInput, preview_post, PostPreview,
        hints(read_only=True),
        title="Preview a post per network",
        description="How the post reads on each network before it goes out: the parts a "
        "long post becomes (a thread on Bluesky, Mastodon, X, Threads, Nostr; messages on "
        "Telegram and Discord), each part's length against the network's limit, where "
        "LinkedIn folds the text behind \"...see more\", the link card each network makes, "
        "the media each takes and what it leaves out, the first comment, and warnings. "
        "Sends and fetches nothing.",
    )  # fmt: skip


def _preview(who: Caller, request: PreviewPostInput) -> PostPreview:
    from socialgen.publishing.preview.service import preview_post

    return preview_post(
        who.engine,
        who.workspace_id,
        request.postId,
        request.to,
        number_parts=request.number_parts,
        files=who.files,
    )
