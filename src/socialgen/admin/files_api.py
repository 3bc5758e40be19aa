"""GET /api/v1/files/{workspaceId}/{key}: a stored file, for members of its workspace.

The file store itself is a gateway (socialgen.files); its faces live in this slice, so
that the packages every face uses never reach back to a face."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path
from starlette.responses import FileResponse, Response

from socialgen.files.serving import file_response
from socialgen.files.store import FILES_URL_PREFIX, MEDIA_TYPES
from socialgen.http.guard import WorkspaceAccess, WorkspaceGuard
from socialgen.http.support import FilesDep, error_responses
from socialgen.kit.limits import NO_CONTROL_PATTERN

router = APIRouter(prefix=FILES_URL_PREFIX, tags=["files"])

FileReader = Annotated[WorkspaceAccess, Depends(WorkspaceGuard(bearer_required=False))]


@router.get(
    "/{workspaceId}/{key:path}",
    response_class=FileResponse,
    responses={
        200: {"content": {media: {} for media in MEDIA_TYPES.values()}},
        307: {"description": "With a bucket and SOCIALGEN_FILES_REDIRECT: a presigned URL"},
        **error_responses(400, 401, 403, 404, 503),
    },
)
async def get_file(
    access: FileReader,
    files: FilesDep,
    key: Annotated[str, Path(pattern=NO_CONTROL_PATTERN)],
) -> Response:
    """Names carry a hash of the content, so a URL always means the same bytes."""
    return await file_response(files, access.workspace_id, key)
