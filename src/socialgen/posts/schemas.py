"""Shapes of posts and conversations as SPEC.md names them.

TypedDicts rather than models: the listings build thousands of these per
request, and FastAPI still validates and documents them as response models.
"""

from __future__ import annotations

from typing import Any, NotRequired

from typing_extensions import TypedDict


class SocialAccount(TypedDict):
    name: NotRequired[str]
    email: NotRequired[str]


class Metrics(TypedDict):
    likes: int
    comments: int


class PostView(TypedDict):
    id: str
    conversationId: str | None
    conversationTitle: str
    postContent: str
    postType: str
    status: str
    createdAt: str
    scheduledAt: str | None
    socialAccount: SocialAccount
    metrics: Metrics
    postUrl: str | None
    carousel: dict[str, Any] | None
    infographic: dict[str, Any] | None
    generatedHeadshot: dict[str, Any] | None
    customImage: dict[str, Any] | None


DateRange = TypedDict("DateRange", {"from": str, "to": str})


class PostList(TypedDict):
    posts: list[PostView]
    total: int
    dateRange: DateRange


class PostListResponse(TypedDict):
    success: bool
    data: PostList


class PostVersionView(TypedDict):
    version: int
    content: str
    source: str
    createdAt: str


class PostDetail(PostView):
    updatedAt: str
    publishedAt: str | None
    variationName: str | None
    versions: list[PostVersionView]


class UpdatedPost(TypedDict):
    postId: str
    content: str


class UpdatePostResponse(TypedDict):
    success: bool
    data: UpdatedPost
    message: str


class DeletedPost(TypedDict):
    deletedPostId: str
    deletedConversationId: str | None
    postType: str
    status: str


class DeletePostResponse(TypedDict):
    success: bool
    message: str
    data: DeletedPost


class ConversationView(TypedDict):
    _id: str
    title: str
    createdAt: str
    updatedAt: str
    status: str
    metadata: dict[str, Any]


class Pagination(TypedDict):
    page: int
    limit: int
    total: int
    pages: int


class ConversationPage(TypedDict):
    conversations: list[ConversationView]
    pagination: Pagination


class ConversationListResponse(TypedDict):
    success: bool
    data: ConversationPage
