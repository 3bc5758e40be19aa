"""The MCP tools that write with the model: write_post, write_batch, chat. Each is its
HTTP endpoint's plan and stream (mcp_server.running.run_stream), its result the
stream's final event. Registered by this package's feature.py."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, Field

from socialgen.app.caller import Caller
from socialgen.events.chat import ChatResponse, PostIds
from socialgen.generation.batch import run_batch
from socialgen.generation.batch_events import BatchComplete
from socialgen.generation.chat import run_chat
from socialgen.generation.plan import prepare_batch, prepare_chat, prepare_post
from socialgen.generation.schemas import BatchRequest, ChatRequest, GeneratePostRequest
from socialgen.generation.single import run_generate_post
from socialgen.mcp_server.access import KEY, Face
from socialgen.mcp_server.inputs import InWorkspace
from socialgen.mcp_server.running import run_stream
from socialgen.mcp_server.tooling import WRITES, add_tool, in_thread
from socialgen.posts.service import get_post
from socialgen.store.engine import read_session


class WritePostInput(GeneratePostRequest, InWorkspace):
    """generate-post's body."""


class WriteBatchInput(BatchRequest, InWorkspace):
    """generate-batch-posts' body."""


class ChatInput(ChatRequest, InWorkspace):
    """chat's body."""


class WrittenPost(BaseModel):
    postId: str = Field(description="The saved draft (or the post's new version).")
    conversationId: str = Field(description="Its conversation: pass it on to refine it.")
    content: str = Field(description="The post's text as saved.")
    refinementQuestions: list[str] = Field(description="Up to 3 questions to refine it.")


class ChatAnswer(BaseModel):
    """A general answer (response, suggestedQuestions) or, when a post was asked for,
    the post written (postId, content, refinementQuestions)."""

    conversationId: str = Field(description="The conversation: pass it on to continue.")
    response: str | None = Field(default=None, description="The answer, for a question.")
    suggestedQuestions: list[str] = Field(default_factory=list)
    postId: str | None = Field(default=None, description="The draft written, for a post.")
    content: str | None = Field(default=None, description="Its text.")
    refinementQuestions: list[str] = Field(default_factory=list)


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


def _content(who: Caller, post_id: str) -> str:
    with read_session(who.engine) as session:
        return get_post(session, who.workspace_id, post_id).content
