"""insights and rank_drafts: what works in the workspace's own published posts and when to post, as
`socialgen insights --json` and GET /api/v1/insights/{workspaceId} answer it, and
drafts ranked as `socialgen insights rank` and POST .../rank rank them."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import ConfigDict, Field, StrictStr

from socialgen.app.caller import Caller
from socialgen.insights.schemas import InsightsReport, RankedDrafts
from socialgen.kit.limits import MAX_RANKED_POSTS
from socialgen.mcp_server.access import KEY, Face
from socialgen.mcp_server.inputs import AnId, InWorkspace
from socialgen.mcp_server.tooling import add_tool, hints, in_thread
from socialgen.store.engine import read_session


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


def register(server: MCPServer[Any], face: Face) -> None:
    async def insights(context: Context[Any, Any], request: InsightsInput) -> InsightsReport:
        who = await in_thread(face.caller, context, request.workspaceId, KEY)
        zone = request.tz if request.tz is not None else face.runtime(context).settings.timezone
        return await in_thread(_report, who, request.days, zone)

    async def rank_drafts(context: Context[Any, Any], request: RankDraftsInput) -> RankedDrafts:
        who = await in_thread(face.caller, context, request.workspaceId, KEY)
        return await in_thread(_rank, who, request.postIds)

    add_tool(
        server, "insights", InsightsInput, insights, InsightsReport, hints(read_only=True),
        title="What works, and when",
        description="Engagement of the published posts relative to the creator's own "
        "baseline, findings with their intervals (what helps or hurts, from 30 measured "
        "posts on; the inconclusive ones apart), the week's slots and the best ones.",
    )  # fmt: skip
    add_tool(
        server, "rank_drafts", RankDraftsInput, rank_drafts, RankedDrafts,
        hints(read_only=True),
        title="Which draft first",
        description="Drafts ranked by the creator's own history: best first, each with the "
        "chance it beats a typical recent post, and how far to trust the order "
        "(confident, heldOutAccuracy).",
    )  # fmt: skip


def _rank(who: Caller, post_ids: list[str]) -> RankedDrafts:
    from socialgen.insights.ranking import rank_posts

    with read_session(who.engine) as session:
        return rank_posts(session, who.workspace_id, post_ids, who.rankers)


def _report(who: Caller, days: int | None, zone: str | None) -> InsightsReport:
    from socialgen.insights.report import build_report

    with read_session(who.engine) as session:
        return build_report(session, who.workspace_id, days, zone)
