"""POST /api/v1/insights/{workspaceId}/rank: drafts ranked by the creator's own history
(any member of the workspace). Mounted by insights/feature.py."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar

from fastapi import APIRouter, Body, Depends
from pydantic import Field

from socialgen.http.guard import WorkspaceAccess, WorkspaceGuard
from socialgen.http.request_body import body_cap
from socialgen.http.support import EngineDep, RuntimeDep, error_responses, fails_with
from socialgen.insights.schemas import RankResponse
from socialgen.kit.body_fields import CheckedBody, ShownAs
from socialgen.kit.errors import BadRequest
from socialgen.kit.limits import MAX_RANKED_POSTS
from socialgen.store.engine import read_session

router = APIRouter(prefix="/api/v1/insights", tags=["insights"])

Member = Annotated[WorkspaceAccess, Depends(WorkspaceGuard(bearer_required=False))]
POST_IDS_REQUIRED = "postIds must be a non-empty array of post ids"
# What the endpoint accepts, documented (the body takes any value; one message refuses it).
PostIds = Annotated[
    list[Annotated[str, Field(min_length=1)]], Field(min_length=1, max_length=MAX_RANKED_POSTS)
]


class RankBody(CheckedBody):
    missing_body: ClassVar[str] = POST_IDS_REQUIRED

    # Any: the endpoint words the refusal of a wrong type itself (one message).
    postIds: Annotated[Any, ShownAs(PostIds, required=True)] = Field(
        default=None, description=f"The posts to rank, at most {MAX_RANKED_POSTS}."
    )


@router.post(
    "/{workspaceId}/rank", responses=error_responses(400, 401, 403, 404), dependencies=[body_cap()]
)
@fails_with("Failed to rank posts")
def rank(
    caller: Member, engine: EngineDep, runtime: RuntimeDep, body: Annotated[RankBody, Body()]
) -> RankResponse:
    """The posts best first, each with `score` (the chance it beats your typical recent
    post), `confident`, `heldOutAccuracy` (share of your latest posts' pairs the ranker
    ordered right, 0.5 is chance; null without enough history), `pairs` (how many it
    was measured on) and `posts` (published posts it learnt from)."""
    from socialgen.insights.ranking import rank_posts

    post_ids = body.postIds
    if not isinstance(post_ids, list) or not all(
        isinstance(post_id, str) and post_id for post_id in post_ids
    ):
        raise BadRequest(POST_IDS_REQUIRED)
    with read_session(engine) as session:
        data = rank_posts(session, caller.workspace_id, post_ids, runtime.held.rankers)
    return RankResponse(success=True, data=data)
