"""chat, generate-post and generate-batch-posts: each declared once, served by the API
(SSE), MCP (chat, write_post, write_batch) and the command line (cli.py)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from socialgen.app.caller import Caller
from socialgen.app.operations import AsTool, OverHttp, StreamedOperation
from socialgen.events.chat import ChatResponse, PostIds
from socialgen.generation.batch import run_batch
from socialgen.generation.batch_events import BatchComplete
from socialgen.generation.chat import run_chat
from socialgen.generation.plan import prepare_batch, prepare_chat, prepare_post
from socialgen.generation.schemas import BatchRequest, ChatRequest, GeneratePostRequest
from socialgen.generation.single import run_generate_post
from socialgen.mcp_server.inputs import InWorkspace
from socialgen.posts.service import get_post
from socialgen.store.engine import read_session

PREFIX = "/api/v1/ai-conversation"
TAG = "generation"


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


def _content(who: Caller, post_id: str) -> str:
    with read_session(who.engine) as session:
        return get_post(session, who.workspace_id, post_id).content


def _written(ids: PostIds, who: Caller) -> WrittenPost:
    return WrittenPost(
        postId=ids.postId,
        conversationId=ids.conversationId,
        content=_content(who, ids.postId),
        refinementQuestions=ids.refinementQuestions,
    )


def _chat_answer(answer: ChatResponse | PostIds, who: Caller) -> ChatAnswer:
    if isinstance(answer, ChatResponse):
        return ChatAnswer(
            conversationId=answer.conversationId,
            response=answer.response,
            suggestedQuestions=answer.suggestedQuestions,
        )
    return ChatAnswer(
        conversationId=answer.conversationId,
        postId=answer.postId,
        content=_content(who, answer.postId),
        refinementQuestions=answer.refinementQuestions,
    )


CHAT = StreamedOperation(
    prepare=prepare_chat,
    run=lambda plan, using: run_chat(plan, using.text()),
    completed=(ChatResponse, PostIds),
    http=OverHttp(
        name="chat",
        path=f"{PREFIX}/chat/{{workspaceId}}",
        tag=TAG,
        doc="A general answer (chat_delta, chat_response) or, when asked for, a post "
        "(content_delta, post_ids).",
        body=ChatRequest,
    ),
    tool=AsTool(
        name="chat",
        title="Chat",
        description="Ask anything about writing posts; asking for a post writes one as a "
        "draft. conversationId continues a conversation.",
        arguments=ChatInput,
        result=ChatAnswer,
        answer=_chat_answer,
    ),
)

WRITE_POST = StreamedOperation(
    prepare=prepare_post,
    run=lambda plan, using: run_generate_post(plan, using.text()),
    completed=(PostIds,),
    http=OverHttp(
        name="generate_post",
        path=f"{PREFIX}/generate-post/{{workspaceId}}",
        tag=TAG,
        doc="One post, streamed as chat_delta, saved as a draft, then post_ids.",
        body=GeneratePostRequest,
    ),
    tool=AsTool(
        name="write_post",
        title="Write a post",
        description="Write one LinkedIn-style post about userInput (links in it are read) "
        "and save it as a draft; with postId, a new version of that post. Answers the text.",
        arguments=WritePostInput,
        result=WrittenPost,
        answer=_written,
    ),
)

WRITE_BATCH = StreamedOperation(
    prepare=prepare_batch,
    run=lambda plan, using: run_batch(plan, using.text()),
    completed=(BatchComplete,),
    http=OverHttp(
        name="generate_batch_posts",
        path=f"{PREFIX}/generate-batch-posts/{{workspaceId}}",
        tag=TAG,
        doc="Five variations (or the listed drafts regenerated): batch_progress, "
        "post_{N}_post_ids, batch_complete, chat_delta.",
        body=BatchRequest,
        key_error_status=400,  # SPEC.md: a bad API key is a 400 here, not a 401
    ),
    tool=AsTool(
        name="write_batch",
        title="Write five variations",
        description="Five drafts about userInput: Story-driven, Educational, "
        "Thought-provoking, Actionable, Conversational; with postIds, those drafts "
        "written again. Reports progress per post.",
        arguments=WriteBatchInput,
        result=BatchComplete,
    ),
)
