"""The file store: bytes under `<workspace id>/<key>`, in the local folder
`<data dir>/files` or in the bucket SOCIALGEN_FILES_URL names (files/backends.py).

Names carry a hash of their content, so a URL always means the same bytes (safe to
cache) and a regenerated slide gets a new URL. A reader never sees half a file.
"""

from __future__ import annotations

import hashlib
import logging
import re
from pathlib import Path

from socialgen.errors import NotFound
from socialgen.files.backend import FILE_NOT_FOUND, StorageUnavailable
from socialgen.files.backends import current_backend, files_url, local_root

FILES_URL_PREFIX = "/api/v1/files"
_KEY_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
logger = logging.getLogger("socialgen.files")
# What the store holds, by file extension: the media type it is served as.
MEDIA_TYPES = {
    "jpg": "image/jpeg",
    "png": "image/png",
    "webp": "image/webp",
    "gif": "image/gif",
    "pdf": "application/pdf",
}


def files_root() -> Path:
    """The local folder (used when no bucket is configured)."""
    return local_root()


def content_name(stem: str, data: bytes, extension: str) -> str:
    """`slide-3-1a2b3c4d5e.jpg`: the stem, a short content hash, the extension."""
    digest = hashlib.sha256(data).hexdigest()[:10]
    return f"{stem}-{digest}.{extension.lstrip('.')}"


def file_path(workspace_id: str, key: str) -> Path:
    """Where a key lives; refuses anything that is not a plain relative key
    (no `..`, no absolute paths, no odd characters) with 404."""
    parts = key.split("/")
    if not _KEY_PART.match(workspace_id) or not all(_KEY_PART.match(p) for p in parts):
        raise NotFound(FILE_NOT_FOUND)
    return files_root().joinpath(workspace_id, *parts)


def object_key(workspace_id: str, key: str) -> str:
    """`<workspace id>/<key>`, the name a backend stores it under (checked as above)."""
    file_path(workspace_id, key)
    return f"{workspace_id}/{key}"


def save_file(workspace_id: str, key: str, data: bytes) -> None:
    current_backend().put(object_key(workspace_id, key), data)


def read_file(workspace_id: str, key: str) -> bytes:
    return current_backend().get(object_key(workspace_id, key))


def delete_file(workspace_id: str, key: str) -> None:
    """Best effort, like the folder below: a file left by a storage outage is an
    orphan for the sweep, never a reason to fail what already succeeded."""
    try:
        current_backend().delete(object_key(workspace_id, key))
    except StorageUnavailable:
        logger.warning("could not delete %s/%s; the sweep will", workspace_id, key)


def delete_folder(workspace_id: str, folder: str) -> None:
    """Remove a folder of files (e.g. a carousel's) and everything in it. Best
    effort: callers run it in cleanups (a failed stream's `finally`), where raising
    would skip the quota refund."""
    try:
        current_backend().delete_prefix(object_key(workspace_id, folder))
    except StorageUnavailable:
        logger.warning("could not delete %s/%s; the sweep will", workspace_id, folder)


def file_url(workspace_id: str, key: str) -> str:
    """The stable URL `serve` answers for a stored file (relative to the server)."""
    return f"{FILES_URL_PREFIX}/{workspace_id}/{key}"


def path_for_url(url: str) -> Path:
    """The local file behind a URL from `file_url` (for the CLI, which prints paths).
    With a bucket: a copy in the local cache, downloaded once (names never change
    meaning), so what the CLI prints can be opened like before."""
    rest = url.removeprefix(FILES_URL_PREFIX + "/")
    workspace_id, _, key = rest.partition("/")
    path = file_path(workspace_id, key)
    if files_url() is None:
        return path
    from socialgen.files.local_copy import local_copy

    return local_copy(current_backend(), object_key(workspace_id, key))
