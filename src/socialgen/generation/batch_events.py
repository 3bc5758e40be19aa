"""The batch stream: five variations (or the drafts being regenerated) written at once,
each reported as it starts and ends, then the whole result."""

from __future__ import annotations

from typing import Any, ClassVar, Literal, Self

from pydantic import Field, model_validator

from socialgen.events.common import Summary
from socialgen.events.payload import EventPayload, Tally, WireObject

BATCH_SIZE = 5  # SPEC.md: a batch is 5 variations; a regeneration at most 5 drafts
BatchStatus = Literal["generating", "completed", "failed"]


class BatchProgress(EventPayload):
    """Sent before and after each post."""

    event_name: ClassVar[str] = "batch_progress"
    examples: ClassVar[tuple[dict[str, Any], ...]] = (
        {"current": 1, "total": 2, "variationName": "Story-driven", "status": "generating"},
        {
            "current": 1,
            "total": 2,
            "variationName": "Story-driven",
            "status": "completed",
            "postId": "p1",
        },
        {
            "current": 2,
            "total": 2,
            "variationName": "Educational",
            "status": "failed",
            "error": "The model timed out",
        },
    )
    current: int = Field(ge=1, le=BATCH_SIZE, description="The post's 1-based index.")
    total: int = Field(ge=1, le=BATCH_SIZE, description="How many posts the batch writes.")
    variationName: str = Field(description="e.g. Story-driven.")
    status: BatchStatus = Field(description="Where it is.")
    postId: str | None = Field(default=None, description="The saved draft; only on completed.")
    error: str | None = Field(
        default=None, description="Why it failed; only on failed (socialgen's addition)."
    )

    def progress(self, tally: Tally) -> str | None:
        tally.total = self.total
        if self.status != "generating":
            tally.done += 1
        return f"{self.variationName}: {self.status}"

    @model_validator(mode="after")
    def _fields_of_the_status(self) -> Self:
        if (self.postId is not None) != (self.status == "completed"):
            raise ValueError("postId is sent exactly when status is completed")
        if (self.error is not None) != (self.status == "failed"):
            raise ValueError("error is sent exactly when status is failed")
        return self


class NumberedPostIds(EventPayload):
    """Sent as each post is saved; N is its 1-based index (post_1_post_ids …). SPEC.md
    does not show the fields."""

    event_name: ClassVar[str] = "post_{N}_post_ids"
    max_index: ClassVar[int] = BATCH_SIZE  # N: a 1-based index in the batch
    examples: ClassVar[tuple[dict[str, Any], ...]] = (
        {"postId": "p1", "conversationId": "c1", "variationName": "Story-driven"},
    )
    postId: str = Field(description="The saved draft.")
    conversationId: str = Field(description="Its conversation.")
    variationName: str = Field(description="Its variation.")


class BatchPost(WireObject):
    index: int = Field(ge=1, le=BATCH_SIZE, description="1-based.")
    postId: str = Field(description="The draft.")
    conversationId: str = Field(description="Its conversation.")
    content: str = Field(description="The post's text.")
    variationName: str = Field(description="Its variation.")
    status: Literal["draft"] = Field(description="Always draft.")


class BatchFailure(WireObject):
    index: int = Field(ge=1, le=BATCH_SIZE, description="The failed post's index.")
    variationName: str = Field(description="Its variation.")
    message: str = Field(description="Why it failed.")


class BatchRanking(WireObject):
    """The drafts in the order the creator's ranker predicts (docs/insights.md)."""

    order: list[str] = Field(
        max_length=BATCH_SIZE, description="Post ids, likeliest to do well first."
    )
    scores: dict[str, float] = Field(
        description="Post id -> the chance it beats the creator's typical recent post (0 to 1)."
    )
    heldOutAccuracy: float = Field(
        ge=0, le=1, description="Share of the creator's latest post pairs the ranker ordered right."
    )
    pairs: int = Field(ge=0, description="How many pairs heldOutAccuracy was measured on.")


class BatchComplete(EventPayload):
    """The batch's result; a chat_delta summing it up follows."""

    event_name: ClassVar[str] = "batch_complete"
    examples: ClassVar[tuple[dict[str, Any], ...]] = (
        {
            "success": True,
            "originalPrompt": "ship weekly",
            "isRegeneration": False,
            "posts": [
                {
                    "index": 1,
                    "postId": "p1",
                    "conversationId": "c1",
                    "content": "Small teams ship weekly.",
                    "variationName": "Story-driven",
                    "status": "draft",
                }
            ],
            "errors": [{"index": 2, "variationName": "Educational", "message": "timed out"}],
            "summary": {"total": 2, "generated": 1, "failed": 1},
        },
        {
            "success": True,
            "originalPrompt": "ship weekly",
            "isRegeneration": False,
            "posts": [
                {
                    "index": 1,
                    "postId": "p1",
                    "conversationId": "c1",
                    "content": "Small teams ship weekly.",
                    "variationName": "Story-driven",
                    "status": "draft",
                },
                {
                    "index": 2,
                    "postId": "p2",
                    "conversationId": "c2",
                    "content": "Small teams ship weekly.",
                    "variationName": "Story-driven",
                    "status": "draft",
                },
            ],
            "errors": [],
            "summary": {"total": 2, "generated": 2, "failed": 0},
            "ranking": {
                "order": ["p2", "p1"],
                "scores": {"p2": 0.61, "p1": 0.48},
                "heldOutAccuracy": 0.63,
                "pairs": 412,
            },
        },
    )
    success: bool = Field(description="True when at least one post was written.")
    originalPrompt: str = Field(description="The userInput.")
    isRegeneration: bool = Field(description="True when postIds were given.")
    posts: list[BatchPost] = Field(max_length=BATCH_SIZE, description="The drafts, by index.")
    errors: list[BatchFailure] = Field(description="The posts that failed, by index.")
    summary: Summary = Field(description="The counts.")
    ranking: BatchRanking | None = Field(
        default=None,
        description="socialgen's addition, only when the creator's ranker is confident: "
        "the drafts' predicted order and scores.",
    )

    def reports_failure(self) -> bool:
        return not self.success or self.summary.failed > 0
