"""GET /api/v1/files/{workspaceId}/{key}: a stored file, for members of its workspace."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends
from starlette.concurrency import run_in_threadpool
from starlette.responses import FileResponse

from socialgen.api_support import error_responses
from socialgen.auth.api import WorkspaceAccess, WorkspaceGuard
from socialgen.errors import NotFound
from socialgen.files.store import FILE_NOT_FOUND, FILES_URL_PREFIX, MEDIA_TYPES, file_path

router = APIRouter(prefix=FILES_URL_PREFIX, tags=["files"])

FileReader = Annotated[WorkspaceAccess, Depends(WorkspaceGuard(bearer_required=False))]


@router.get(
    "/{workspaceId}/{key:path}",
    response_class=FileResponse,
    responses={
        200: {"content": {media: {} for media in MEDIA_TYPES.values()}},
        **error_responses(401, 403, 404),
    },
)
async def get_file(access: FileReader, key: str) -> FileResponse:
    """Names carry a hash of the content, so a URL always means the same bytes."""
    path = file_path(access.workspace_id, key)
    media_type = MEDIA_TYPES.get(path.suffix.lstrip(".").lower())
    if media_type is None or not await run_in_threadpool(path.is_file):
        raise NotFound(FILE_NOT_FOUND)
    return FileResponse(
        path,
        media_type=media_type,
        headers={
            "Cache-Control": "private, max-age=31536000, immutable",
            "X-Content-Type-Options": "nosniff",
        },
    )
