"""Files in a local folder: `<root>/<workspace id>/<key>`, the default backend.

Writes go to a temporary name and are renamed into place, so a reader never sees
half a file.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

from socialgen.errors import NotFound
from socialgen.files.backend import FILE_NOT_FOUND, StoredObject

PARTIAL_SUFFIX = ".partial"


class LocalFolder:
    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, key: str) -> Path:
        return self.root.joinpath(*key.split("/"))

    def put(self, key: str, data: bytes) -> None:
        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        # Unique per writer: two threads saving the same bytes (the same content name,
        # e.g. one image regenerated twice at once) must not share a temporary file.
        writer = f"{os.getpid()}.{threading.get_ident()}"
        partial = path.with_name(f".{path.name}.{writer}{PARTIAL_SUFFIX}")
        partial.write_bytes(data)
        partial.replace(path)

    def get(self, key: str) -> bytes:
        try:
            return self.path(key).read_bytes()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            raise NotFound(FILE_NOT_FOUND) from None

    def delete(self, key: str) -> None:
        self.path(key).unlink(missing_ok=True)

    def delete_prefix(self, prefix: str) -> None:
        shutil.rmtree(self.path(prefix), ignore_errors=True)

    def list(self, prefix: str = "") -> Iterator[StoredObject]:
        top = self.path(prefix) if prefix else self.root
        # os.walk, not rglob: a folder another process is deleting may vanish mid-walk.
        for folder, _dirs, names in os.walk(top):
            for name in names:
                if name.startswith(".") and name.endswith(PARTIAL_SUFFIX):
                    continue  # a write in progress
                path = Path(folder, name)
                try:
                    stat = path.stat()
                except FileNotFoundError:
                    continue
                key = path.relative_to(self.root).as_posix()
                yield StoredObject(key=key, size=stat.st_size, modified=stat.st_mtime)

    def presign(self, key: str, expires_in: timedelta) -> str | None:
        return None  # served by `serve` itself
