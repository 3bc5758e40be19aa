"""The MCP tools of evergreen reposts: set_evergreen (set, change or stop a plan),
list_evergreen (the plans and their runs, each with its own numbers) and
evergreen_candidates (posts worth it). What their endpoints do (api.py), in a worker
thread. Registered by this slice's feature.py."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from pydantic import ConfigDict, Field, StrictBool, StrictInt

from socialgen.app.caller import Caller
from socialgen.kit.errors import BadRequest, NotFound
from socialgen.mcp_server.access import KEY, WRITER, Face
from socialgen.mcp_server.inputs import AnId, InWorkspace, OnePost
from socialgen.mcp_server.tooling import add_tool, hints, in_thread
from socialgen.publishing.evergreen.schemas import (
    CandidatesData,
    EvergreenBody,
    PlansData,
    PlanView,
)
from socialgen.store.engine import read_session, transaction


class SetEvergreenInput(OnePost):
    """The PUT body, or stop: true (the DELETE)."""

    model_config = ConfigDict(strict=True, populate_by_name=True)

    every_days: StrictInt | None = Field(
        default=None, alias="everyDays", ge=1, le=365, description="Days between two runs."
    )
    times: StrictInt | None = Field(default=None, ge=1, le=100, description="At most K runs.")
    until: str | None = Field(
        default=None,
        max_length=64,
        description="No run due after this (ISO 8601, UTC unless an offset; a date: that day).",
    )
    first: str | None = Field(
        default=None, max_length=64, description="When the first run is due (ISO 8601)."
    )
    account_ids: list[str] = Field(
        default_factory=list,
        alias="accountIds",
        max_length=20,
        description="Accounts each run goes to (default: where the post went out).",
    )
    stop: StrictBool = Field(
        default=False, description="Stop the plan: runs not gone out are cancelled."
    )


class ListEvergreenInput(InWorkspace):
    model_config = ConfigDict(strict=True)

    postId: AnId | None = Field(default=None, description="One post's plan; default: all.")


class CandidatesInput(InWorkspace):
    model_config = ConfigDict(strict=True)

    minAgeDays: StrictInt = Field(default=90, ge=0, le=3650, description="Only posts this old.")
    limit: StrictInt = Field(default=20, ge=1, le=100, description="At most this many.")


def register(server: MCPServer[Any], face: Face) -> None:
    async def caller(context: Context[Any, Any], ref: str | None, need: Any) -> Caller:
        return await in_thread(face.caller, context, ref, need)

    async def set_evergreen(context: Context[Any, Any], request: SetEvergreenInput) -> PlanView:
        who = await caller(context, request.workspaceId, WRITER)
        zone = face.runtime(context).settings.timezone
        return await in_thread(_set, who, request, zone)

    async def list_evergreen(context: Context[Any, Any], request: ListEvergreenInput) -> PlansData:
        who = await caller(context, request.workspaceId, KEY)
        return await in_thread(_list, who, request.postId)

    async def evergreen_candidates(
        context: Context[Any, Any], request: CandidatesInput
    ) -> CandidatesData:
        who = await caller(context, request.workspaceId, KEY)
        return await in_thread(_candidates, who, request.minAgeDays, request.limit)

    add_tool(
        server, "set_evergreen", SetEvergreenInput, set_evergreen, PlanView,
        hints(read_only=False, idempotent=True),
        title="Make a post evergreen",
        description="A published post goes out again every everyDays days, each time as a "
        "fresh variation the model writes from it (never the same text twice), at most "
        "`times` times or until `until`, to accountIds (default: the accounts it went out "
        "to). Setting it again changes the plan; stop: true stops it (runs not gone out "
        "are cancelled). Each run is a post of its own with its own numbers (list_evergreen).",
    )  # fmt: skip
    add_tool(
        server, "list_evergreen", ListEvergreenInput, list_evergreen, PlansData,
        hints(read_only=True),
        title="Evergreen posts",
        description="The workspace's evergreen plans (or one post's): when the next run is "
        "due, and each run with its text, its publications and its own likes, reposts and "
        "comments beside the original's.",
    )  # fmt: skip
    add_tool(
        server, "evergreen_candidates", CandidatesInput, evergreen_candidates, CandidatesData,
        hints(read_only=True),
        title="Evergreen candidates",
        description="Published posts worth making evergreen: they beat the creator's usual "
        "clearly (the low end of an interval above 1, all intervals at once at 99%) and are "
        "at least minAgeDays old. withheld says why when the history is too short.",
    )  # fmt: skip


def _set(who: Caller, request: SetEvergreenInput, zone_setting: str | None) -> PlanView:
    from socialgen.config.zone import resolve_zone
    from socialgen.publishing.evergreen.body_terms import terms_of
    from socialgen.publishing.evergreen.plans import set_plan, stop_plan
    from socialgen.publishing.evergreen.views import plan_views

    with transaction(who.engine) as session:
        if request.stop:
            stop_plan(session, who.workspace_id, request.postId)
        else:
            if request.every_days is None:
                raise BadRequest("everyDays is required (or stop: true)")
            body = EvergreenBody.model_validate(
                request.model_dump(by_alias=True, exclude={"workspaceId", "postId", "stop"})
            )
            zone = resolve_zone(None, zone_setting)
            set_plan(session, who.workspace_id, request.postId, terms_of(body), zone)
        (view,) = plan_views(session, who.workspace_id, request.postId)
        return view


def _list(who: Caller, post_id: str | None) -> PlansData:
    from socialgen.posts.service import get_post
    from socialgen.publishing.evergreen.plans import NO_PLAN
    from socialgen.publishing.evergreen.views import plan_views

    with read_session(who.engine) as session:
        if post_id is not None:
            get_post(session, who.workspace_id, post_id)
        plans = plan_views(session, who.workspace_id, post_id)
    if post_id is not None and not plans:
        raise NotFound(NO_PLAN)
    return PlansData(plans=plans)


def _candidates(who: Caller, min_age_days: int, limit: int) -> CandidatesData:
    from socialgen.publishing.evergreen.candidates import candidates

    with read_session(who.engine) as session:
        return candidates(session, who.workspace_id, min_age_days=min_age_days, limit=limit)
