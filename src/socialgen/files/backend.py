"""What a place that keeps files must do, whichever it is (a local folder, a bucket).

Keys are `<workspace id>/<key>` strings, already checked by the store (no `..`, no
odd characters). Every failure of the place itself (down, refusing, misconfigured)
is a StorageUnavailable, so callers see one clear 503 instead of a library's error.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Protocol

from socialgen.kit.errors import SocialgenError

FILE_NOT_FOUND = "File not found"
STORAGE_UNAVAILABLE = "File storage is unavailable right now; try again shortly"


class StorageUnavailable(SocialgenError):
    """The file storage could not be reached or refused the operation."""

    status_code = 503

    def __init__(self, message: str = STORAGE_UNAVAILABLE) -> None:
        super().__init__(message)


@dataclass(frozen=True)
class StoredObject:
    key: str
    size: int
    modified: float  # seconds since the epoch, by the storage's clock


class FileBackend(Protocol):
    def put(self, key: str, data: bytes) -> None:
        """Store `data` whole: a reader never sees half of it."""

    def get(self, key: str) -> bytes:
        """The bytes, or NotFound."""

    def delete(self, key: str) -> None:
        """Remove one object; a missing one is fine."""

    def delete_prefix(self, prefix: str) -> None:
        """Remove every object under `prefix/`."""

    def list(self, prefix: str = "") -> Iterator[StoredObject]:
        """Every object under `prefix` (a folder, or "" for all), in no set order."""

    def presign(self, key: str, expires_in: timedelta) -> str | None:
        """A URL anyone may GET until it expires (NotFound for a missing key), or
        None when the backend has none."""
