"""HTTP: a post's follow-ups, its first comment and its plug (publishing/followups/).

GET    /api/v1/ai-conversation/post/{workspaceId}/{postId}/followups
PUT    /api/v1/ai-conversation/post/{workspaceId}/{postId}/followups/first-comment
PUT    /api/v1/ai-conversation/post/{workspaceId}/{postId}/followups/plug
DELETE /api/v1/ai-conversation/post/{workspaceId}/{postId}/followups/first-comment|plug

Each answers the post's follow-ups with their state under every publication (a
DELETE, whether there was one). Members set them, as they publish.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Path

from socialgen.http.guard import WorkspaceAccess, WorkspaceGuard
from socialgen.http.request_body import body_cap
from socialgen.http.support import EngineDep, error_responses, fails_with
from socialgen.publishing.followups.schemas import (
    FIRST_COMMENT,
    PLUG,
    FirstCommentBody,
    FollowupsResponse,
    PlugBody,
    RemovedData,
    RemovedResponse,
)
from socialgen.store.tables import FollowupKind, Role

router = APIRouter(prefix="/api/v1/ai-conversation", tags=["publishing"])

Member = Annotated[
    WorkspaceAccess,
    Depends(
        WorkspaceGuard(
            bearer_required=False, roles=frozenset({Role.OWNER, Role.ADMIN, Role.MEMBER})
        )
    ),
]
PostIdPath = Annotated[str, Path(alias="postId")]
KINDS = {FIRST_COMMENT: FollowupKind.FIRST_COMMENT, PLUG: FollowupKind.TAKEOFF_REPLY}


@router.get(
    "/post/{workspaceId}/{postId}/followups",
    response_model=FollowupsResponse,
    responses=error_responses(401, 403, 404, 500),
)
@fails_with("Failed to retrieve follow-ups")
def get_followups(caller: Member, engine: EngineDep, post_id: PostIdPath) -> FollowupsResponse:
    """The post's first comment and plug, each with its state under every publication."""
    from socialgen.publishing.followups.views import followups_data
    from socialgen.store.engine import read_session

    with read_session(engine) as session:
        data = followups_data(session, caller.workspace_id, post_id)
    return FollowupsResponse(success=True, data=data)


@router.put(
    "/post/{workspaceId}/{postId}/followups/first-comment",
    response_model=FollowupsResponse,
    responses=error_responses(400, 401, 403, 404, 500),
    dependencies=[body_cap()],
)
@fails_with("Failed to set the first comment")
def put_first_comment(
    caller: Member,
    engine: EngineDep,
    post_id: PostIdPath,
    body: Annotated[FirstCommentBody, Body()],
) -> FollowupsResponse:
    """Set (or change) the comment posted under the post once it is live, on every
    account that can take it, `delaySeconds` later."""
    from socialgen.publishing.followups.service import set_first_comment
    from socialgen.publishing.followups.views import followups_data
    from socialgen.store.engine import transaction

    with transaction(engine) as session:
        set_first_comment(
            session,
            caller.workspace_id,
            post_id,
            body.text,
            body.delay_seconds,
            retry=body.retry,
        )
        data = followups_data(session, caller.workspace_id, post_id)
    return FollowupsResponse(success=True, data=data)


@router.put(
    "/post/{workspaceId}/{postId}/followups/plug",
    response_model=FollowupsResponse,
    responses=error_responses(400, 401, 403, 404, 500),
    dependencies=[body_cap()],
)
@fails_with("Failed to set the plug")
def put_plug(
    caller: Member, engine: EngineDep, post_id: PostIdPath, body: Annotated[PlugBody, Body()]
) -> FollowupsResponse:
    """Set (or change) the reply posted once under a publication that reaches
    `afterLikes` likes."""
    from socialgen.publishing.followups.service import set_plug
    from socialgen.publishing.followups.views import followups_data
    from socialgen.store.engine import transaction

    with transaction(engine) as session:
        set_plug(
            session, caller.workspace_id, post_id, body.text, body.after_likes, retry=body.retry
        )
        data = followups_data(session, caller.workspace_id, post_id)
    return FollowupsResponse(success=True, data=data)


def _remove(engine: Any, workspace_id: str, post_id: str, kind: str) -> RemovedResponse:
    from socialgen.publishing.followups.service import remove_followup
    from socialgen.store.engine import transaction

    with transaction(engine) as session:
        removed = remove_followup(session, workspace_id, post_id, KINDS[kind])
    return RemovedResponse(
        success=True, data=RemovedData(postId=post_id, kind=kind, removed=removed)
    )


# Two paths, not one `{kind}`: each is the PUT's own path, so every method a path has
# is declared (an undeclared one is a 405).
@router.delete(
    f"/post/{{workspaceId}}/{{postId}}/followups/{FIRST_COMMENT}",
    response_model=RemovedResponse,
    responses=error_responses(401, 403, 404, 409, 500),
)
@fails_with("Failed to remove the follow-up")
def delete_first_comment(caller: Member, engine: EngineDep, post_id: PostIdPath) -> RemovedResponse:
    """Drop the post's first comment (what is live on the networks stays)."""
    return _remove(engine, caller.workspace_id, post_id, FIRST_COMMENT)


@router.delete(
    f"/post/{{workspaceId}}/{{postId}}/followups/{PLUG}",
    response_model=RemovedResponse,
    responses=error_responses(401, 403, 404, 409, 500),
)
@fails_with("Failed to remove the follow-up")
def delete_plug(caller: Member, engine: EngineDep, post_id: PostIdPath) -> RemovedResponse:
    """Drop the post's plug (what is live on the networks stays)."""
    return _remove(engine, caller.workspace_id, post_id, PLUG)
