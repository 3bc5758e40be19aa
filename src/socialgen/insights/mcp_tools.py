"""insights and rank_drafts: what works in the workspace's own published posts and when
to post, as `socialgen insights --json` and GET /api/v1/insights/{workspaceId} answer it
(by default without its per-post series and every slot: insights/summary.py), and
drafts ranked as `socialgen insights rank` and POST .../rank rank them."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import ConfigDict, Field, StrictStr

from socialgen.app.caller import Caller
from socialgen.insights.schemas import RankedDrafts
from socialgen.insights.summary import EXAMPLE_POSTS, InsightsAnswer
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
    detail: bool = Field(
        default=False,
        description="Also every measured post's engagement (series) and every weekday "
        "slot (slots): the whole report, as `socialgen insights --json` prints it. Large: "
        "about 400 bytes a post.",
    )


class RankDraftsInput(InWorkspace):
    model_config = ConfigDict(strict=True)

    postIds: list[AnId] = Field(
        min_length=1,
        max_length=MAX_RANKED_POSTS,
        description=f"The posts to rank (drafts, usually), at most {MAX_RANKED_POSTS}.",
    )


def register(server: MCPServer[Any], face: Face) -> None:
    async def insights(context: Context[Any, Any], request: InsightsInput) -> InsightsAnswer:
        who = await in_thread(face.caller, context, request.workspaceId, KEY)
        zone = request.tz if request.tz is not None else face.runtime(context).settings.timezone
        return await in_thread(_report, who, request.days, zone, request.detail)

    async def rank_drafts(context: Context[Any, Any], request: RankDraftsInput) -> RankedDrafts:
        who = await in_thread(face.caller, context, request.workspaceId, KEY)
        return await in_thread(_rank, who, request.postIds)

    add_tool(
        server, "insights", InsightsInput, insights, InsightsAnswer, hints(read_only=True),
        title="What works, and when",
        description="What helps or hurts engagement in the workspace's own measured "
        "published posts, each finding a multiplier on the creator's usual with its "
        "interval (none before `floor` posts; the inconclusive and the untested features "
        "apart), the best weekday slots to post in `timezone`, and the "
        f"{EXAMPLE_POSTS} posts that beat their usual most, with their text. detail: true "
        "adds every post's engagement and every slot (large). Reads only.",
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


def _report(who: Caller, days: int | None, zone: str | None, detail: bool) -> InsightsAnswer:
    from socialgen.insights.report import build_report
    from socialgen.insights.summary import summarise

    with read_session(who.engine) as session:
        report = build_report(session, who.workspace_id, days, zone)
        return summarise(session, who.workspace_id, report, detail=detail)
