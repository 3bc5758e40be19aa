"""Local copies of files kept in a bucket, for the CLI, which prints paths a user
can open (a PDF viewer, an image preview, a script). A presigned URL would expire
in minutes and may point at an endpoint only servers reach; a `serve` URL needs a
running server and a key. Names carry a content hash, so a copy is never stale.

The copies are a cache: after each download the folder is pruned to the
file_cache_mb setting (SOCIALGEN_FILE_CACHE_MB, default 500), least recently used
first. A copy's modification time records its last use (set on download and on every
hit; access times are often not kept, noatime/relatime); the copy just asked for is
never removed. Where the folder is and its size come with the file store
(`LocalCopies`, made by files.backends.files_of from the Runtime's settings, read once
with them): nothing here reads a setting.
"""

from __future__ import annotations

import os
import time
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path

from socialgen.files.backend import FileBackend
from socialgen.files.local import PARTIAL_SUFFIX, LocalFolder

MB = 1024 * 1024


@dataclass(frozen=True)
class LocalCopies:
    """The cache's folder (`<data dir>/cache/files`) and the most its copies may take."""

    root: Path
    limit_bytes: int

    @classmethod
    def under(cls, home: Path, limit_mb: int) -> LocalCopies:
        """The cache in the data directory `home`, of `limit_mb` (file_cache_mb) MB."""
        return cls(home / "cache" / "files", limit_mb * MB)


def local_copy(backend: FileBackend, key: str, copies: LocalCopies) -> Path:
    """The file at `key`, downloaded into the cache `copies` unless it is there already."""
    cache = LocalFolder(copies.root)
    path = cache.path(key)
    if path.is_file():
        _mark_used(path)
        return path
    cache.put(key, backend.get(key))  # whole or not at all
    _mark_used(path)
    prune(cache.root, copies.limit_bytes, keep=path)
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
