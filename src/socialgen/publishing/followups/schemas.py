"""Follow-ups' bodies and views, one shape for every face: the HTTP API reads and
answers these, the CLI's --json prints them, the MCP tools take the bodies and answer
the views."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr

from socialgen.kit.limits import IntRange
from socialgen.kit.whole_numbers import WholeInt

MAX_FOLLOWUP_CHARS = 3000  # as a post: each network then applies its own limit
MAX_DELAY_SECONDS = 7 * 24 * 3600  # a "first" comment a week late is not one any more
MAX_LIKES = 1_000_000_000
DELAY = IntRange("delaySeconds", 0, MAX_DELAY_SECONDS)
LIKES = IntRange("afterLikes", 1, MAX_LIKES)

# The kinds as the faces name them (paths, --json); the store's names are FollowupKind.
FIRST_COMMENT = "first-comment"
PLUG = "plug"


class FirstCommentBody(BaseModel):
    model_config = ConfigDict(strict=True, populate_by_name=True)

    text: StrictStr = Field(
        min_length=1,
        max_length=MAX_FOLLOWUP_CHARS,
        description="The comment: text, a link. Posted under the post once it is live, on "
        "every network that can (LinkedIn: a comment; elsewhere a reply).",
    )
    delay_seconds: WholeInt = Field(
        default=0,
        alias="delaySeconds",
        ge=DELAY.low,
        le=DELAY.high,
        description="Seconds to wait after the post is live (0: at once; at most 7 days).",
    )
    retry: StrictBool = Field(
        default=False,
        description="Queue again the first comments that failed or are unknown (check the "
        "post first: an unknown one may be live).",
    )


class PlugBody(BaseModel):
    model_config = ConfigDict(strict=True, populate_by_name=True)

    text: StrictStr = Field(
        min_length=1,
        max_length=MAX_FOLLOWUP_CHARS,
        description="The reply (a plug: the newsletter, the product), posted under the post "
        "once, where it passes afterLikes.",
    )
    after_likes: WholeInt = Field(
        alias="afterLikes",
        ge=LIKES.low,
        le=LIKES.high,
        description="Likes a publication must reach (as the metrics poll reads them).",
    )
    retry: StrictBool = Field(
        default=False, description="Queue again the replies that failed or are unknown."
    )


class FollowupStateView(BaseModel):
    """A follow-up under one publication: its own state, apart from the post's."""

    id: str | None = Field(description="Null while it waits (the post not live, or few likes).")
    kind: str = Field(description="first-comment or plug")
    publicationId: str
    network: str
    account: str
    state: str = Field(
        description="waiting (not queued yet: the post is not live, or has fewer likes), "
        "queued, publishing, published, failed, unknown or skipped (the network cannot "
        "reply under a post)"
    )
    dueAt: str | None
    attempts: int
    nextAttemptAt: str | None
    remoteId: str | None
    url: str | None
    message: str
    postedAt: str | None


class FollowupView(BaseModel):
    id: str
    postId: str
    kind: str = Field(description="first-comment or plug")
    text: str
    delaySeconds: int | None = Field(description="first-comment: seconds after the post is live")
    afterLikes: int | None = Field(description="plug: the likes it waits for")
    createdAt: str | None
    updatedAt: str | None
    publications: list[FollowupStateView] = Field(
        description="One per publication of the post: where it goes, and how it went."
    )


class FollowupsData(BaseModel):
    postId: str
    firstComment: FollowupView | None
    plug: FollowupView | None


class FollowupsResponse(BaseModel):
    success: bool
    data: FollowupsData


class RemovedData(BaseModel):
    postId: str
    kind: str
    removed: bool = Field(description="False when the post had none.")


class RemovedResponse(BaseModel):
    success: bool
    data: RemovedData
