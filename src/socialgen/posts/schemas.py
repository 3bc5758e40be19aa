"""Shapes of posts and conversations as SPEC.md names them: the views every face
gives (kit/views.py).

The two post listings are the exception in how, not in what: they build up to
thousands of posts per call, so they give PostList's JSON object (posts/views.py:
the CLI prints it, an endpoint serializes it as it is, the MCP tool's page is
validated into PostList). Validating 1,000 posts into PostView models costs 3 ms,
`model_construct` over three times that, against a listing of 10 ms;
tests/test_posts_listing_model.py holds the objects to these models.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from pydantic import MISSING, ConfigDict, Field, StrictStr

from socialgen.kit.body_fields import CheckedBody, ShownAs
from socialgen.kit.limits import MAX_POST_CHARS, NOT_BLANK_PATTERN
from socialgen.kit.views import View
from socialgen.posts.rules import CONTENT_REQUIRED


class SocialAccount(View):
    # Each only when the post names it.
    name: str | MISSING = MISSING
    email: str | MISSING = MISSING


class Metrics(View):
    likes: int
    comments: int


class PostView(View):
    id: str
    conversationId: str | None
    conversationTitle: str
    postContent: str
    postType: str
    status: str
    createdAt: str
    scheduledAt: str | None
    # When it went out (a published post: its network's time, or the file's on import);
    # null for drafts and scheduled posts. An addition to SPEC.md's Post.
    publishedAt: str | None
    socialAccount: SocialAccount
    metrics: Metrics
    postUrl: str | None
    carousel: dict[str, Any] | None
    infographic: dict[str, Any] | None
    generatedHeadshot: dict[str, Any] | None
    customImage: dict[str, Any] | None


class DateRange(View):
    from_: str = Field(alias="from")
    to: str


class PostList(View):
    posts: list[PostView]
    total: int  # every post the listing keeps, also when `limit` shows fewer
    dateRange: DateRange
    # Only when the request gave `limit` or `cursor`: pass it back as `cursor` for the
    # next page; null on the last one (posts.cursor).
    nextCursor: str | MISSING | None = MISSING


class PostListResponse(View):
    success: bool
    data: PostList


class PostVersionView(View):
    version: int
    content: str
    source: str
    createdAt: str


class PostDetail(PostView):
    updatedAt: str
    variationName: str | None
    versions: list[PostVersionView]


class UpdatedPost(View):
    postId: str
    content: str


class UpdatePostResponse(View):
    success: bool
    data: UpdatedPost
    message: str


class DeletedPost(View):
    deletedPostId: str
    deletedConversationId: str | None
    postType: str
    status: str


class DeletePostResponse(View):
    success: bool
    message: str
    data: DeletedPost


class ConversationView(View):
    id_: str = Field(alias="_id")
    title: str
    createdAt: str
    updatedAt: str
    status: str
    metadata: dict[str, Any]


class Pagination(View):
    page: int
    limit: int
    total: int
    pages: int


class ConversationPage(View):
    conversations: list[ConversationView]
    pagination: Pagination


class ConversationListResponse(View):
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
