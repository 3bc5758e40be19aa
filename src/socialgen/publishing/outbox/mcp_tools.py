"""The MCP tools that send posts out: schedule_post, unschedule_post, publish_post,
post_stats. Each is what its command or endpoint does (publishing/outbox/cli.py,
api.py), in a worker thread. Registered by this slice's feature.py.

unschedule_post lives here, not with the posts' tools: as `socialgen posts unschedule`
(this slice's), it also drops the post's queued publications, which posts/ cannot
reach."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, ConfigDict, Field

from socialgen.app.caller import Caller
from socialgen.app.runtime import Runtime
from socialgen.kit.clock import iso
from socialgen.mcp_server.access import KEY, WRITER, Face, Need
from socialgen.mcp_server.inputs import AnId, InWorkspace, OnePost
from socialgen.mcp_server.tooling import add_tool, hints, in_thread
from socialgen.posts import service
from socialgen.publishing.outbox.schemas import (
    PublicationsData,
    PublicationView,
    PublishBody,
    ScheduleBody,
    StatsView,
)
from socialgen.publishing.registry import Networks
from socialgen.store.engine import read_session, transaction


class SchedulePostInput(ScheduleBody, OnePost):
    """schedule's body: `at` is an ISO 8601 time or "best"."""


class PublishPostInput(PublishBody, OnePost):
    """publish's body."""


class PostStatsInput(InWorkspace):
    model_config = ConfigDict(strict=True)

    postId: AnId | None = Field(
        default=None, description="One post; default: the recently published posts."
    )
    refresh: bool = Field(default=False, description="Read the counts from the networks first.")


class ScheduledPost(BaseModel):
    postId: str
    status: str
    scheduledAt: str | None
    publications: list[PublicationView] = Field(
        description="Where it goes at that time (the accounts named, now or before)."
    )


class UnscheduledPost(BaseModel):
    postId: str
    status: str = Field(description="draft")
    droppedPublications: int = Field(
        description="Publications that were queued for its time and will not go out."
    )


def register(server: MCPServer[Any], face: Face) -> None:
    async def caller(context: Context[Any, Any], ref: str | None, need: Need) -> Caller:
        return await in_thread(face.caller, context, ref, need)

    async def schedule_post(
        context: Context[Any, Any], request: SchedulePostInput
    ) -> ScheduledPost:
        who = await caller(context, request.workspaceId, WRITER)
        zone = face.runtime(context).settings.timezone
        return await in_thread(_schedule, who, request, zone)

    async def unschedule_post(context: Context[Any, Any], request: OnePost) -> UnscheduledPost:
        who = await caller(context, request.workspaceId, WRITER)
        return await in_thread(_unschedule, who, request.postId)

    async def publish_post(
        context: Context[Any, Any], request: PublishPostInput
    ) -> PublicationsData:
        who = await caller(context, request.workspaceId, WRITER)
        return await in_thread(_publish, who, face.runtime(context), request)

    async def post_stats(context: Context[Any, Any], request: PostStatsInput) -> StatsView:
        who = await caller(context, request.workspaceId, KEY)
        networks = Networks.of(face.runtime(context))
        return await in_thread(_stats, who, networks, request.postId, request.refresh)

    add_tool(
        server, "schedule_post", SchedulePostInput, schedule_post, ScheduledPost,
        hints(read_only=False, idempotent=True),
        title="Schedule a post",
        description='Schedule a draft (or move a scheduled post) to `at`: an ISO 8601 time '
        '(UTC without an offset, as the HTTP API), or "best", the next free best time from '
        "the workspace's own published history (see insights). With accountIds it is "
        "published to them at that time; without, it only waits on the calendar. Refused "
        "for a published post or a time in the past; unschedule_post undoes it.",
    )  # fmt: skip
    add_tool(
        server, "unschedule_post", OnePost, unschedule_post, UnscheduledPost,
        hints(read_only=False, idempotent=False),
        title="Unschedule a post",
        description="Turn a scheduled post back into a draft, as `socialgen posts "
        "unschedule` does: it keeps its text and loses its time, and its publications "
        "queued for that time are dropped (droppedPublications): it goes out nowhere "
        "until it is scheduled or published again. "
        "Refused for a draft or a published post (Only scheduled posts can be "
        "unscheduled).",
    )  # fmt: skip
    add_tool(
        server, "publish_post", PublishPostInput, publish_post, PublicationsData,
        hints(read_only=False, destructive=True).model_copy(update={"open_world_hint": True}),
        title="Publish a post now",
        description="Publish the post now to the accounts named (list_accounts): it goes out "
        "to the public and cannot be taken back from here. dryRun shows what each "
        "network would receive and sends nothing.",
    )  # fmt: skip
    add_tool(
        server, "post_stats", PostStatsInput, post_stats, StatsView,
        hints(read_only=True),
        title="Post metrics",
        description="Likes, reposts and comments the store holds for a published post (or "
        "for the recently published ones): read back from its networks or imported with "
        "it. refresh: true asks the networks for new counts first.",
    )  # fmt: skip


