"""The file store: bytes under `<workspace id>/<key>`, in the local folder
`<data dir>/files` or in the bucket the files_url setting names (files/backends.py).

A `FileStore` is what a Runtime's settings say (`files.backends.files_of(runtime)`,
kept in its `Held`): plans get it through their `Caller`, the outbox through its
`PublishTerms`, the faces from their Runtime. Nothing here reads a setting.

Names carry a hash of their content, so a URL always means the same bytes (safe to
cache) and a regenerated slide gets a new URL. A reader never sees half a file.
"""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from socialgen.files.backend import FILE_NOT_FOUND, FileBackend, StorageUnavailable
from socialgen.kit.errors import NotFound

if TYPE_CHECKING:
    from socialgen.files.local_copy import LocalCopies

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


@dataclass(frozen=True)
class FileStore:
    """Where a Runtime keeps its files: `backend` (the local folder `root`, or the
    bucket `bucket_url` names), whether GET /files answers with a presigned
    redirect to the bucket (`redirect`: the files_redirect setting), and where the
    CLI keeps its copies of bucket files (`copies`: the file_cache_mb setting)."""

    backend: FileBackend
    root: Path  # the local folder, `<data dir>/files` (the backend when no bucket)
    bucket_url: str | None = None  # None: the files live in `root`
    redirect: bool = False
    copies: LocalCopies = field(kw_only=True)

    def path(self, workspace_id: str, key: str) -> Path:
        """Where a key lives in the local folder (checked as `object_key` checks it)."""
        object_key(workspace_id, key)
        return self.root.joinpath(workspace_id, *key.split("/"))

    def save(self, workspace_id: str, key: str, data: bytes) -> None:
        self.backend.put(object_key(workspace_id, key), data)

    def read(self, workspace_id: str, key: str) -> bytes:
        return self.backend.get(object_key(workspace_id, key))

    def presign(self, workspace_id: str, key: str, lifetime: timedelta) -> str:
        """A URL anyone may GET the file from until `lifetime` has passed: the bucket's
        presigned GET ("" for the local folder, which has no URL of its own).
        StorageUnavailable when the bucket cannot be reached, NotFound when missing."""
        if self.bucket_url is None:
            return ""
        return self.backend.presign(object_key(workspace_id, key), lifetime) or ""

    def delete(self, workspace_id: str, key: str) -> None:
        """Best effort, like the folder below: a file left by a storage outage is an
        orphan for the sweep, never a reason to fail what already succeeded."""
        try:
            self.backend.delete(object_key(workspace_id, key))
        except StorageUnavailable:
            logger.warning("could not delete %s/%s; the sweep will", workspace_id, key)

    def delete_folder(self, workspace_id: str, folder: str) -> None:
        """Remove a folder of files (e.g. a carousel's) and everything in it. Best
        effort: callers run it in cleanups (a failed stream's `finally`), where raising
        would skip the quota refund."""
        try:
            self.backend.delete_prefix(object_key(workspace_id, folder))
        except StorageUnavailable:
            logger.warning("could not delete %s/%s; the sweep will", workspace_id, folder)

    def path_for_url(self, url: str) -> Path:
        """The local file behind a URL from `file_url` (for the CLI, which prints paths).
        With a bucket: a copy in the local cache, downloaded once (names never change
        meaning), so what the CLI prints can be opened like before."""
        rest = url.removeprefix(FILES_URL_PREFIX + "/")
        workspace_id, _, key = rest.partition("/")
        path = self.path(workspace_id, key)
        if self.bucket_url is None:
            return path
        from socialgen.files.local_copy import local_copy

        return local_copy(self.backend, object_key(workspace_id, key), self.copies)


def content_name(stem: str, data: bytes, extension: str) -> str:
    """`slide-3-1a2b3c4d5e.jpg`: the stem, a short content hash, the extension."""
    digest = hashlib.sha256(data).hexdigest()[:10]
    return f"{stem}-{digest}.{extension.lstrip('.')}"


def object_key(workspace_id: str, key: str) -> str:
    """`<workspace id>/<key>`, the name a backend stores it under; refuses anything
    that is not a plain relative key (no `..`, no absolute paths, no odd characters)
    with 404."""
    parts = key.split("/")
    if not _KEY_PART.match(workspace_id) or not all(_KEY_PART.match(p) for p in parts):
        raise NotFound(FILE_NOT_FOUND)
    return f"{workspace_id}/{key}"


def file_url(workspace_id: str, key: str) -> str:
    """The stable URL `serve` answers for a stored file (relative to the server)."""
    return f"{FILES_URL_PREFIX}/{workspace_id}/{key}"
