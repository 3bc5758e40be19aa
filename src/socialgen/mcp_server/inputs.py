"""The tools' arguments: pydantic models, named as SPEC.md's bodies name them.

Where an HTTP endpoint has a body model, the tool's model is that body plus the
workspace (and the post, where the path names one): the same names, descriptions,
JSON schemas and checks. The service still checks values with SPEC.md's messages.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictStr
from pydantic.json_schema import SkipJsonSchema

from socialgen.carousels.body import SLIDE_COUNT, CarouselBody, JsonSlideCount, ProfileUrl
from socialgen.content_calendar.body import CalendarBody
from socialgen.generation.schemas import BatchRequest, ChatRequest, GeneratePostRequest
from socialgen.limits import (
    DEFAULT_PAGE_LIMIT,
    DEFAULT_SLIDES,
    MAX_RANKED_POSTS,
    NOT_BLANK_PATTERN,
    POST_LIST_LIMIT,
)
from socialgen.posts.schemas import UpdatePostBody
from socialgen.publishing.outbox.schemas import PublishBody, ScheduleBody
from socialgen.styles.schemas import CreateStyleBody, StylePostsBody

AnId = Annotated[StrictStr, Field(min_length=1, max_length=200, pattern=NOT_BLANK_PATTERN)]


class InWorkspace(BaseModel):
    workspaceId: StrictStr | None = Field(
        default=None,
        description="The workspace to act in. Default: the server's workspace (stdio: the "
        "default one, or --workspace; HTTP: the API key's).",
    )


class OnePost(InWorkspace):
    postId: AnId = Field(description="The post's id.")


class WritePostInput(GeneratePostRequest, InWorkspace):
    """generate-post's body."""


class WriteBatchInput(BatchRequest, InWorkspace):
    """generate-batch-posts' body."""


class ChatInput(ChatRequest, InWorkspace):
    """chat's body."""


class ListPostsInput(InWorkspace):
    model_config = ConfigDict(strict=True)

    view: Literal["recent", "timeline"] = Field(
        default="recent",
        description="recent: drafts, scheduled and published posts of the last 90 days and "
        "future scheduled ones; timeline: the same without drafts.",
    )
    limit: int = Field(
        # A page an assistant can read whole: SPEC.md's default page size.
        default=DEFAULT_PAGE_LIMIT,
        ge=POST_LIST_LIMIT.low,
        le=POST_LIST_LIMIT.high,
        description="At most this many posts, latest first.",
    )
    cursor: StrictStr | None = Field(
        default=None, description="The nextCursor of the previous page: the posts after it."
    )


class EditPostInput(UpdatePostBody, OnePost):
    """PUT post's body."""


class SchedulePostInput(ScheduleBody, OnePost):
    """schedule's body: `at` is an ISO 8601 time or "best"."""


class PublishPostInput(PublishBody, OnePost):
    """publish's body."""


class PostStatsInput(InWorkspace):
    model_config = ConfigDict(strict=True)

    postId: AnId | None = Field(
        default=None, description="One post; default: the recently published posts."
    )
    refresh: bool = Field(default=False, description="Read the counts from the networks first.")


class InsightsInput(InWorkspace):
    model_config = ConfigDict(strict=True)

    days: int | None = Field(
        default=None, ge=1, description="Only posts published in the last N days."
    )
    tz: StrictStr | None = Field(
        default=None,
        description="IANA time zone of the slots, e.g. Europe/Paris (default: the timezone "
        "setting, else the server's zone).",
    )


class RankDraftsInput(InWorkspace):
    model_config = ConfigDict(strict=True)

    postIds: list[AnId] = Field(
        min_length=1,
        max_length=MAX_RANKED_POSTS,
        description=f"The posts to rank (drafts, usually), at most {MAX_RANKED_POSTS}.",
    )


class CreateCalendarInput(CalendarBody, InWorkspace):
    """content-calendar's JSON body: the same model reads it."""

    pdf: SkipJsonSchema[None] = None  # a form's file: no tool argument


class CreateCarouselInput(CarouselBody, InWorkspace):
    """generate-with-images' JSON body (images by URL only): the same model reads it."""

    slideCount: JsonSlideCount = Field(default=DEFAULT_SLIDES, description=SLIDE_COUNT)
    userProfileImage: ProfileUrl = Field(
        default=None, description="URL of the author's picture (public http(s))."
    )
    brandLogo: SkipJsonSchema[None] = None  # form files: no tool arguments
    referenceImages: SkipJsonSchema[None] = None


class CreateStyleInput(CreateStyleBody, InWorkspace):
    """POST content-styles' body."""


class AddStylePostsInput(StylePostsBody, InWorkspace):
    styleId: AnId = Field(description="The content style.")
