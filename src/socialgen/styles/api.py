"""HTTP endpoints for content styles (/api/v1/content-styles)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Path, Query
from pydantic import Field

from socialgen.http.body_models import BodyModel, HttpUrlText, reads
from socialgen.http.guard import WorkspaceAccess, WorkspaceGuard
from socialgen.http.request_body import body_cap
from socialgen.http.support import EngineDep, SettingsDep, error_responses, fails_with
from socialgen.kit.errors import BadRequest
from socialgen.kit.limits import STYLE_FROM_TOP
from socialgen.store.engine import read_session, transaction
from socialgen.styles import service
from socialgen.styles.from_top import teach_from_top
from socialgen.styles.schemas import (
    CreateStyleBody,
    StyleListResponse,
    StylePostBody,
    StylePostResponse,
    StylePostsBody,
    StylePostsResponse,
    StyleResponse,
    UpdateStyleBody,
)

router = APIRouter(prefix="/api/v1/content-styles", tags=["content styles"])

# GET get-posts-from-social-profile: its query, read by the same model that documents
# it; a missing or blank profileUrl gets SPEC.md's message.
PROFILE_URL_REQUIRED = "The profile URL is required as a query parameter (profileUrl)"


def _profile_url(value: Any, _form: bool) -> str:
    if not isinstance(value, str) or not value.strip():
        raise BadRequest(PROFILE_URL_REQUIRED)
    return value


class ProfileQuery(BodyModel):
    profileUrl: Annotated[HttpUrlText, reads(_profile_url)] = Field(
        description="Full profile URL (public http or https)."
    )


Caller = Annotated[WorkspaceAccess, Depends(WorkspaceGuard(bearer_required=False))]
StyleId = Annotated[str, Path(alias="styleId")]
StylePostId = Annotated[str, Path(alias="postId")]


@router.get(
    "/{workspaceId}/get-posts-from-social-profile",
    responses=error_responses(400, 401, 403, 422),
)
async def get_posts_from_social_profile(
    caller: Caller, settings: SettingsDep, query: Annotated[ProfileQuery, Query()]
) -> dict[str, Any]:
    """Posts found on a profile (feeds, Mastodon, Bluesky, h-entry pages, LinkedIn
    through a configured endpoint), newest first."""
    from socialgen.sources.profiles import import_profile_posts

    profile_url = query.profileUrl
    posts = await import_profile_posts(profile_url, settings)
    return {"success": True, "data": [{"content": p.content, "date": p.date} for p in posts]}


@router.post(
    "/{workspaceId}",
    status_code=201,
    responses=error_responses(400, 401, 403),
    dependencies=[body_cap()],
)
@fails_with("Failed to create content style")
def create_style(
    caller: Caller, engine: EngineDep, body: Annotated[CreateStyleBody, Body()]
) -> StyleResponse:
    """A style; with fromTop, taught at once with the workspace's best posts."""
    if body.fromTop is not None:
        STYLE_FROM_TOP.check(body.fromTop)  # before the store
    with transaction(engine) as session:
        style = service.create_style(
            session, caller.workspace_id, body.name, body.description, user_id=caller.user_id
        )
        if body.fromTop is not None:
            teach_from_top(session, caller.workspace_id, style, body.fromTop, asked_as="fromTop")
        data = service.style_view(session, style)
    return StyleResponse(success=True, data=data)


@router.get("/{workspaceId}", responses=error_responses(401, 403))
@fails_with("Failed to list content styles")
def list_styles(caller: Caller, engine: EngineDep) -> StyleListResponse:
    with read_session(engine) as session:
        data = service.style_views(session, service.list_styles(session, caller.workspace_id))
    return StyleListResponse(success=True, count=len(data), data=data)


@router.get("/{workspaceId}/{styleId}", responses=error_responses(401, 403, 404))
@fails_with("Failed to get content style")
def get_style(caller: Caller, engine: EngineDep, style_id: StyleId) -> StyleResponse:
    with read_session(engine) as session:
        data = service.style_view(
            session, service.get_style(session, caller.workspace_id, style_id)
        )
    return StyleResponse(success=True, data=data)


@router.put(
    "/{workspaceId}/{styleId}",
    responses=error_responses(400, 401, 403, 404),
    dependencies=[body_cap()],
)
@fails_with("Failed to update content style")
def update_style(
    caller: Caller,
    engine: EngineDep,
    style_id: StyleId,
    body: Annotated[UpdateStyleBody, Body()],
) -> StyleResponse:
    with transaction(engine) as session:
        style = service.update_style(
            session, caller.workspace_id, style_id, name=body.name, description=body.description
        )
        data = service.style_view(session, style)
    return StyleResponse(success=True, data=data)


@router.delete("/{workspaceId}/{styleId}", responses=error_responses(401, 403, 404))
@fails_with("Failed to delete content style")
def delete_style(caller: Caller, engine: EngineDep, style_id: StyleId) -> dict[str, Any]:
    with transaction(engine) as session:
        service.delete_style(session, caller.workspace_id, style_id)
    return {"success": True, "data": {}}


@router.post(
    "/{workspaceId}/{styleId}/posts",
    status_code=201,
    responses=error_responses(400, 401, 403, 404),
    dependencies=[body_cap()],
)
@fails_with("Failed to add posts to content style")
def add_style_posts(
    caller: Caller,
    engine: EngineDep,
    style_id: StyleId,
    body: Annotated[StylePostsBody, Body()],
) -> StylePostsResponse:
    """Add up to 5 example posts; the style is trained on all its examples."""
    with transaction(engine) as session:
        added = service.add_posts(session, caller.workspace_id, style_id, body.posts)
        data = [service.post_view(post) for post in added]
    return StylePostsResponse(success=True, count=len(data), data=data)


@router.put(
    "/{workspaceId}/{styleId}/posts/{postId}",
    responses=error_responses(400, 401, 403, 404),
    dependencies=[body_cap()],
)
@fails_with("Failed to update style post")
def update_style_post(
    caller: Caller,
    engine: EngineDep,
    style_id: StyleId,
    post_id: StylePostId,
    body: Annotated[StylePostBody, Body()],
) -> StylePostResponse:
    with transaction(engine) as session:
        post = service.update_post(session, caller.workspace_id, style_id, post_id, body.content)
        data = service.post_view(post)
    return StylePostResponse(success=True, data=data)


@router.delete("/{workspaceId}/{styleId}/posts/{postId}", responses=error_responses(401, 403, 404))
@fails_with("Failed to delete style post")
def delete_style_post(
    caller: Caller, engine: EngineDep, style_id: StyleId, post_id: StylePostId
) -> dict[str, Any]:
    with transaction(engine) as session:
        service.delete_post(session, caller.workspace_id, style_id, post_id)
    return {"success": True, "data": {}}
