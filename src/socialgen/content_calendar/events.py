"""The content calendar stream: the sources read, one post per day written and saved,
then the calendar."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, Self

from pydantic import AfterValidator, Field, model_validator

from socialgen.events.common import Summary
from socialgen.events.payload import EventPayload, Source, Tally, WireObject
from socialgen.kit.limits import CALENDAR_LENGTHS

MAX_DAYS = max(CALENDAR_LENGTHS)
DayStatus = Literal["generating", "saving", "completed", "failed"]


def _a_calendar_length(days: int) -> int:
    if days not in CALENDAR_LENGTHS:
        raise ValueError(f"a calendar is {' or '.join(map(str, CALENDAR_LENGTHS))} days")
    return days


# An int checked against limits.CALENDAR_LENGTHS (one place for SPEC.md's 7 or 30).
CalendarLength = Annotated[int, AfterValidator(_a_calendar_length)]


class CalendarSource(WireObject):
    type: Literal["prompt", "youtube", "article", "pdf"] = Field(description="The kind.")
    title: str = Field(description="The prompt (cut), the URL, or the PDF's title.")


class GenerationStarted(EventPayload):
    """The run begins."""

    event_name: ClassVar[str] = "generation_started"
    examples: ClassVar[tuple[dict[str, Any], ...]] = (
        {
            "calendarLength": 7,
            "sources": [{"type": "prompt", "title": "ship weekly"}],
            "message": "Planning a 7-day content calendar",
        },
    )
    calendarLength: CalendarLength = Field(description="Days: 7 or 30.")
    sources: list[CalendarSource] = Field(description="What the calendar is made from.")
    message: str = Field(description="A status line for the user.")

    def progress(self, tally: Tally) -> str | None:
        tally.total = self.calendarLength
        return self.message


class SourceProcessing(EventPayload):
    """A video, an article or the PDF is being read, or was read."""

    event_name: ClassVar[str] = "source_processing"
    examples: ClassVar[tuple[dict[str, Any], ...]] = (
        {"type": "article", "status": "extracting", "message": "Reading"},
        {"type": "article", "status": "complete", "message": "Read it"},
    )
    type: Literal["youtube", "article", "pdf"] = Field(description="The kind of source.")
    status: Literal["extracting", "complete"] = Field(description="Where it is.")
    message: str = Field(description="A status line for the user.")


class CalendarProgress(EventPayload):
    """A day's post is being written, saved, done or failed."""

    event_name: ClassVar[str] = "calendar_progress"
    examples: ClassVar[tuple[dict[str, Any], ...]] = (
        {
            "current": 1,
            "total": 7,
            "status": "generating",
            "message": "Writing day 1",
            "source": "template",
        },
        {"current": 1, "total": 7, "status": "saving", "message": "Saving"},
        {"current": 1, "total": 7, "status": "completed", "message": "Saved", "postId": "p1"},
        {"current": 2, "total": 7, "status": "failed", "message": "Failed"},
    )
    current: int = Field(ge=1, le=MAX_DAYS, description="The day, 1-based.")
    total: int = Field(ge=1, le=MAX_DAYS, description="Days in the calendar.")
    status: DayStatus = Field(description="Where the day is.")
    message: str = Field(description="A status line for the user.")
    postId: str | None = Field(default=None, description="The saved draft; only on completed.")
    source: Source | None = Field(
        default=None,
        description=(
            "Only on generating: where the day's theme came from, the model or the built-in"
            " template that stood in (socialgen's addition)."
        ),
    )

    @model_validator(mode="after")
    def _fields_of_the_status(self) -> Self:
        if (self.postId is not None) != (self.status == "completed"):
            raise ValueError("postId is sent exactly when status is completed")
        if self.source is not None and self.status != "generating":
            raise ValueError("source is sent only when status is generating")
        return self

    def progress(self, tally: Tally) -> str | None:
        tally.total = self.total
        if self.status in ("completed", "failed"):
            tally.done += 1
        return self.message


class CalendarPost(WireObject):
    index: int = Field(ge=1, le=MAX_DAYS, description="The day, 1-based.")
    postId: str = Field(description="The draft.")
    conversationId: str = Field(description="Its conversation.")
    content: str = Field(description="The post's text.")
    theme: str = Field(description="The day's theme.")
    suggestedDate: str = Field(description="ISO 8601 timestamp.")
    status: Literal["draft"] = Field(description="Always draft.")
    source: Source | None = Field(
        default=None,
        description="Where the day's theme came from (socialgen's addition).",
    )


class CalendarComplete(EventPayload):
    """The calendar: the days written, in order."""

    event_name: ClassVar[str] = "calendar_complete"
    examples: ClassVar[tuple[dict[str, Any], ...]] = (
        {
            "success": True,
            "calendarLength": 7,
            "summary": {"total": 7, "generated": 1, "failed": 6},
            "posts": [
                {
                    "index": 1,
                    "postId": "p1",
                    "conversationId": "c1",
                    "content": "Day one.",
                    "theme": "Why weekly",
                    "suggestedDate": "2025-01-02T09:00:00Z",
                    "status": "draft",
                    "source": "template",
                }
            ],
        },
    )
    success: bool = Field(description="True when at least one day was written.")
    calendarLength: CalendarLength = Field(description="Days: 7 or 30.")
    summary: Summary = Field(description="The counts.")
    posts: list[CalendarPost] = Field(max_length=MAX_DAYS, description="The drafts, by day.")

    def reports_failure(self) -> bool:
        return not self.success or self.summary.failed > 0
