"""Evergreen reposts' bodies and views, one shape for every face: the HTTP API reads and
answers these models, the CLI's --json prints them, the MCP tools take the bodies and
answer the views. Times are ISO 8601 UTC; field names camelCase (SPEC.md)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, StrictStr

from socialgen.kit.whole_numbers import WholeInt
from socialgen.publishing.evergreen.cadence import MAX_EVERY_DAYS, MAX_RUNS, MIN_EVERY_DAYS
from socialgen.publishing.outbox.schemas import MAX_ACCOUNTS


class EvergreenBody(BaseModel):
    model_config = ConfigDict(strict=True, populate_by_name=True)

    every_days: WholeInt = Field(
        alias="everyDays",
        ge=MIN_EVERY_DAYS,
        le=MAX_EVERY_DAYS,
        description="Days between two runs.",
    )
    times: WholeInt | None = Field(
        default=None, ge=1, le=MAX_RUNS, description="At most this many runs go out."
    )
    until: StrictStr | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        description="No run is due after this: an ISO 8601 time (UTC unless an offset is "
        "given) or a date (that whole day, UTC). times, until or both: a plan ends.",
    )
    first: StrictStr | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        description="When the first run is due (ISO 8601, UTC unless an offset is given). "
        "Default: the original's time of day, a whole number of periods after it, at "
        "least an hour from now.",
    )
    account_ids: list[Annotated[StrictStr, Field(min_length=1, max_length=320)]] = Field(
        default_factory=list,
        alias="accountIds",
        max_length=MAX_ACCOUNTS,
        description="Accounts each run goes to: ids, handles or network:handle. Default: "
        "the accounts the original went out to.",
    )


class Counts(BaseModel):
    likes: int
    reposts: int
    comments: int
    impressions: int | None = Field(description="Null when no network reports them.")


class RunPublication(BaseModel):
    network: str
    account: str
    state: str = Field(description="queued, publishing, published, failed, unknown or missed")
    url: str | None
    publishedAt: str | None


class RunView(BaseModel):
    number: int
    dueAt: str
    state: str = Field(
        description="writing (its variation is not written yet), scheduled (written, in the "
        "outbox: see publications), missed (no acceptable variation before it was due) or "
        "cancelled (the plan was stopped first) or removed (its post was deleted)"
    )
    postId: str | None = Field(description="The run's own post (its variation), once written.")
    postStatus: str | None = Field(description="draft, scheduled or published; null without.")
    postContent: str | None = Field(description="The variation, once written.")
    version: int | None = Field(description="The original's version that keeps the variation.")
    attempts: int = Field(description="Variations asked of the model for this run.")
    message: str = Field(description='Why the latest variation was refused, or "".')
    metrics: Counts | None = Field(
        description="The run's own numbers (its publications' latest readings, summed); "
        "null until read."
    )
    publications: list[RunPublication]


class AccountRef(BaseModel):
    id: str
    network: str
    account: str


class PlanView(BaseModel):
    id: str
    postId: str = Field(description="The original post.")
    postContent: str
    publishedAt: str | None
    metrics: Counts | None = Field(description="The original's own numbers; null until read.")
    everyDays: int
    times: int | None
    until: str | None
    timezone: str = Field(description="The zone whose wall-clock time the runs keep.")
    accounts: list[AccountRef]
    state: str = Field(description="active, stopped or finished")
    nextAt: str | None = Field(description="When the next run is due; null once it ended.")
    nextNumber: int
    runsWritten: int = Field(description="Runs written and handed to the outbox.")
    message: str = Field(description='The latest problem writing the next run, or "".')
    runs: list[RunView]
    createdAt: str
    updatedAt: str


class PlanResponse(BaseModel):
    success: bool
    data: PlanView


class PlansData(BaseModel):
    plans: list[PlanView]


class PlansResponse(BaseModel):
    success: bool
    data: PlansData


class PreparedRun(BaseModel):
    planId: str
    postId: str = Field(description="The original post.")
    number: int
    dueAt: str
    outcome: str = Field(
        description="written (its post is scheduled), refused (tried again later), "
        "missed (due before a variation was accepted) or skipped (the plan changed)"
    )
    runPostId: str | None
    message: str


class PrepareData(BaseModel):
    written: int
    refused: int
    missed: int
    runs: list[PreparedRun]


class PrepareResponse(BaseModel):
    success: bool
    data: PrepareData


class Candidate(BaseModel):
    postId: str
    postContent: str
    publishedAt: str
    engagement: int = Field(description="likes + reposts + comments at the latest reading")
    multiplier: float = Field(description="How many times its usual engagement it got.")
    low: float = Field(description="The interval's low end: above 1 means clearly better.")
    high: float


class CandidatesData(BaseModel):
    candidates: list[Candidate]
    measured: int = Field(description="Measured published posts in the history.")
    considered: int = Field(description="Those old enough to repost, not planned already.")
    minAgeDays: int
    confidence: float = Field(description="Of each interval, all of them at once.")
    withheld: str | None = Field(description="Why nothing could be judged, or null.")


class CandidatesResponse(BaseModel):
    success: bool
    data: CandidatesData
