"""Local copies of files kept in a bucket, for the CLI, which prints paths a user
can open (a PDF viewer, an image preview, a script). A presigned URL would expire
in minutes and may point at an endpoint only servers reach; a `serve` URL needs a
running server and a key. Names carry a content hash, so a copy is never stale.

The copies are a cache: after each download the folder is pruned to
SOCIALGEN_FILE_CACHE_MB (default 500), least recently used first. A copy's
modification time records its last use (set on download and on every hit; access
times are often not kept, noatime/relatime); the copy just asked for is never removed.
"""

from __future__ import annotations

import logging
import os
import time
from contextlib import suppress
from pathlib import Path

from socialgen.config import data_dir, environment
from socialgen.files.backend import FileBackend
from socialgen.files.local import PARTIAL_SUFFIX, LocalFolder

logger = logging.getLogger("socialgen.files")

CACHE_MB_ENV = "SOCIALGEN_FILE_CACHE_MB"
DEFAULT_CACHE_MB = 500
MB = 1024 * 1024


def cache_root() -> Path:
    return data_dir() / "cache" / "files"


def cache_limit_bytes() -> int:
    """SOCIALGEN_FILE_CACHE_MB in bytes; read on every call, like the backend settings."""
    raw = environment(CACHE_MB_ENV)
    if not raw:
        return DEFAULT_CACHE_MB * MB
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < 0:
        logger.warning(
            "%s=%r is not a whole number of MB >= 0; using %d", CACHE_MB_ENV, raw, DEFAULT_CACHE_MB
        )
        return DEFAULT_CACHE_MB * MB
    return value * MB


def local_copy(backend: FileBackend, key: str) -> Path:
    """The file at `key`, downloaded into the cache unless it is there already."""
    cache = LocalFolder(cache_root())
    path = cache.path(key)
    if path.is_file():
        _mark_used(path)
        return path
    cache.put(key, backend.get(key))  # whole or not at all
    _mark_used(path)
    prune(cache.root, cache_limit_bytes(), keep=path)
    return path


def prune(root: Path, limit: int, *, keep: Path) -> int:
    """Remove the least recently used copies until the folder holds at most `limit`
    bytes (`keep` is never removed); the number of bytes freed."""
    copies: list[tuple[int, int, Path]] = []  # (last use, size, path)
    total = 0
    for folder, _names, files in os.walk(root):
        for name in files:
            path = Path(folder, name)
            try:
                facts = path.lstat()
            except OSError:  # removed meanwhile by another process
                continue
            total += facts.st_size
            if path != keep and not name.endswith(PARTIAL_SUFFIX):
                copies.append((facts.st_mtime_ns, facts.st_size, path))
    freed = 0
    for _used, size, path in sorted(copies):
        if total - freed <= limit:
            break
        try:
            path.unlink()
        except OSError:
            continue
        freed += size
        _remove_empty_folders(path.parent, root)
    return freed


def _mark_used(path: Path) -> None:
    now = time.time_ns()  # finer than the file system's own clock: no ties in a burst
    # Removed meanwhile by another process's prune: the caller reads it or fetches again.
    with suppress(OSError):
        os.utime(path, ns=(now, now))


def _remove_empty_folders(folder: Path, root: Path) -> None:
    while folder != root and folder.is_relative_to(root):
        try:
            folder.rmdir()
        except OSError:  # not empty (or gone)
            return
        folder = folder.parent
