"""The insights report's shape (INSIGHTS_CONTRACT.md), for the OpenAPI document and
the response's validation. TypedDicts: a report carries one series point per post."""

from __future__ import annotations

from typing_extensions import TypedDict


class Baseline(TypedDict):
    median: float  # of log1p(engagement)
    mad: float  # 1.4826 x MAD of the residuals: what scores divide by
    method: str


class SeriesPoint(TypedDict):
    postId: str
    publishedAt: str
    engagement: int
    baseline: float  # the engagement the rolling baseline expected
    relative: float  # multiplier against that baseline
    score: float  # robust z


class Effect(TypedDict):
    feature: str
    effect: float  # multiplier on engagement
    low: float
    high: float
    n: int


class Slot(TypedDict):
    weekday: str
    start: int
    end: int
    score: float
    low: float
    high: float
    n: int


class InsightsReport(TypedDict):
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
    slots: list[Slot]
    bestSlots: list[Slot]


class InsightsResponse(TypedDict):
    success: bool
    data: InsightsReport
