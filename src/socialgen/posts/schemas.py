"""Shapes of posts and conversations as SPEC.md names them.

TypedDicts rather than models: the listings build thousands of these per
request, and FastAPI still validates and documents them as response models.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, NotRequired

from pydantic import ConfigDict, Field, StrictStr
from typing_extensions import TypedDict

from socialgen.kit.body_fields import CheckedBody, ShownAs
from socialgen.kit.limits import MAX_POST_CHARS, NOT_BLANK_PATTERN
from socialgen.posts.rules import CONTENT_REQUIRED


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
    total: int  # every post of the window, also when `limit` shows fewer
    dateRange: DateRange
    # Only when the request gave `limit` or `cursor`: pass it back as `cursor` for the
    # next page; null on the last one (posts.cursor).
    nextCursor: NotRequired[str | None]


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


# What PUT post's service accepts, documented (the model takes any string or null).
PostText = Annotated[str, Field(min_length=1, max_length=MAX_POST_CHARS, pattern=NOT_BLANK_PATTERN)]


class UpdatePostBody(CheckedBody):
    """PUT post. The service checks `content` with SPEC.md's messages (missing, null or
    blank: "Content is required"); the model refuses other types, and its schema
    states what the service accepts: a string holding text once trimmed, at most
    3000 characters."""

    model_config = ConfigDict(strict=True)
    # No body at all: the server's validation-error handler answers with this.
    missing_body: ClassVar[str] = CONTENT_REQUIRED

    content: Annotated[StrictStr | None, ShownAs(PostText, required=True)] = Field(
        default=None,
        description=f"New text: not blank, at most {MAX_POST_CHARS} characters once trimmed.",
    )
