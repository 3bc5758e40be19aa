"""HTTP endpoints for posts and conversations (/api/v1/ai-conversation)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Body, Depends, Path, Query, Response
from pydantic import Field
from pydantic_core import to_json

from socialgen.http.guard import ACCESS_DENIED, WorkspaceAccess, WorkspaceGuard
from socialgen.http.request_body import body_cap
from socialgen.http.support import EngineDep, FilesDep, error_responses, fails_with
from socialgen.kit.body_fields import ShownAs
from socialgen.kit.limits import DEFAULT_PAGE, DEFAULT_PAGE_LIMIT, PAGE, PAGE_LIMIT, POST_LIST_LIMIT
from socialgen.posts import listing, service
from socialgen.posts.cursor import CURSOR_PATTERN
from socialgen.posts.post_filter import MAX_SEARCH_CHARS, PostFilter, make_filter
from socialgen.posts.removal import remove_post
from socialgen.posts.schemas import (
    ConversationListResponse,
    DeletePostResponse,
    PostListResponse,
    UpdatedPost,
    UpdatePostBody,
    UpdatePostResponse,
)
from socialgen.posts.views import PostListJson
from socialgen.store.engine import read_session, transaction

router = APIRouter(prefix="/api/v1/ai-conversation", tags=["posts and conversations"])

MemberWithBearer = Annotated[WorkspaceAccess, Depends(WorkspaceGuard(bearer_required=True))]
RecentPostsCaller = Annotated[
    WorkspaceAccess, Depends(WorkspaceGuard(bearer_required=True, forbidden_message=ACCESS_DENIED))
]
WorkspaceCaller = Annotated[WorkspaceAccess, Depends(WorkspaceGuard(bearer_required=False))]
PostIdPath = Annotated[str, Path(alias="postId")]
# Optional paging of the two post listings; without both, SPEC.md's response as is.
ListLimit = Annotated[
    int | None,
    Query(
        ge=POST_LIST_LIMIT.low,
        le=POST_LIST_LIMIT.high,
        description="At most this many posts (latest first); the answer then carries "
        "nextCursor. Without limit and cursor: the whole window, as SPEC.md shapes it.",
    ),
]
ListCursor = Annotated[
    str | None,
    # Documented, checked by posts.cursor (one message for the CLI and the API).
    ShownAs(Annotated[str, Field(pattern=CURSOR_PATTERN)] | None),
    Query(
        description="The nextCursor of the previous page: the posts after it (ask with the "
        "same filters)."
    ),
]
# Optional filters (additions to SPEC.md), checked by posts.post_filter with the CLI's
# messages; a time without an offset is UTC here, as everywhere in the API.
ListStatus = Annotated[
    list[str] | None,
    Query(
        description="Only posts of these statuses (draft, scheduled, published): repeat the "
        "parameter or separate them with commas."
    ),
]
ListSince = Annotated[
    str | None,
    Query(
        description="Only posts whose timeline time (published, scheduled, or last edited "
        "for a draft) is at or after this ISO 8601 date or time; on recent-posts and "
        "posts-timeline it replaces the 90-day window's start."
    ),
]
ListUntil = Annotated[
    str | None,
    Query(description="Only posts up to this ISO 8601 time (a date alone: its whole day)."),
]
ListSearch = Annotated[
    str | None,
    ShownAs(Annotated[str, Field(max_length=MAX_SEARCH_CHARS)] | None),
    Query(
        description="Only posts whose text has every word (each matching a word's start, "
        "in any case).",
    ),
]


def _filter(
    status: list[str] | None, since: str | None, until: str | None, search: str | None
) -> PostFilter:
    return make_filter(status, since, until, search)


@router.get(
    "/recent-posts/{workspaceId}",
    response_model=PostListResponse,
    responses=error_responses(400, 401, 403, 500),
)
@fails_with("Failed to retrieve recent posts")
def get_recent_posts(
    caller: RecentPostsCaller,
    engine: EngineDep,
    limit: ListLimit = None,
    cursor: ListCursor = None,
    status: ListStatus = None,
    since: ListSince = None,
    until: ListUntil = None,
    search: ListSearch = None,
) -> Response:
    """Drafts, scheduled and published posts of the last 90 days, plus future scheduled posts."""
    where = _filter(status, since, until, search)
    with read_session(engine) as session:
        data = listing.recent_posts(
            session, caller.workspace_id, limit=limit, cursor=cursor, where=where
        )
    return _listing(data)


@router.get(
    "/posts-timeline/{workspaceId}",
    response_model=PostListResponse,
    responses=error_responses(400, 401, 403, 500),
)
@fails_with("Failed to retrieve the posts timeline")
def get_posts_timeline(
    caller: WorkspaceCaller,
    engine: EngineDep,
    limit: ListLimit = None,
    cursor: ListCursor = None,
    status: ListStatus = None,
    since: ListSince = None,
    until: ListUntil = None,
    search: ListSearch = None,
) -> Response:
    """Published posts of the last 90 days plus future scheduled posts; no drafts."""
    where = _filter(status, since, until, search)
    with read_session(engine) as session:
        data = listing.posts_timeline(
            session, caller.workspace_id, limit=limit, cursor=cursor, where=where
        )
    return _listing(data)


@router.get(
    "/posts/{workspaceId}",
    response_model=PostListResponse,
    responses=error_responses(400, 401, 403, 500),
)
@fails_with("Failed to list posts")
def get_posts(
    caller: RecentPostsCaller,
    engine: EngineDep,
    limit: ListLimit = None,
    cursor: ListCursor = None,
    status: ListStatus = None,
    since: ListSince = None,
    until: ListUntil = None,
    search: ListSearch = None,
) -> Response:
    """Every post of the workspace, of any age, latest first, filtered by status, time
    and words (not in SPEC.md: `socialgen posts list`). Drafts included, so it asks
    what recent-posts asks (a bearer token of a member)."""
    where = _filter(status, since, until, search)
    with read_session(engine) as session:
        data = listing.list_posts(
            session, caller.workspace_id, limit=limit, cursor=cursor, where=where
        )
    return _listing(data)


def _listing(data: PostListJson) -> Response:
    """PostListResponse (the route's documented model) as JSON, serialized from the
    listing's objects as they are: FastAPI would validate each post into a model
    first (posts.views.PostListJson says why not)."""
    return Response(to_json({"success": True, "data": data}), media_type="application/json")


@router.get(
    "/list/{workspaceId}",
    response_model=ConversationListResponse,
    responses=error_responses(400, 401, 403, 500),
)
@fails_with("Failed to list conversations")
def list_conversations(
    caller: WorkspaceCaller,
    engine: EngineDep,
    page: Annotated[int, Query(ge=PAGE.low, le=PAGE.high)] = DEFAULT_PAGE,
    limit: Annotated[int, Query(ge=PAGE_LIMIT.low, le=PAGE_LIMIT.high)] = DEFAULT_PAGE_LIMIT,
) -> ConversationListResponse:
    """Past AI conversations, most recently updated first."""
    with read_session(engine) as session:
        data = listing.conversations_page(session, caller.workspace_id, page, limit)
    return ConversationListResponse(success=True, data=data)


@router.put(
    "/post/{workspaceId}/{postId}",
    response_model=UpdatePostResponse,
    responses=error_responses(400, 401, 403, 404, 409, 500),
    dependencies=[body_cap()],
)
@fails_with("Failed to update post content")
def update_post(
    caller: MemberWithBearer,
    engine: EngineDep,
    post_id: PostIdPath,
    body: Annotated[UpdatePostBody, Body()],
) -> UpdatePostResponse:
    """Replace the text of a draft or scheduled post; the old text stays as a version.
    409 while a publication of the post may be live with its text and is not settled
    (a retry is pending, or it is unknown: docs/publishing.md)."""
    with transaction(engine) as session:
        post = service.update_content(session, caller.workspace_id, post_id, body.content)
        data = UpdatedPost(postId=post.id, content=post.content)
    return UpdatePostResponse(success=True, data=data, message="Post content updated successfully")


@router.delete(
    "/post/{workspaceId}/{postId}",
    response_model=DeletePostResponse,
    responses=error_responses(400, 401, 403, 404, 500),
)
@fails_with("Failed to delete post")
def delete_post(
    caller: MemberWithBearer, engine: EngineDep, files: FilesDep, post_id: PostIdPath
) -> DeletePostResponse:
    """Delete a draft or scheduled post with all its versions and its conversation."""
    deleted = remove_post(engine, files, caller.workspace_id, post_id)
    return DeletePostResponse(success=True, message="Post deleted successfully", data=deleted)
