"""The insights an assistant reads by default (the MCP tool `insights`): what the report
concludes, without what it concludes from.

The full report carries one series point per published post and every weekday slot:
on two years of history (293 posts) one call came to 128 KB, most of an assistant's
context spent on numbers it cannot use. The summary keeps the findings (and the
inconclusive and untested features), the best slots and a few example posts with
their text, the posts that beat their usual most: a few KB whatever the history's
length. `detail` gives the whole report as well.
"""

from __future__ import annotations

from pydantic import MISSING, Field
from sqlmodel import Session

from socialgen.insights import repository
from socialgen.insights.schemas import InsightsReport, SeriesPoint, Slot
from socialgen.kit.views import View

EXAMPLE_POSTS = 3
EXCERPT_CHARS = 280  # enough of a post to see its hook and shape
LEFT_OUT = (
    "series (one point per post) and slots (every weekday and time of day) are left "
    "out: ask with detail: true for them"
)


class ExamplePost(View):
    postId: str
    publishedAt: str
    engagement: int
    relative: float = Field(description="Its engagement as a multiple of the creator's usual.")
    excerpt: str = Field(description=f"Its text, cut at {EXCERPT_CHARS} characters.")


class InsightsAnswer(InsightsReport):
    """The report without its bulk unless asked for, plus example posts."""

    series: list[SeriesPoint] | MISSING = Field(  # type: ignore[assignment]
        default=MISSING, description="Every measured post's engagement: only with detail."
    )
    slots: list[Slot] | MISSING = Field(  # type: ignore[assignment]
        default=MISSING, description="Every weekday slot's score: only with detail."
    )
    examplePosts: list[ExamplePost] = Field(
        description=f"The {EXAMPLE_POSTS} posts that beat their usual most, best first."
    )
    leftOut: str | MISSING = Field(
        default=MISSING, description="What the answer leaves out, and how to ask for it."
    )


def summarise(
    session: Session, workspace_id: str, report: InsightsReport, *, detail: bool
) -> InsightsAnswer:
    best = sorted(report.series, key=lambda point: (-point.relative, point.postId))
    best = best[:EXAMPLE_POSTS]
    texts = {
        post.id: post.content
        for post in repository.posts_in(session, workspace_id, [point.postId for point in best])
    }
    examples = [
        ExamplePost(
            postId=point.postId,
            publishedAt=point.publishedAt,
            engagement=point.engagement,
            relative=point.relative,
            excerpt=_excerpt(texts.get(point.postId, "")),
        )
        for point in best
    ]
    fields = dict(report)
    if not detail:
        fields.pop("series")
        fields.pop("slots")
        fields["leftOut"] = LEFT_OUT
    return InsightsAnswer.model_validate({**fields, "examplePosts": examples})


def _excerpt(text: str) -> str:
    """The post's words on one line, cut at a word where it can be."""
    flat = " ".join(text.split())
    if len(flat) <= EXCERPT_CHARS:
        return flat
    cut = flat[: EXCERPT_CHARS - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > EXCERPT_CHARS // 2 else cut) + "…"