def _schedule(who: Caller, request: SchedulePostInput, zone: str | None) -> ScheduledPost:
    """As POST .../post/{workspaceId}/{postId}/schedule does it."""
    from socialgen.publishing.outbox.schedule_time import parse_at, resolve_at
    from socialgen.publishing.outbox.service import schedule_post, views

    asked = parse_at(request.at)
    with transaction(who.engine) as session:
        moment = resolve_at(session, who.workspace_id, request.postId, asked, zone)
        post, rows = schedule_post(
            session,
            who.workspace_id,
            request.postId,
            moment,
            request.account_ids,
            retry=request.retry,
            number_parts=request.number_parts,
        )
        return ScheduledPost.model_validate(
            {
                "postId": post.id,
                "status": post.status,
                "scheduledAt": iso(post.scheduled_at),
                "publications": views(rows),
            }
        )


def _unschedule(who: Caller, post_id: str) -> UnscheduledPost:
    from socialgen.publishing.outbox.service import unschedule_post

    with transaction(who.engine) as session:
        post, dropped = unschedule_post(session, who.workspace_id, post_id)
        return UnscheduledPost(postId=post.id, status=post.status, droppedPublications=dropped)


def _publish(who: Caller, runtime: Runtime, request: PublishPostInput) -> PublicationsData:
    if request.dry_run:
        from socialgen.publishing.outbox.dryrun import dry_run

        previews = dry_run(
            who.engine,
            who.workspace_id,
            request.postId,
            request.account_ids,
            number_parts=request.number_parts,
            networks=Networks.of(runtime),
            files=who.files,
        )
        return PublicationsData(postId=request.postId, networks=previews)
    from socialgen.publishing.outbox.runner import publish_now
    from socialgen.publishing.settings import PublishTerms

    rows = publish_now(
        who.engine,
        who.workspace_id,
        request.postId,
        request.account_ids,
        retry=request.retry,
        number_parts=request.number_parts,
        terms=PublishTerms.of(who.settings, Networks.of(runtime), who.files),
    )
    return PublicationsData.model_validate({"postId": request.postId, "publications": rows})


def _stats(who: Caller, networks: Networks, post_id: str | None, refresh: bool) -> StatsView:
    from socialgen.publishing.outbox.metrics import post_stats, refresh_metrics

    if refresh:
        if post_id is not None:
            with read_session(who.engine) as session:
                service.get_post(session, who.workspace_id, post_id)  # 404 before the network
        refresh_metrics(
            who.engine,
            workspace_id=who.workspace_id,
            post_id=post_id,
            force=True,
            networks=networks,
        )
    with read_session(who.engine) as session:
        return post_stats(session, who.workspace_id, post_id)
