"""Request bodies of the generation endpoints (the CLI builds the same objects)."""

from __future__ import annotations

from pydantic import BaseModel, Field


class ChatRequest(BaseModel):
    userInput: str | None = Field(default=None, description="The user's message.")
    conversationId: str | None = Field(default=None, description="Continue this conversation.")
    contentStyleId: str | None = Field(default=None, description="Write in this content style.")


class GeneratePostRequest(ChatRequest):
    postId: str | None = Field(
        default=None,
        description="Regenerate this post; its conversation is used when conversationId is absent.",
    )


class BatchRequest(BaseModel):
    userInput: str | None = Field(default=None, description="Base context for all variations.")
    contentStyleId: str | None = None
    postIds: list[str] | None = Field(
        default=None, description="Regenerate only these drafts instead of creating 5 new posts."
    )
