"""Which backend keeps the files: a bucket when the files_url setting names one, else
the local folder `<data dir>/files` (nothing to configure for one machine).

Nothing is read or kept here: the Runtime reads the settings (and the bucket's
endpoint, config.s3_endpoint), calls `file_store` once per configuration and keeps
the result in its `Held`, so every thread and every Runtime derived from it share one
bucket client. A test that wants other settings builds another Runtime.
"""

from __future__ import annotations

from pathlib import Path

from socialgen.files.backend import FileBackend
from socialgen.files.local import LocalFolder
from socialgen.files.store import FileStore


def file_store(
    root: Path, url: str | None, *, redirect: bool = False, endpoint: str | None = None
) -> FileStore:
    """The store for these settings: the bucket `url` names (s3://bucket/prefix, at
    `endpoint` when it is not AWS), or the local folder `root` when `url` is None."""
    url = (url or "").strip() or None
    if url is None:
        return FileStore(LocalFolder(root), root)
    return FileStore(bucket(url, endpoint), root, bucket_url=url, redirect=redirect)


def bucket(url: str, endpoint: str | None) -> FileBackend:
    from socialgen.files.s3 import S3Bucket  # obstore loads only when a bucket is used

    return S3Bucket(url, endpoint)
