"""Content styles as SPEC.md shapes them."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field
from typing_extensions import TypedDict


class StylePostView(TypedDict):
    _id: str
    content: str


class ContentStyleView(TypedDict):
    _id: str
    name: str
    description: str | None
    workspaceId: str
    userId: str | None
    posts: list[StylePostView]
    createdAt: str
    updatedAt: str


class ScrapedPostView(TypedDict):
    content: str
    date: str


class StyleBody(BaseModel):
    name: str | None = Field(default=None, description="Style name (required on create).")
    description: str | None = None


class StylePostsBody(BaseModel):
    posts: Any = Field(default=None, description="Example posts, at most 5 per call.")


class StylePostBody(BaseModel):
    content: str | None = None
