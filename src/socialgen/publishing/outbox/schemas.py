"""The outbox's bodies and views, one shape for every face: the HTTP API reads and
answers these pydantic models, the CLI's --json prints them, the MCP tools take the
bodies and answer the views (SPEC.md's field names)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr

from socialgen.publishing.followups.schemas import FollowupStateView

MAX_ACCOUNTS = 20


class PublishBody(BaseModel):
    model_config = ConfigDict(strict=True, populate_by_name=True)

    account_ids: list[Annotated[StrictStr, Field(min_length=1, max_length=320)]] = Field(
        alias="accountIds",
        min_length=1,
        max_length=MAX_ACCOUNTS,
        description="Accounts to publish to: ids, handles or network:handle.",
    )
    retry: StrictBool = Field(
        default=False, description="Queue failed, unknown or missed publications again."
    )
    dry_run: StrictBool = Field(
        default=False,
        alias="dryRun",
        description="Answer what each network would receive; send nothing.",
    )
    number_parts: StrictBool = Field(
        default=False,
        alias="numberParts",
        description='Number the parts of a thread ("1/3", "2/3", ...).',
    )


class ScheduleBody(BaseModel):
    model_config = ConfigDict(strict=True, populate_by_name=True)

    at: StrictStr = Field(
        min_length=1,
        max_length=64,
        description='When to publish: ISO 8601 (UTC unless an offset is given), or "best": '
        "the next free best time from the workspace's own history (GET /api/v1/insights).",
    )
    account_ids: list[Annotated[StrictStr, Field(min_length=1, max_length=320)]] = Field(
        default_factory=list,
        alias="accountIds",
        max_length=MAX_ACCOUNTS,
        description="Accounts to publish to at that time: ids, handles or network:handle.",
    )
    retry: StrictBool = Field(
        default=False, description="Queue failed, unknown or missed publications again."
    )
    number_parts: StrictBool = Field(
        default=False,
        alias="numberParts",
        description='Number the parts of a thread ("1/3", "2/3", ...).',
    )


class PublicationView(BaseModel):
    id: str
    postId: str
    accountId: str
    network: str
    account: str
    state: str = Field(description="queued, publishing, published, failed, unknown or missed")
    dueAt: str | None
    attempts: int
    nextAttemptAt: str | None
    remoteId: str | None
    url: str | None
    message: str
    publishedAt: str | None
    followups: list[FollowupStateView] = Field(
        default_factory=list,
        description="The post's first comment and plug under this publication, each with "
        "its own state (publishing/followups/).",
    )


class PublicationsData(BaseModel):
    postId: str
    publications: list[PublicationView] = Field(default_factory=list)
    networks: list[dict[str, Any]] | None = Field(
        default=None, description="dryRun only: each network's parts as it would receive them."
    )


class PublicationsResponse(BaseModel):
    success: bool
    data: PublicationsData


class ScheduledData(BaseModel):
    postId: str
    status: str
    scheduledAt: str | None
    publications: list[PublicationView] = Field(default_factory=list)


class ScheduledResponse(BaseModel):
    success: bool
    data: ScheduledData


class MetricPoint(BaseModel):
    takenAt: str
    likes: int
    reposts: int
    comments: int


class PublicationStats(BaseModel):
    publicationId: str
    network: str
    account: str
    state: str
    url: str | None
    likes: int = Field(description="At the latest reading (0 before the first).")
    reposts: int
    comments: int
    takenAt: str | None = Field(description="When the latest reading was taken.")
    note: str = Field(description="What the network said at the latest reading, if anything.")
    series: list[MetricPoint] = Field(description="The latest readings, oldest first.")


class ImportedStats(BaseModel):
    likes: int
    reposts: int
    comments: int
    impressions: int | None = Field(description="Null when the file did not give them.")
    takenAt: str = Field(description="When the counts were imported.")


class PostStatsView(BaseModel):
    postId: str
    status: str
    postUrl: str | None
    likes: int = Field(
        description="The latest likes of each place the post was read from (each "
        "publication, an import), summed."
    )
    comments: int
    reposts: int
    publications: list[PublicationStats]
    impressions: int | None = Field(
        default=None, description="Summed as likes are; null when no place reports them."
    )
    publishedAt: str | None = None
    imported: ImportedStats | None = Field(
        default=None,
        description="The counts a `posts import` file brought (no publication), or null.",
    )


class StatsView(BaseModel):
    """`posts stats` and the post_stats tool: each post's publications with their
    metric series."""

    posts: list[PostStatsView] = Field(
        description="Each post's publications with their metric series, oldest first."
    )
