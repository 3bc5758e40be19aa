"""Copying a local files folder into the configured bucket, so a personal install
can grow into a team one. Idempotent: a key already in the bucket with the same size
is skipped (names carry a content hash, so the same name means the same bytes), and
a run cut short is finished by running it again. The local folder is left as it is.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from socialgen.files.backend import FileBackend, StorageUnavailable, StoredObject
from socialgen.files.local import LocalFolder
from socialgen.files.store import object_key
from socialgen.kit.errors import NotFound

# Each copy waits on the network (obstore releases the GIL), so threads overlap them.
COPY_THREADS = 16


@dataclass
class Migration:
    total: int = 0  # files found in the local folder
    copied: int = 0
    skipped: int = 0  # already in the bucket
    failed: list[str] = field(default_factory=list)
    bytes_copied: int = 0
    seconds: float = 0.0

    def summary(self) -> dict[str, object]:
        return {
            "total": self.total,
            "copied": self.copied,
            "skipped": self.skipped,
            "failed": len(self.failed),
            "failedKeys": self.failed[:20],
            "bytesCopied": self.bytes_copied,
            "seconds": round(self.seconds, 3),
        }


def files_to_copy(source: Path, target: FileBackend) -> tuple[list[StoredObject], int]:
    """The local files the bucket lacks, and how many it already has."""
    found = [item for item in LocalFolder(source).list() if _is_store_key(item.key)]
    present = {item.key: item.size for item in target.list()}
    missing = [item for item in found if present.get(item.key) != item.size]
    return missing, len(found) - len(missing)


def migrate(
    source: Path,
    target: FileBackend,
    *,
    on_start: Callable[[int], None] = lambda _total: None,
    on_copied: Callable[[StoredObject], None] = lambda _item: None,
) -> Migration:
    started = time.perf_counter()
    missing, skipped = files_to_copy(source, target)
    result = Migration(total=len(missing) + skipped, skipped=skipped)
    on_start(len(missing))
    local = LocalFolder(source)

    def copy(item: StoredObject) -> StoredObject | None:
        try:
            target.put(item.key, local.get(item.key))
        except (StorageUnavailable, NotFound):  # refused, or removed meanwhile
            return None
        return item

    with ThreadPoolExecutor(COPY_THREADS) as pool:
        for item, done in zip(missing, pool.map(copy, missing), strict=True):
            if done is None:
                result.failed.append(item.key)
            else:
                result.copied += 1
                result.bytes_copied += item.size
            on_copied(item)
    result.seconds = time.perf_counter() - started
    return result


def _is_store_key(key: str) -> bool:
    """Only what the store itself could have written (no stray or hidden files)."""
    workspace_id, _, rest = key.partition("/")
    try:
        object_key(workspace_id, rest)
    except NotFound:
        return False
    return True
