"""The MCP tools over posts: list_posts, search_posts, get_post, edit_post, delete_post,
and a post as a resource. Each is what its command or endpoint does (posts/cli.py,
posts/api.py), in a worker thread. Registered by this package's feature.py."""

from __future__ import annotations

import json
from typing import Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from pydantic import ConfigDict, Field, StrictStr

from socialgen.app.caller import Caller
from socialgen.kit.limits import DEFAULT_PAGE_LIMIT, POST_LIST_LIMIT
from socialgen.mcp_server.access import KEY, MEMBER_WITH_BEARER, RECENT, Face, Need
from socialgen.mcp_server.inputs import InWorkspace, OnePost
from socialgen.mcp_server.resources import read_resource
from socialgen.mcp_server.tooling import add_tool, hints, in_thread
from socialgen.posts import listing, service
from socialgen.posts.post_filter import MAX_SEARCH_CHARS, PostFilter, make_filter
from socialgen.posts.removal import remove_post
from socialgen.posts.schemas import DeletedPost, PostDetail, PostList, UpdatedPost, UpdatePostBody
from socialgen.store.engine import read_session, transaction


class ListPostsInput(InWorkspace):
    model_config = ConfigDict(strict=True)

    view: Literal["recent", "timeline"] = Field(
        default="recent",
        description="recent: drafts, scheduled and published posts of the last 90 days and "
        "future scheduled ones; timeline: the same without drafts.",
    )
    limit: int = Field(
        # A page an assistant can read whole: SPEC.md's default page size.
        default=DEFAULT_PAGE_LIMIT,
        ge=POST_LIST_LIMIT.low,
        le=POST_LIST_LIMIT.high,
        description="At most this many posts, latest first.",
    )
    cursor: StrictStr | None = Field(
        default=None, description="The nextCursor of the previous page: the posts after it."
    )


class SearchPostsInput(InWorkspace):
    model_config = ConfigDict(strict=True)

    text: StrictStr | None = Field(
        default=None,
        max_length=MAX_SEARCH_CHARS,
        description="Words the post's text has, all of them, each matching a word's start "
        "in any case (ship finds shipping). Leave out to list by the other filters alone.",
    )
    status: list[Literal["draft", "scheduled", "published"]] | None = Field(
        default=None, description="Only posts of these statuses; all when left out."
    )
    since: StrictStr | None = Field(
        default=None,
        description="Only posts at or after this ISO 8601 date or time (UTC unless it has "
        "an offset): their published, scheduled, or (drafts) last edited time.",
    )
    until: StrictStr | None = Field(
        default=None, description="Only posts up to this ISO 8601 time (a date: its whole day)."
    )
    limit: int = Field(
        default=DEFAULT_PAGE_LIMIT,
        ge=POST_LIST_LIMIT.low,
        le=POST_LIST_LIMIT.high,
        description="At most this many posts, latest first.",
    )
    cursor: StrictStr | None = Field(
        default=None,
        description="The nextCursor of the previous page: the posts after it (ask with the "
        "same filters).",
    )

    def post_filter(self) -> PostFilter:
        return make_filter(self.status, self.since, self.until, self.text)


class EditPostInput(UpdatePostBody, OnePost):
    """PUT post's body."""


def register(server: MCPServer[Any], face: Face) -> None:
    async def caller(context: Context[Any, Any], ref: str | None, need: Need) -> Caller:
        return await in_thread(face.caller, context, ref, need)

    async def list_posts(context: Context[Any, Any], request: ListPostsInput) -> PostList:
        recent = request.view == "recent"
        who = await caller(context, request.workspaceId, RECENT if recent else KEY)
        return await in_thread(_list, who, recent, request.limit, request.cursor)

    async def search_posts(context: Context[Any, Any], request: SearchPostsInput) -> PostList:
        where = request.post_filter()  # a bad filter is refused before the store is opened
        who = await caller(context, request.workspaceId, RECENT)
        return await in_thread(_search, who, where, request.limit, request.cursor)

    async def get_post(context: Context[Any, Any], request: OnePost) -> PostDetail:
        who = await caller(context, request.workspaceId, KEY)
        return await in_thread(_show, who, request.postId)

    async def edit_post(context: Context[Any, Any], request: EditPostInput) -> UpdatedPost:
        who = await caller(context, request.workspaceId, MEMBER_WITH_BEARER)
        return await in_thread(_edit, who, request.postId, request.content)

    async def delete_post(context: Context[Any, Any], request: OnePost) -> DeletedPost:
        who = await caller(context, request.workspaceId, MEMBER_WITH_BEARER)
        return await in_thread(remove_post, who.engine, who.files, who.workspace_id, request.postId)

    reads = hints(read_only=True)
    add_tool(
        server, "list_posts", ListPostsInput, list_posts, PostList, reads,
        title="List posts",
        description="Posts of the last 90 days and those scheduled ahead, latest first, a "
        "page at a time (pass nextCursor back as cursor). view: recent (with drafts) or "
        "timeline (scheduled and published only). Older posts, or filters by text, "
        "status or dates: search_posts.",
    )  # fmt: skip
    add_tool(
        server, "search_posts", SearchPostsInput, search_posts, PostList, reads,
        title="Search posts",
        description="Every post of the workspace, of any age, latest first, a page at a "
        "time: those whose text has the words of text, of the statuses asked, between "
        "since and until. Each post carries publishedAt when it went out.",
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
        "characters); the old text stays as a version. Refused for a published post, "
        "and (409) while a publication of it may be live with the text it sent.",
    )  # fmt: skip
    add_tool(
        server, "delete_post", OnePost, delete_post, DeletedPost,
        hints(read_only=False, destructive=True, idempotent=True),
        title="Delete a post",
        description="Delete a draft or scheduled post for good, with its versions, its "
        "conversation and a carousel's slides and PDF. A published post is refused "
        "(Cannot delete a published post here): socialgen cannot take a post down from a "
        "network; delete it there yourself.",
    )  # fmt: skip

    @server.resource(
        "socialgen://posts/{postId}",
        name="post",
        title="A post",
        description="One post in full, with its versions (JSON).",
        mime_type="application/json",
    )
    async def post(postId: str, context: Context[Any, Any]) -> str:
        def read() -> str:
            who = face.caller(context, None, KEY)
            with read_session(who.engine) as session:
                detail = service.show_post(session, who.workspace_id, postId)
                return json.dumps(detail.json_data(), ensure_ascii=False)

        return await read_resource(read)


def _list(who: Caller, recent: bool, limit: int, cursor: str | None) -> PostList:
    read = listing.recent_posts if recent else listing.posts_timeline
    with read_session(who.engine) as session:
        # A page (at most 100 posts): the model costs nothing worth keeping apart here.
        return PostList.model_validate(read(session, who.workspace_id, limit=limit, cursor=cursor))


def _search(who: Caller, where: PostFilter, limit: int, cursor: str | None) -> PostList:
    with read_session(who.engine) as session:
        page = listing.list_posts(
            session, who.workspace_id, limit=limit, cursor=cursor, where=where
        )
        return PostList.model_validate(page)


def _show(who: Caller, post_id: str) -> PostDetail:
    with read_session(who.engine) as session:
        return service.show_post(session, who.workspace_id, post_id)


def _edit(who: Caller, post_id: str, content: str | None) -> UpdatedPost:
    with transaction(who.engine) as session:
        post = service.update_content(session, who.workspace_id, post_id, content)
        return UpdatedPost(postId=post.id, content=post.content)
