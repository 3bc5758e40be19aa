"""HTTP: evergreen reposts.

    PUT    /api/v1/ai-conversation/post/{workspaceId}/{postId}/evergreen   set or change
    DELETE /api/v1/ai-conversation/post/{workspaceId}/{postId}/evergreen   stop
    GET    /api/v1/ai-conversation/post/{workspaceId}/{postId}/evergreen   the plan, its runs
    GET    /api/v1/ai-conversation/evergreen/{workspaceId}                 every plan
    POST   /api/v1/ai-conversation/evergreen/{workspaceId}/prepare         write due runs now
    GET    /api/v1/insights/{workspaceId}/evergreen                        candidates

Members set, stop and prepare (as they publish); any member of the workspace reads.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Path, Query

from socialgen.http.guard import WorkspaceAccess, WorkspaceGuard
from socialgen.http.request_body import body_cap
from socialgen.http.support import EngineDep, RuntimeDep, error_responses, fails_with
from socialgen.publishing.evergreen.schemas import (
    CandidatesResponse,
    EvergreenBody,
    PlanResponse,
    PlansData,
    PlansResponse,
    PrepareResponse,
)
from socialgen.store.tables import Role

router = APIRouter(tags=["publishing"])

Publisher = Annotated[
    WorkspaceAccess,
    Depends(
        WorkspaceGuard(
            bearer_required=False, roles=frozenset({Role.OWNER, Role.ADMIN, Role.MEMBER})
        )
    ),
]
Member = Annotated[WorkspaceAccess, Depends(WorkspaceGuard(bearer_required=False))]
PostIdPath = Annotated[str, Path(alias="postId")]
PLAN_PATH = "/api/v1/ai-conversation/post/{workspaceId}/{postId}/evergreen"


@router.put(
    PLAN_PATH,
    response_model=PlanResponse,
    responses=error_responses(400, 401, 403, 404, 500),
    dependencies=[body_cap()],
)
@fails_with("Failed to set the evergreen plan")
def set_evergreen(
    caller: Publisher,
    engine: EngineDep,
    runtime: RuntimeDep,
    post_id: PostIdPath,
    body: Annotated[EvergreenBody, Body()],
) -> PlanResponse:
    """Make a published post evergreen (or change its plan): it goes out again every
    everyDays days as a fresh variation the model writes, at most `times` times or
    until `until`, to accountIds (default: where it went out)."""
    from socialgen.config.zone import resolve_zone
    from socialgen.publishing.evergreen.body_terms import terms_of
    from socialgen.publishing.evergreen.plans import set_plan
    from socialgen.publishing.evergreen.views import plan_views
    from socialgen.store.engine import transaction

    zone = resolve_zone(None, runtime.settings.timezone)
    with transaction(engine) as session:
        set_plan(session, caller.workspace_id, post_id, terms_of(body), zone)
        (view,) = plan_views(session, caller.workspace_id, post_id)
    return PlanResponse(success=True, data=view)


@router.delete(
    PLAN_PATH, response_model=PlanResponse, responses=error_responses(401, 403, 404, 500)
)
@fails_with("Failed to stop the evergreen plan")
def stop_evergreen(caller: Publisher, engine: EngineDep, post_id: PostIdPath) -> PlanResponse:
    """Stop the plan: the runs that have not gone out are cancelled."""
    from socialgen.publishing.evergreen.plans import stop_plan
    from socialgen.publishing.evergreen.views import plan_views
    from socialgen.store.engine import transaction

    with transaction(engine) as session:
        stop_plan(session, caller.workspace_id, post_id)
        (view,) = plan_views(session, caller.workspace_id, post_id)
    return PlanResponse(success=True, data=view)


@router.get(PLAN_PATH, response_model=PlanResponse, responses=error_responses(401, 403, 404, 500))
@fails_with("Failed to retrieve the evergreen plan")
def get_evergreen(caller: Member, engine: EngineDep, post_id: PostIdPath) -> PlanResponse:
    """The post's plan and its runs, each run with its own post and numbers."""
    from socialgen.kit.errors import NotFound
    from socialgen.posts.service import get_post
    from socialgen.publishing.evergreen.plans import NO_PLAN
    from socialgen.publishing.evergreen.views import plan_views
    from socialgen.store.engine import read_session

    with read_session(engine) as session:
        get_post(session, caller.workspace_id, post_id)  # "Post not found" first
        views = plan_views(session, caller.workspace_id, post_id)
    if not views:
        raise NotFound(NO_PLAN)
    return PlanResponse(success=True, data=views[0])


@router.get(
    "/api/v1/ai-conversation/evergreen/{workspaceId}",
    response_model=PlansResponse,
    responses=error_responses(401, 403, 500),
)
@fails_with("Failed to retrieve the evergreen plans")
def list_evergreen(caller: Member, engine: EngineDep) -> PlansResponse:
    """Every evergreen plan of the workspace, the next run first."""
    from socialgen.publishing.evergreen.views import plan_views
    from socialgen.store.engine import read_session

    with read_session(engine) as session:
        plans = plan_views(session, caller.workspace_id)
    return PlansResponse(success=True, data=PlansData(plans=plans))


@router.post(
    "/api/v1/ai-conversation/evergreen/{workspaceId}/prepare",
    response_model=PrepareResponse,
    responses=error_responses(401, 403, 500),
)
async def prepare_evergreen(
    caller: Publisher, engine: EngineDep, runtime: RuntimeDep
) -> PrepareResponse:
    """Write the workspace's runs due within a day now (serve's scheduler does it every
    minute; this does not wait out the pause after a refused variation). On the app's
    own loop, as the generation streams call the model; the store off it."""
    from socialgen.publishing.evergreen.prepare import prepare_due
    from socialgen.publishing.outbox.claim import worker_name

    data = await prepare_due(
        engine,
        runtime.text_model,
        worker=worker_name("api"),
        max_tokens=runtime.settings.max_tokens,
        workspace_id=caller.workspace_id,
        force=True,
    )
    return PrepareResponse(success=True, data=data)


@router.get(
    "/api/v1/insights/{workspaceId}/evergreen",
    response_model=CandidatesResponse,
    responses=error_responses(400, 401, 403, 500),
    tags=["insights"],
)
@fails_with("Failed to find evergreen candidates")
def evergreen_candidates(
    caller: Member,
    engine: EngineDep,
    min_age_days: Annotated[
        int, Query(alias="minAgeDays", ge=0, le=3650, description="Only posts this old.")
    ] = 90,
    limit: Annotated[int, Query(ge=1, le=100, description="At most this many posts.")] = 20,
) -> CandidatesResponse:
    """Published posts that beat the creator's usual clearly (the interval's low end
    above 1, all intervals at once at 99%), older than minAgeDays; withheld below 30
    measured posts."""
    from socialgen.publishing.evergreen.candidates import candidates
    from socialgen.store.engine import read_session

    with read_session(engine) as session:
        data = candidates(session, caller.workspace_id, min_age_days=min_age_days, limit=limit)
    return CandidatesResponse(success=True, data=data)
