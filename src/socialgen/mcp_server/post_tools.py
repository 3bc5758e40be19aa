"""The tools over posts and their publishing: list_posts, get_post, edit_post,
delete_post, schedule_post, publish_post, post_stats, list_accounts. Each is what
its command or endpoint does (posts/cli.py, posts/api.py, publishing/outbox/cli.py,
outbox/api.py, accounts/api.py), in a worker thread."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer

from socialgen.clock import iso
from socialgen.drafting.caller import Caller
from socialgen.mcp_server.access import KEY, MEMBER_WITH_BEARER, RECENT, WRITER, Face, Need
from socialgen.mcp_server.inputs import (
    EditPostInput,
    InWorkspace,
    ListPostsInput,
    OnePost,
    PostStatsInput,
    PublishPostInput,
    SchedulePostInput,
)
from socialgen.mcp_server.outputs import AccountList, ScheduledPost
from socialgen.mcp_server.tooling import add_tool, hints, in_thread
from socialgen.posts import listing, service
from socialgen.posts.removal import remove_post
from socialgen.posts.schemas import DeletedPost, PostDetail, PostList, UpdatedPost
from socialgen.publishing.outbox.schemas import PublicationsData, StatsView
from socialgen.publishing.registry import Networks
from socialgen.runtime import Runtime
from socialgen.store.engine import read_session, transaction


def register(server: MCPServer[Any], face: Face) -> None:
    async def caller(context: Context[Any, Any], ref: str | None, need: Need) -> Caller:
        return await in_thread(face.caller, context, ref, need)

    async def list_posts(context: Context[Any, Any], request: ListPostsInput) -> PostList:
        recent = request.view == "recent"
        who = await caller(context, request.workspaceId, RECENT if recent else KEY)
        return await in_thread(_list, who, recent, request.limit, request.cursor)

    async def get_post(context: Context[Any, Any], request: OnePost) -> PostDetail:
        who = await caller(context, request.workspaceId, KEY)
        return await in_thread(_show, who, request.postId)

    async def edit_post(context: Context[Any, Any], request: EditPostInput) -> UpdatedPost:
        who = await caller(context, request.workspaceId, MEMBER_WITH_BEARER)
        return await in_thread(_edit, who, request.postId, request.content)

    async def delete_post(context: Context[Any, Any], request: OnePost) -> DeletedPost:
        who = await caller(context, request.workspaceId, MEMBER_WITH_BEARER)
        return await in_thread(remove_post, who.engine, who.files, who.workspace_id, request.postId)

    async def schedule_post(
        context: Context[Any, Any], request: SchedulePostInput
    ) -> ScheduledPost:
        who = await caller(context, request.workspaceId, WRITER)
        zone = face.runtime(context).settings.timezone
        return await in_thread(_schedule, who, request, zone)

    async def publish_post(
        context: Context[Any, Any], request: PublishPostInput
    ) -> PublicationsData:
        who = await caller(context, request.workspaceId, WRITER)
        return await in_thread(_publish, who, face.runtime(context), request)

    async def post_stats(context: Context[Any, Any], request: PostStatsInput) -> StatsView:
        who = await caller(context, request.workspaceId, KEY)
        networks = Networks.of(face.runtime(context))
        return await in_thread(_stats, who, networks, request.postId, request.refresh)

    async def list_accounts(context: Context[Any, Any], request: InWorkspace) -> AccountList:
        who = await caller(context, request.workspaceId, KEY)
        return await in_thread(_accounts, who)

    reads = hints(read_only=True)
    add_tool(
        server, "list_posts", ListPostsInput, list_posts, PostList, reads,
        title="List posts",
        description="Posts of the last 90 days and those scheduled ahead, latest first, a "
        "page at a time (pass nextCursor back as cursor). view: recent (with drafts) or "
        "timeline (scheduled and published only).",
    )  # fmt: skip
    add_tool(
        server, "get_post", OnePost, get_post, PostDetail, reads,
        title="Read a post", description="One post in full, with its versions.",
    )  # fmt: skip
    add_tool(
        server, "edit_post", EditPostInput, edit_post, UpdatedPost,
        hints(read_only=False, idempotent=True),
        title="Edit a post",
        description="Replace the text of a draft or scheduled post (at most 3000 "
        "characters); the old text stays as a version.",
    )  # fmt: skip
    add_tool(
        server, "delete_post", OnePost, delete_post, DeletedPost,
        hints(read_only=False, destructive=True, idempotent=True),
        title="Delete a post",
        description="Delete a draft or scheduled post with all its versions and its "
        "conversation, for good. A published post is deleted on its network.",
    )  # fmt: skip
    add_tool(
        server, "schedule_post", SchedulePostInput, schedule_post, ScheduledPost,
        hints(read_only=False, idempotent=True),
        title="Schedule a post",
        description='Schedule a draft (or move a scheduled post) to `at`: an ISO 8601 time, '
        'or "best", the next free best time from the workspace\'s own published history '
        "(see insights). With accountIds it is published to them at that time.",
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
        description="Likes, reposts and comments of a published post (or of the recently "
        "published ones), as the networks report them; refresh reads them first.",
    )  # fmt: skip
    add_tool(
        server, "list_accounts", InWorkspace, list_accounts, AccountList, reads,
        title="List social accounts",
        description="The social accounts posts can be published to (never their secrets).",
    )  # fmt: skip


def _list(who: Caller, recent: bool, limit: int, cursor: str | None) -> PostList:
    read = listing.recent_posts if recent else listing.posts_timeline
    with read_session(who.engine) as session:
        return read(session, who.workspace_id, limit=limit, cursor=cursor)


def _show(who: Caller, post_id: str) -> PostDetail:
    with read_session(who.engine) as session:
        return service.show_post(session, who.workspace_id, post_id)


def _edit(who: Caller, post_id: str, content: str | None) -> UpdatedPost:
    with transaction(who.engine) as session:
        post = service.update_content(session, who.workspace_id, post_id, content)
        return {"postId": post.id, "content": post.content}


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


def _accounts(who: Caller) -> AccountList:
    from socialgen.publishing.accounts import service as accounts

    with read_session(who.engine) as session:
        found = accounts.list_accounts(session, who.workspace_id)
        return AccountList(accounts=[accounts.account_view(account) for account in found])
