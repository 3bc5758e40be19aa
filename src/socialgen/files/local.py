"""Files in a local folder: `<root>/<workspace id>/<key>`, the default backend.

Writes go to a temporary name and are renamed into place, so a reader never sees
half a file. Folders are made 0700 and files 0600, whatever the umask.
"""

from __future__ import annotations

import errno
import fcntl
import os
import shutil
import stat
import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import BinaryIO

from socialgen.files.backend import FILE_NOT_FOUND, StoredObject
from socialgen.kit.errors import NotFound
from socialgen.kit.local_files import make_private_folders, open_private

PARTIAL_SUFFIX = ".partial"
# What opening a stored name can meet that means "no such file" to a reader: gone,
# a folder, a path through a file, a symlink (ELOOP under O_NOFOLLOW), a socket.
_NOT_THERE = frozenset(
    {errno.ENOENT, errno.EISDIR, errno.ENOTDIR, errno.ELOOP, errno.ENXIO, errno.ENODEV}
)


class LocalFolder:
    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, key: str) -> Path:
        return self.root.joinpath(*key.split("/"))

    def put(self, key: str, data: bytes) -> None:
        path = self.path(key)
        make_private_folders(path.parent)  # 0700: the files are the user's posts
        # Unique per writer: two threads saving the same bytes (the same content name,
        # e.g. one image regenerated twice at once) must not share a temporary file.
        writer = f"{os.getpid()}.{threading.get_ident()}"
        partial = path.with_name(f".{path.name}.{writer}{PARTIAL_SUFFIX}")
        with os.fdopen(open_private(partial), "wb") as out:  # 0600, whatever the umask
            out.write(data)
        partial.replace(path)

    def get(self, key: str) -> bytes:
        with self.open(key) as file:
            return file.read()

    def open(self, key: str) -> BinaryIO:
        """The stored file, open for reading, or NotFound. Only a regular file whose
        folder lies inside its workspace folder, reached without a symlink as its
        last part: a link planted under files/ (to /etc/passwd, to another
        workspace) is never followed. The caller closes it."""
        path = self.path(key)
        workspace = os.path.realpath(self.root / key.split("/", 1)[0])
        folder = os.path.realpath(path.parent)
        if folder != workspace and not folder.startswith(workspace + os.sep):
            raise NotFound(FILE_NOT_FOUND)
        try:
            # O_NOFOLLOW: a symlink as the last part fails (ELOOP) instead of being
            # followed; O_NONBLOCK: a FIFO planted there cannot stall the opener.
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError as error:
            if error.errno in _NOT_THERE:
                raise NotFound(FILE_NOT_FOUND) from None
            raise
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise NotFound(FILE_NOT_FOUND)
            fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) & ~os.O_NONBLOCK)
        except BaseException:
            os.close(fd)
            raise
        return os.fdopen(fd, "rb")

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
                    info = path.lstat()
                except FileNotFoundError:
                    continue
                if not stat.S_ISREG(info.st_mode):
                    continue  # a symlink or a FIFO planted here: never served, never copied
                key = path.relative_to(self.root).as_posix()
                yield StoredObject(key=key, size=info.st_size, modified=info.st_mtime)

    def presign(self, key: str, expires_in: timedelta) -> str | None:
        return None  # served by `serve` itself
