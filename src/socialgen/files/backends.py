"""Which backend keeps the files: a bucket when the files_url setting names one, else
the local folder `<data dir>/files` (nothing to configure for one machine).

Nothing is kept here: `files_of(runtime)` reads the Runtime's settings (and the
bucket's endpoint, config.s3_endpoint) and keeps one store per configuration in the
Runtime's `Held`, so every thread and every Runtime derived from it share one bucket
client (as publishing.registry's `Networks.of(runtime)` reads a Runtime's networks).
A test that wants other settings builds another Runtime.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from socialgen.config import s3_endpoint

if TYPE_CHECKING:
    from socialgen.config import Settings
    from socialgen.config.loading import AppSettings
    from socialgen.files.backend import FileBackend
    from socialgen.files.local_copy import LocalCopies
    from socialgen.files.store import FileStore

T = TypeVar("T")


class Keeps(Protocol):
    """Where a Runtime keeps what lives as long as it does (app/runtime.py's `Held`)."""

    def keep(self, key: tuple[Any, ...], make: Callable[[], T]) -> T: ...


class FilesHost(Protocol):
    """What `files_of` reads of a Runtime (app/runtime.py), which sits above this
    package: its settings, where its store is, and where it keeps file stores."""

    @property
    def settings(self) -> AppSettings: ...

    @property
    def store_settings(self) -> Settings: ...

    @property
    def held(self) -> Keeps: ...


def files_of(runtime: FilesHost) -> FileStore:
    """Where `runtime` keeps its files: its settings' files_url, files_redirect and
    file_cache_mb (read once with them), the local folder under its data directory
    otherwise; made at the first call for a configuration and kept in `runtime.held`.

    The store's modules load here, not with this one: every command group's CLI names
    `files_of`, and `socialgen --help` should not pay for hashing and logging."""
    from socialgen.files.local_copy import LocalCopies

    settings = runtime.settings
    url = (settings.files_url or "").strip() or None
    home = runtime.store_settings.home
    root = home / "files"
    endpoint = s3_endpoint() if url else None
    copies = LocalCopies.under(home, settings.file_cache_mb)
    key = ("files", root, url, settings.files_redirect, endpoint, copies)
    return runtime.held.keep(
        key,
        lambda: file_store(
            root, url, copies=copies, redirect=settings.files_redirect, endpoint=endpoint
        ),
    )


def file_store(
    root: Path,
    url: str | None,
    *,
    copies: LocalCopies,
    redirect: bool = False,
    endpoint: str | None = None,
) -> FileStore:
    """The store for these settings: the bucket `url` names (s3://bucket/prefix, at
    `endpoint` when it is not AWS), or the local folder `root` when `url` is None.
    `copies`: where the CLI keeps its copies of a bucket's files, and how many."""
    from socialgen.files.local import LocalFolder
    from socialgen.files.store import FileStore

    url = (url or "").strip() or None
    if url is None:
        return FileStore(LocalFolder(root), root, copies=copies)
    return FileStore(bucket(url, endpoint), root, bucket_url=url, redirect=redirect, copies=copies)


def bucket(url: str, endpoint: str | None) -> FileBackend:
    from socialgen.files.s3 import S3Bucket  # obstore loads only when a bucket is used

    return S3Bucket(url, endpoint)
