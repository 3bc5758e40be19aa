"""How GET /api/v1/files answers, after the workspace check: the local file itself,
the bucket's bytes streamed through serve, or (the files_redirect setting) a
short-lived presigned redirect so the bytes go straight from the bucket. The file
store is the app's Runtime's (`files.backends.files_of(runtime)`)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import timedelta
from pathlib import PurePosixPath
from typing import BinaryIO

from starlette.concurrency import run_in_threadpool
from starlette.responses import RedirectResponse, Response, StreamingResponse

from socialgen.files.backend import FILE_NOT_FOUND, FileBackend
from socialgen.files.local import LocalFolder
from socialgen.files.store import MEDIA_TYPES, FileStore, object_key
from socialgen.kit.errors import NotFound

# Long enough for a slow client to start the download, short enough that a leaked
# link soon stops working; the redirect itself is cached for less than that.
PRESIGN_LIFETIME = timedelta(minutes=5)
REDIRECT_CACHE = "private, max-age=60"
CHUNK_BYTES = 256 * 1024
# Names carry a content hash: the bytes behind a URL never change.
IMMUTABLE = {
    "Cache-Control": "private, max-age=31536000, immutable",
    "X-Content-Type-Options": "nosniff",
}


async def file_response(files: FileStore, workspace_id: str, key: str) -> Response:
    name = object_key(workspace_id, key)  # 404 for anything but a plain key
    media_type = MEDIA_TYPES.get(PurePosixPath(key).suffix.lstrip(".").lower())
    if media_type is None:
        raise NotFound(FILE_NOT_FOUND)
    backend = files.backend
    if isinstance(backend, LocalFolder):
        # Sent from the file opened and checked (no symlink, inside the workspace),
        # not by name: a FileResponse would open the path again and follow a link.
        file = await run_in_threadpool(backend.open, name)
        size = os.fstat(file.fileno()).st_size
        headers = {**IMMUTABLE, "Content-Length": str(size)}
        return StreamingResponse(_chunks(file), media_type=media_type, headers=headers)
    if files.redirect:
        url = await run_in_threadpool(_presigned, backend, name)
        return RedirectResponse(url, status_code=307, headers={"Cache-Control": REDIRECT_CACHE})
    data = await run_in_threadpool(backend.get, name)
    return Response(data, media_type=media_type, headers=IMMUTABLE)


def _presigned(backend: FileBackend, name: str) -> str:
    url = backend.presign(name, PRESIGN_LIFETIME)  # NotFound when missing
    if url is None:  # a backend without URLs of its own
        raise NotFound(FILE_NOT_FOUND)
    return url


def _chunks(file: BinaryIO) -> Iterator[bytes]:
    """The file's bytes, read in a worker thread by Starlette; the file closes when
    they are all sent, or when the generator is dropped after the client left."""
    with file:
        while chunk := file.read(CHUNK_BYTES):
            yield chunk
