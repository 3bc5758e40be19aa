"""Resources (a post, a carousel's PDF) and the one prompt (a week's plan).

A resource lives in the caller's workspace (stdio: the default one; HTTP: the API
key's): `socialgen://posts/{postId}` is the post as get_post answers it, as JSON;
`socialgen://carousels/{carouselId}/pdf` the carousel's PDF, as create_carousel
made it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError

from socialgen.errors import NotFound, SocialgenError
from socialgen.mcp_server.access import KEY, Face
from socialgen.mcp_server.tooling import in_thread
from socialgen.posts.service import show_post
from socialgen.store.engine import read_session

T = TypeVar("T")

WEEK_PLAN = """Plan my LinkedIn posts for the coming week about: {topic}

1. Call create_calendar with calendarLength 7 and prompt "{topic}"{style}. It writes
   one draft a day from tomorrow; its result lists them with a suggested date each.
2. Read the drafts. Where one is weak, rewrite it with edit_post (at most 3000
   characters), or write it again with write_post (postId: the draft's id).
3. Show me the week: day, theme, the first line of each post. Ask before anything goes
   out.
4. When I agree, schedule each post at its suggested date with schedule_post; name the
   accounts from list_accounts in accountIds if I want them published automatically.
"""


def register(server: MCPServer[Any], face: Face) -> None:
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
                return json.dumps(show_post(session, who.workspace_id, postId), ensure_ascii=False)

        return await _read(read)

    @server.resource(
        "socialgen://carousels/{carouselId}/pdf",
        name="carousel_pdf",
        title="A carousel's PDF",
        description="The PDF create_carousel rendered, one page per slide.",
        mime_type="application/pdf",
    )
    async def carousel_pdf(carouselId: str, context: Context[Any, Any]) -> bytes:
        def read() -> bytes:
            from socialgen.carousels.repository import load_carousel

            who = face.caller(context, None, KEY)
            record = load_carousel(who.engine, who.workspace_id, carouselId)
            return who.files.read(who.workspace_id, record.carousel.pdf_file)

        return await _read(read)

    @server.prompt(
        name="week_plan",
        title="Plan a week of posts",
        description="A week of drafts on a topic, reviewed with you, then scheduled.",
    )
    def week_plan(topic: str, contentStyleId: str | None = None) -> str:
        style = f' and contentStyleId "{contentStyleId}"' if contentStyleId else ""
        return WEEK_PLAN.format(topic=topic.strip(), style=style)


async def _read(read: Callable[[], T]) -> T:
    """A domain error as the resource's error, with the service's message."""
    try:
        return await in_thread(read)
    except NotFound as error:
        raise ResourceNotFoundError(error.message) from None
    except SocialgenError as error:
        raise ResourceError(error.message) from None
