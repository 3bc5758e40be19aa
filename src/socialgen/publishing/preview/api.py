"""HTTP: GET /api/v1/ai-conversation/post/{workspaceId}/{postId}/preview.

How the post reads on each network, as `posts preview --json` prints it. Read-only
and offline (nothing is sent or fetched), so a GET; the networks are named with `to`
(repeat it, or separate with commas), else the post's own accounts (see
publishing/preview/targets.py). The same callers as the publish endpoints' (whose
dry run this complements): members, admins and owners with the workspace's key.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query

from socialgen.http.guard import WorkspaceAccess, WorkspaceGuard
from socialgen.http.support import EngineDep, FilesDep, error_responses, fails_with
from socialgen.publishing.preview.schemas import PreviewResponse
from socialgen.publishing.preview.targets import MAX_TARGETS
from socialgen.store.tables import Role

router = APIRouter(prefix="/api/v1/ai-conversation", tags=["publishing"])

Previewer = Annotated[
    WorkspaceAccess,
    Depends(
        WorkspaceGuard(
            bearer_required=False, roles=frozenset({Role.OWNER, Role.ADMIN, Role.MEMBER})
        )
    ),
]
PostIdPath = Annotated[str, Path(alias="postId")]
ToQuery = Annotated[
    list[str] | None,
    Query(
        description="Accounts (id, handle or network:handle) or networks' names (bluesky, "
        "mastodon, linkedin, x, threads, telegram, discord, nostr, pixelfed): repeat the "
        f"parameter or separate them with commas, at most {MAX_TARGETS}. Default: the "
        "accounts the post is scheduled to, else every connected account, else every network.",
    ),
]
NumberPartsQuery = Annotated[
    bool,
    Query(alias="numberParts", description='Number the parts of a thread ("1/3", "2/3", ...).'),
]


@router.get(
    "/post/{workspaceId}/{postId}/preview",
    response_model=PreviewResponse,
    responses=error_responses(400, 401, 403, 404, 500),
)
@fails_with("Failed to preview post")
def preview_post(
    caller: Previewer,
    engine: EngineDep,
    files: FilesDep,
    post_id: PostIdPath,
    to: ToQuery = None,
    number_parts: NumberPartsQuery = False,
) -> PreviewResponse:
    """Each network's parts, fold, link card, media and first comment for the post."""
    from socialgen.publishing.preview.service import preview_post as build

    refs = [ref for value in to or [] for ref in value.split(",")]
    data = build(engine, caller.workspace_id, post_id, refs, number_parts=number_parts, files=files)
    return PreviewResponse(success=True, data=data)
