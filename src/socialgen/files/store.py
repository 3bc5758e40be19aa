"""The file store: bytes under `<data dir>/files/<workspace id>/<key>`.

Names carry a hash of their content, so a URL always means the same bytes (safe to
cache) and a regenerated slide gets a new URL. Writes go to a temporary name and
are renamed into place, so a reader never sees half a file.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import threading
from pathlib import Path

from socialgen.config import data_dir
from socialgen.errors import NotFound

FILES_URL_PREFIX = "/api/v1/files"
_KEY_PART = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
FILE_NOT_FOUND = "File not found"
# What the store holds, by file extension: the media type it is served as.
MEDIA_TYPES = {
    "jpg": "image/jpeg",
    "png": "image/png",
    "webp": "image/webp",
    "gif": "image/gif",
    "pdf": "application/pdf",
}


def files_root() -> Path:
    return data_dir() / "files"


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


def save_file(workspace_id: str, key: str, data: bytes) -> Path:
    path = file_path(workspace_id, key)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Unique per writer: two threads saving the same bytes (the same content name,
    # e.g. one image regenerated twice at once) must not share a temporary file.
    partial = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.partial")
    partial.write_bytes(data)
    partial.replace(path)
    return path


def read_file(workspace_id: str, key: str) -> bytes:
    path = file_path(workspace_id, key)
    try:
        return path.read_bytes()
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        raise NotFound(FILE_NOT_FOUND) from None


def delete_file(workspace_id: str, key: str) -> None:
    file_path(workspace_id, key).unlink(missing_ok=True)


def delete_folder(workspace_id: str, folder: str) -> None:
    """Remove a folder of files (e.g. a carousel's) and everything in it."""
    shutil.rmtree(file_path(workspace_id, folder), ignore_errors=True)


def file_url(workspace_id: str, key: str) -> str:
    """The stable URL `serve` answers for a stored file (relative to the server)."""
    return f"{FILES_URL_PREFIX}/{workspace_id}/{key}"


def path_for_url(url: str) -> Path:
    """The local file behind a URL from `file_url` (for the CLI, which prints paths)."""
    rest = url.removeprefix(FILES_URL_PREFIX + "/")
    workspace_id, _, key = rest.partition("/")
    return file_path(workspace_id, key)
