"""The content-style tools: list_styles, create_style, add_style_posts, as the
content-styles endpoints do them (styles/api.py)."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import Field

from socialgen.app.caller import Caller
from socialgen.kit.views import View
from socialgen.mcp_server.access import KEY, Face
from socialgen.mcp_server.inputs import AnId, InWorkspace
from socialgen.mcp_server.tooling import add_tool, hints, in_thread
from socialgen.store.engine import read_session, transaction
from socialgen.styles import service
from socialgen.styles.schemas import (
    ContentStyleView,
    CreateStyleBody,
    StylePostsBody,
    StylePostView,
)


class CreateStyleInput(CreateStyleBody, InWorkspace):
    """POST content-styles' body."""


class AddStylePostsInput(StylePostsBody, InWorkspace):
    styleId: AnId = Field(description="The content style.")


class StyleList(View):
    count: int
    styles: list[ContentStyleView]


class AddedStylePosts(View):
    count: int
    posts: list[StylePostView]


def register(server: MCPServer[Any], face: Face) -> None:
    async def caller(context: Context[Any, Any], ref: str | None) -> Caller:
        return await in_thread(face.caller, context, ref, KEY)

    async def list_styles(context: Context[Any, Any], request: InWorkspace) -> StyleList:
        return await in_thread(_list, await caller(context, request.workspaceId))

    async def create_style(
        context: Context[Any, Any], request: CreateStyleInput
    ) -> ContentStyleView:
        who = await caller(context, request.workspaceId)
        return await in_thread(_create, who, request)

    async def add_style_posts(
        context: Context[Any, Any], request: AddStylePostsInput
    ) -> AddedStylePosts:
        who = await caller(context, request.workspaceId)
        return await in_thread(_add, who, request.styleId, request.posts)

    add_tool(
        server, "list_styles", InWorkspace, list_styles, StyleList, hints(read_only=True),
        title="List content styles",
        description="The workspace's content styles (writing styles learnt from example "
        "posts); pass one's _id as contentStyleId when writing.",
    )  # fmt: skip
    add_tool(
        server, "create_style", CreateStyleInput, create_style, ContentStyleView,
        hints(read_only=False),
        title="Create a content style",
        description="Create a content style named name. With fromTop N it is taught at "
        "once with the workspace's N best published posts (by engagement relative to the "
        "creator's usual; refused when fewer measured posts exist); otherwise it is empty "
        "until add_style_posts gives it examples.",
    )  # fmt: skip
    add_tool(
        server, "add_style_posts", AddStylePostsInput, add_style_posts, AddedStylePosts,
        hints(read_only=False),
        title="Teach a style by example",
        description="Add up to 5 example posts (their text) to a content style, all or "
        "none, and train the style again on all its examples.",
    )  # fmt: skip


def _list(who: Caller) -> StyleList:
    with read_session(who.engine) as session:
        views = service.style_views(session, service.list_styles(session, who.workspace_id))
    return StyleList(count=len(views), styles=views)


def _create(who: Caller, request: CreateStyleInput) -> ContentStyleView:
    """As POST content-styles does it, fromTop included (it was taken and not used)."""
    from socialgen.kit.limits import STYLE_FROM_TOP
    from socialgen.styles.from_top import teach_from_top

    if request.fromTop is not None:
        STYLE_FROM_TOP.check(request.fromTop)  # before the store
    with transaction(who.engine) as session:
        style = service.create_style(
            session, who.workspace_id, request.name, request.description, user_id=who.user_id
        )
        if request.fromTop is not None:
            teach_from_top(session, who.workspace_id, style, request.fromTop, asked_as="fromTop")
        return service.style_view(session, style)


def _add(who: Caller, style_id: str, posts: Any) -> AddedStylePosts:
    with transaction(who.engine) as session:
        added = service.add_posts(session, who.workspace_id, style_id, posts)
        views = [service.post_view(post) for post in added]
    return AddedStylePosts(count=len(views), posts=views)
