"""The MCP tools of follow-ups: post_followups, set_first_comment, set_plug and
remove_followup. Each is what its endpoint does (publishing/followups/api.py), in a
worker thread. Registered by this slice's feature.py."""

from __future__ import annotations

from typing import Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from socialgen.app.caller import Caller
from socialgen.mcp_server.access import KEY, WRITER, Face, Need
from socialgen.mcp_server.inputs import OnePost
from socialgen.mcp_server.tooling import add_tool, hints, in_thread
from socialgen.publishing.followups.schemas import (
    FirstCommentBody,
    FollowupsData,
    PlugBody,
    RemovedData,
)
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import FollowupKind


class FirstCommentInput(FirstCommentBody, OnePost):
    """The first comment's body."""


class PlugInput(PlugBody, OnePost):
    """The plug's body."""


class RemoveFollowupInput(OnePost):
    kind: Literal["first-comment", "plug"] = Field(description="Which follow-up to drop.")


def register(server: MCPServer[Any], face: Face) -> None:
    async def caller(context: Context[Any, Any], ref: str | None, need: Need) -> Caller:
        return await in_thread(face.caller, context, ref, need)

    async def post_followups(context: Context[Any, Any], request: OnePost) -> FollowupsData:
        who = await caller(context, request.workspaceId, KEY)
        return await in_thread(_read, who, request.postId)

    async def set_first_comment(
        context: Context[Any, Any], request: FirstCommentInput
    ) -> FollowupsData:
        who = await caller(context, request.workspaceId, WRITER)
        return await in_thread(_first_comment, who, request)

    async def set_plug(context: Context[Any, Any], request: PlugInput) -> FollowupsData:
        who = await caller(context, request.workspaceId, WRITER)
        return await in_thread(_plug, who, request)

    async def remove_followup(
        context: Context[Any, Any], request: RemoveFollowupInput
    ) -> RemovedData:
        who = await caller(context, request.workspaceId, WRITER)
        return await in_thread(_remove, who, request)

    add_tool(
        server, "post_followups", OnePost, post_followups, FollowupsData,
        hints(read_only=True),
        title="A post's first comment and plug",
        description="The post's follow-ups: its first comment (posted under the post once "
        "it is live) and its plug (a reply posted once it passes a number of likes), each "
        "with its state under every publication (waiting, queued, published, failed, "
        "unknown, or skipped where the network cannot reply).",
    )  # fmt: skip
    add_tool(
        server, "set_first_comment", FirstCommentInput, set_first_comment, FollowupsData,
        hints(read_only=False, idempotent=True).model_copy(update={"open_world_hint": True}),
        title="Set a post's first comment",
        description="Set (or change) the comment posted under the post once it is live, "
        "delaySeconds later, on every account that can take it (LinkedIn: a comment; "
        "Bluesky, Mastodon, X, Threads, Nostr, Telegram, Pixelfed: a reply; a Discord "
        "webhook cannot). Under a publication live already it is queued now. Posted once "
        "per publication; one posted already stays as it is.",
    )  # fmt: skip
    add_tool(
        server, "set_plug", PlugInput, set_plug, FollowupsData,
        hints(read_only=False, idempotent=True).model_copy(update={"open_world_hint": True}),
        title="Set a post's take-off reply",
        description="Set (or change) a reply (a plug: the newsletter, the product) posted "
        "once under each publication whose likes reach afterLikes, as the metrics poll "
        "reads them.",
    )  # fmt: skip
    add_tool(
        server, "remove_followup", RemoveFollowupInput, remove_followup, RemovedData,
        hints(read_only=False, destructive=True, idempotent=True),
        title="Remove a post's first comment or plug",
        description="Drop the post's first comment or plug: nothing more is posted; what "
        "is live on the networks stays there.",
    )  # fmt: skip


def _read(who: Caller, post_id: str) -> FollowupsData:
    from socialgen.publishing.followups.views import followups_data

    with read_session(who.engine) as session:
        return followups_data(session, who.workspace_id, post_id)


def _first_comment(who: Caller, request: FirstCommentInput) -> FollowupsData:
    from socialgen.publishing.followups.service import set_first_comment
    from socialgen.publishing.followups.views import followups_data

    with transaction(who.engine) as session:
        set_first_comment(
            session,
            who.workspace_id,
            request.postId,
            request.text,
            request.delay_seconds,
            retry=request.retry,
        )
        return followups_data(session, who.workspace_id, request.postId)


def _plug(who: Caller, request: PlugInput) -> FollowupsData:
    from socialgen.publishing.followups.service import set_plug
    from socialgen.publishing.followups.views import followups_data

    with transaction(who.engine) as session:
        set_plug(
            session,
            who.workspace_id,
            request.postId,
            request.text,
            request.after_likes,
            retry=request.retry,
        )
        return followups_data(session, who.workspace_id, request.postId)


def _remove(who: Caller, request: RemoveFollowupInput) -> RemovedData:
    from socialgen.publishing.followups.service import remove_followup

    kind = (
        FollowupKind.FIRST_COMMENT
        if request.kind == "first-comment"
        else FollowupKind.TAKEOFF_REPLY
    )
    with transaction(who.engine) as session:
        removed = remove_followup(session, who.workspace_id, request.postId, kind)
    return RemovedData(postId=request.postId, kind=request.kind, removed=removed)
