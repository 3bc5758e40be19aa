"""The insights report's shape (INSIGHTS_CONTRACT.md) and the ranked drafts': the
views `socialgen insights --json`, the endpoints and the MCP tools give alike."""

from __future__ import annotations

from pydantic import Field

from socialgen.kit.views import View


class Baseline(View):
    median: float  # of log1p(engagement)
    mad: float  # 1.4826 x MAD of the residuals: what scores divide by
    method: str


class SeriesPoint(View):
    postId: str
    publishedAt: str
    engagement: int
    baseline: float  # the engagement the rolling baseline expected
    relative: float  # multiplier against that baseline
    score: float  # robust z


class Effect(View):
    feature: str
    effect: float  # multiplier on engagement
    low: float
    high: float
    n: int


class Untested(View):
    feature: str
    n: int = Field(description="Posts with the feature.")
    reason: str = Field(description='Why it could not be tested ("no post has it").')


class Slot(View):
    weekday: str
    start: int
    end: int
    score: float
    low: float
    high: float
    n: int


class InsightsReport(View):
    workspaceId: str
    generatedAt: str
    days: int | None
    timezone: str
    posts: int
    floor: int
    enough: bool
    needMore: int
    baseline: Baseline
    series: list[SeriesPoint]
    findings: list[Effect]
    inconclusive: list[Effect]
    untested: list[Untested] = Field(
        default_factory=list,
        description="Features the posts could not test (no variation, too few on a side).",
    )
    slots: list[Slot]
    bestSlots: list[Slot]


class InsightsResponse(View):
    success: bool
    data: InsightsReport


class RankedPost(View):
    postId: str
    score: float = Field(description="The chance it beats the creator's typical recent post.")


class RankedDrafts(View):
    ranked: list[RankedPost] = Field(description="Best first.")
    confident: bool = Field(description="Whether the order is worth following.")
    heldOutAccuracy: float | None = Field(
        description="Share of the latest posts' pairs ordered right (0.5 is chance); null "
        "without enough history."
    )
    pairs: int = Field(description="How many pairs that was measured on.")
    posts: int = Field(description="Published posts the ranker learnt from.")


class RankResponse(View):
    success: bool
    data: RankedDrafts
