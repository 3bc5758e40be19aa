"""The queue's bodies and views, one shape for every face: the HTTP API reads and
answers these pydantic models, the CLI's --json prints them, the MCP tools take the
bodies and answer the views. Times are ISO 8601 UTC; slots are wall times ("Tue
08:30") in the queue's `timezone`."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictStr,
    field_validator,
)
from pydantic_core import PydanticCustomError

from socialgen.kit.whole_numbers import WholeInt
from socialgen.publishing.outbox.schemas import MAX_ACCOUNTS, PublicationView

MAX_PER_DAY = 24
MAX_SLOTS_TEXT = 4000
AccountRef = Annotated[StrictStr, Field(min_length=1, max_length=320)]
SlotsText = Annotated[StrictStr, Field(min_length=1, max_length=MAX_SLOTS_TEXT)]


class SlotsBody(BaseModel):
    model_config = ConfigDict(strict=True, populate_by_name=True)

    slots: SlotsText | list[Annotated[StrictStr, Field(min_length=1, max_length=64)]] = Field(
        description='The weekly slots, "Tue 08:30, Thu 08:30, Sat 10:00" (or an array of '
        "them): days (Mon ... Sun, Mon-Fri, daily, weekdays, weekends) then HH:MM times, "
        "wall times in `timezone`.",
    )
    account_id: AccountRef | None = Field(
        default=None,
        alias="accountId",
        description="An account's own queue (id, handle or network:handle); default: the "
        "workspace's queue.",
    )
    per_day: Annotated[WholeInt, Field(ge=1, le=MAX_PER_DAY)] | None = Field(
        default=None,
        alias="perDay",
        description="At most this many posts a day: no day may have more slots. Default: "
        "as set before (none).",
    )
    account_ids: list[AccountRef] | None = Field(
        default=None,
        alias="accountIds",
        max_length=MAX_ACCOUNTS,
        description="The workspace queue's accounts: where a post goes when queued without "
        "accountIds. Default: as set before.",
    )
    timezone: Annotated[StrictStr, Field(min_length=1, max_length=64)] | None = Field(
        default=None,
        description="The IANA zone of the slots (default: the server's timezone setting).",
    )

    @field_validator("slots", mode="before")
    @classmethod
    def _text_or_texts(cls, value: Any) -> Any:
        """One sentence for a wrong type (the union's own errors name its branches)."""
        if isinstance(value, str) or (
            isinstance(value, list) and all(isinstance(item, str) for item in value)
        ):
            return value
        raise PydanticCustomError(
            "slots_type", 'Give the slots as text, "Tue 08:30, Thu 08:30", or an array of texts'
        )


class QueuePostBody(BaseModel):
    model_config = ConfigDict(strict=True, populate_by_name=True)

    account_ids: list[AccountRef] = Field(
        default_factory=list,
        alias="accountIds",
        max_length=MAX_ACCOUNTS,
        description="Accounts to publish to: ids, handles or network:handle. Default: the "
        "post's accounts already chosen, else the workspace queue's accounts.",
    )
    number_parts: StrictBool = Field(
        default=False,
        alias="numberParts",
        description='Number the parts of a thread ("1/3", "2/3", ...).',
    )


class MoveBody(BaseModel):
    model_config = ConfigDict(strict=True, populate_by_name=True)

    at: Annotated[StrictStr, Field(min_length=1, max_length=64)] = Field(
        description="The new time, ISO 8601 (UTC unless an offset is given). A slot of the "
        "queue keeps the post in it (it must be free); any other time takes it out of the "
        "queue, scheduled at that time."
    )
    close_gap: StrictBool = Field(
        default=False,
        alias="closeGap",
        description="The later posts of the queue each move up one place (into the slot of "
        "the post before them); default: the slot it leaves stays free.",
    )


class SuggestBody(BaseModel):
    model_config = ConfigDict(strict=True, populate_by_name=True)

    per_day: Annotated[WholeInt, Field(ge=1, le=MAX_PER_DAY)] | None = Field(
        default=None,
        alias="perDay",
        description="At most this many slots a day (default: the queue's setting, else 1).",
    )
    count: Annotated[WholeInt, Field(ge=1, le=7 * MAX_PER_DAY)] | None = Field(
        default=None,
        description="Slots a week (default: as many as the queue has, else 5).",
    )
    account_id: AccountRef | None = Field(
        default=None, alias="accountId", description="An account's own queue."
    )
    apply: StrictBool = Field(
        default=False, description="Make them the queue's slots (as PUT .../slots does)."
    )


class QueueAccount(BaseModel):
    accountId: str
    network: str
    account: str = Field(description="The handle.")


class QueueRef(BaseModel):
    accountId: str | None = Field(description="Null for the workspace's own queue.")
    account: str | None = Field(description="The account's handle, for an account's queue.")
    network: str | None
    timezone: str = Field(description="The zone the slots' wall times are in.")


class SlotsView(BaseModel):
    accountId: str | None = Field(description="Null for the workspace's own queue.")
    account: str | None = Field(description="The account's handle, for an account's queue.")
    network: str | None
    timezone: str = Field(description="The zone the slots' wall times are in.")
    slots: list[str] = Field(description='"Tue 08:30", ... in `timezone`.')
    perDay: int | None = Field(description="At most this many posts a day, if set.")
    accounts: list[QueueAccount] = Field(
        description="Where a post queued without accounts goes (the workspace's queue)."
    )
    nextFreeAt: str | None = Field(description="The next free slot, ISO 8601 UTC.")
    queued: int = Field(description="Posts waiting in the queue.")


class SlotsData(BaseModel):
    queues: list[SlotsView]


class SlotsResponse(BaseModel):
    success: bool
    data: SlotsData


class QueuedPost(BaseModel):
    postId: str
    at: str = Field(description="When it goes out, ISO 8601 UTC.")
    slot: str = Field(description='Its slot, "Tue 08:30" in the queue\'s zone.')
    content: str
    publications: list[PublicationView] = Field(
        description="Where it goes: its publications, queued for `at`."
    )


class QueueView(SlotsView):
    posts: list[QueuedPost] = Field(description="What goes out when, in order.")
    freeAt: list[str] = Field(
        description="Free slots before the last listed post (gaps left), ISO 8601 UTC."
    )


class QueueData(BaseModel):
    queues: list[QueueView]


class QueueResponse(BaseModel):
    success: bool
    data: QueueData


class QueuedData(BaseModel):
    postId: str
    status: str = Field(description="scheduled")
    scheduledAt: str
    slot: str
    queue: QueueRef = Field(description="The queue it went into.")
    publications: list[PublicationView]


class QueuedResponse(BaseModel):
    success: bool
    data: QueuedData


class Shift(BaseModel):
    postId: str
    fromAt: str
    toAt: str


class RemovedData(BaseModel):
    postId: str
    status: str = Field(description="draft: it goes out nowhere until queued or scheduled.")
    droppedPublications: int
    moved: list[Shift] = Field(description="The later posts that moved up (closeGap).")


class RemovedResponse(BaseModel):
    success: bool
    data: RemovedData


class MovedData(BaseModel):
    postId: str
    scheduledAt: str
    inQueue: bool = Field(description="False when the new time is not one of its slots.")
    slot: str | None
    moved: list[Shift] = Field(description="The later posts that moved up (closeGap).")
    publications: list[PublicationView]


class MovedResponse(BaseModel):
    success: bool
    data: MovedData


class SuggestedSlot(BaseModel):
    slot: str = Field(description='"Tue 09:00" in `timezone`.')
    reason: str = Field(
        description='"stands out": its posts beat your others beyond chance; "exploration": '
        "a Thompson draw from the slots' posteriors, to learn."
    )
    score: float | None = Field(
        description="Its posts' level against your average (1 = average), if history exists."
    )
    low: float | None = Field(description="90% interval of the score.")
    high: float | None
    posts: int = Field(description="Your measured posts in that part of the day.")


class SuggestData(BaseModel):
    timezone: str
    enough: bool = Field(description="False: too little history; exploration only.")
    measured: int = Field(description="Measured published posts in the history.")
    floor: int = Field(description="Measured posts needed before a slot can stand out.")
    perDay: int
    count: int
    slots: list[SuggestedSlot]
    message: str
    applied: SlotsView | None = Field(default=None, description="With apply: the queue now.")


class SuggestResponse(BaseModel):
    success: bool
    data: SuggestData
