"""Local copies of files kept in a bucket, for the CLI, which prints paths a user
can open (a PDF viewer, an image preview, a script). A presigned URL would expire
in minutes and may point at an endpoint only servers reach; a `serve` URL needs a
running server and a key. Names carry a content hash, so a copy is never stale.
"""

from __future__ import annotations

from pathlib import Path

from socialgen.config import data_dir
from socialgen.files.backend import FileBackend
from socialgen.files.local import LocalFolder


def cache_root() -> Path:
    return data_dir() / "cache" / "files"


def local_copy(backend: FileBackend, key: str) -> Path:
    """The file at `key`, downloaded into the cache unless it is there already."""
    cache = LocalFolder(cache_root())
    path = cache.path(key)
    if not path.is_file():
        cache.put(key, backend.get(key))  # whole or not at all
    return path
