"""The tools that write with the model: write_post, write_batch, chat, create_calendar,
create_carousel. Each is its HTTP endpoint's plan and stream (running.run_stream),
its result the stream's final event."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer

from socialgen.carousels.plan import Artwork, prepare_carousel
from socialgen.carousels.service import create_carousel
from socialgen.content_calendar.plan import prepare_calendar
from socialgen.content_calendar.service import run_calendar
from socialgen.drafting.caller import Caller
from socialgen.events.batch import BatchComplete
from socialgen.events.carousel import CarouselComplete
from socialgen.events.chat import ChatResponse, PostIds
from socialgen.events.content_calendar import CalendarComplete
from socialgen.generation.batch import run_batch
from socialgen.generation.chat import run_chat
from socialgen.generation.plan import prepare_batch, prepare_chat, prepare_post
from socialgen.generation.single import run_generate_post
from socialgen.mcp_server.access import KEY, Face
from socialgen.mcp_server.inputs import (
    ChatInput,
    CreateCalendarInput,
    CreateCarouselInput,
    WriteBatchInput,
    WritePostInput,
)
from socialgen.mcp_server.outputs import ChatAnswer, MadeCarousel, WrittenPost
from socialgen.mcp_server.running import run_stream
from socialgen.mcp_server.tooling import add_tool, hints, in_thread
from socialgen.posts.service import get_post
from socialgen.store.engine import read_session

WRITES = hints(read_only=False)  # each call writes new drafts: not idempotent


def carousel_pdf_uri(carousel_id: str) -> str:
    return f"socialgen://carousels/{carousel_id}/pdf"


def register(server: MCPServer[Any], face: Face) -> None:
    async def caller(context: Context[Any, Any], workspace_ref: str | None) -> Caller:
        return await in_thread(face.caller, context, workspace_ref, KEY)

    async def write_post(context: Context[Any, Any], request: WritePostInput) -> WrittenPost:
        who = await caller(context, request.workspaceId)
        model = await in_thread(face.runtime(context).text_model)
        ids = await run_stream(
            context,
            prepare_post,
            who,
            request,
            lambda plan: run_generate_post(plan, model),
            PostIds,
        )
        return WrittenPost(
            postId=ids.postId,
            conversationId=ids.conversationId,
            content=await in_thread(_content, who, ids.postId),
            refinementQuestions=ids.refinementQuestions,
        )

    async def write_batch(context: Context[Any, Any], request: WriteBatchInput) -> BatchComplete:
        who = await caller(context, request.workspaceId)
        model = await in_thread(face.runtime(context).text_model)
        return await run_stream(
            context, prepare_batch, who, request, lambda plan: run_batch(plan, model), BatchComplete
        )

    async def chat(context: Context[Any, Any], request: ChatInput) -> ChatAnswer:
        who = await caller(context, request.workspaceId)
        model = await in_thread(face.runtime(context).text_model)
        answer = await run_stream(
            context,
            prepare_chat,
            who,
            request,
            lambda plan: run_chat(plan, model),
            (ChatResponse, PostIds),
        )
        if isinstance(answer, ChatResponse):
            return ChatAnswer(
                conversationId=answer.conversationId,
                response=answer.response,
                suggestedQuestions=answer.suggestedQuestions,
            )
        assert isinstance(answer, PostIds)
        return ChatAnswer(
            conversationId=answer.conversationId,
            postId=answer.postId,
            content=await in_thread(_content, who, answer.postId),
            refinementQuestions=answer.refinementQuestions,
        )

    async def create_calendar(
        context: Context[Any, Any], request: CreateCalendarInput
    ) -> CalendarComplete:
        who = await caller(context, request.workspaceId)
        model = await in_thread(face.runtime(context).text_model)
        return await run_stream(
            context,
            prepare_calendar,
            who,
            request.request(),
            lambda plan: run_calendar(plan, model),
            CalendarComplete,
        )

    async def make_carousel(
        context: Context[Any, Any], request: CreateCarouselInput
    ) -> MadeCarousel:
        who = await caller(context, request.workspaceId)
        runtime = face.runtime(context)
        model = await in_thread(runtime.text_model)
        images = await in_thread(runtime.image_model)
        carousel = request.request()
        artwork = Artwork()
        if carousel.profile_image_url:
            from socialgen.carousels.uploads import fetch_profile_image

            picture = await fetch_profile_image(
                carousel.profile_image_url, allow_private=runtime.settings.allow_private_urls
            )
            artwork = Artwork(profile_image=picture)
        done = await run_stream(
            context,
            lambda who, body: prepare_carousel(who, body, artwork),
            who,
            carousel,
            lambda plan: create_carousel(plan, model, images, runtime.held.cleanups),
            CarouselComplete,
        )
        stored = done.data.model_dump()
        return MadeCarousel(**stored, pdfResource=carousel_pdf_uri(done.data.carouselId))

    add_tool(
        server, "write_post", WritePostInput, write_post, WrittenPost, WRITES,
        title="Write a post",
        description="Write one LinkedIn-style post about userInput (links in it are read) and "
        "save it as a draft; with postId, a new version of that post. Answers the text.",
    )  # fmt: skip
    add_tool(
        server, "write_batch", WriteBatchInput, write_batch, BatchComplete, WRITES,
        title="Write five variations",
        description="Five drafts about userInput: Story-driven, Educational, "
        "Thought-provoking, Actionable, Conversational; with postIds, those drafts "
        "written again. Reports progress per post.",
    )  # fmt: skip
    add_tool(
        server, "chat", ChatInput, chat, ChatAnswer, WRITES,
        title="Chat",
        description="Ask anything about writing posts; asking for a post writes one as a "
        "draft. conversationId continues a conversation.",
    )  # fmt: skip
    add_tool(
        server, "create_calendar", CreateCalendarInput, create_calendar, CalendarComplete,
        WRITES,
        title="Plan a content calendar",
        description="7 or 30 days of drafts, one a day from tomorrow, from a prompt, a video "
        "(youtubeUrl) and/or articles (articleUrls). Reports progress per day.",
    )  # fmt: skip
    add_tool(
        server, "create_carousel", CreateCarouselInput, make_carousel, MadeCarousel, WRITES,
        title="Make a carousel",
        description="A carousel of slides, an image each, rendered to a PDF (pdfResource is "
        "the PDF as a resource), saved with a draft post. Reports progress per slide.",
    )  # fmt: skip


def _content(who: Caller, post_id: str) -> str:
    with read_session(who.engine) as session:
        return get_post(session, who.workspace_id, post_id).content
