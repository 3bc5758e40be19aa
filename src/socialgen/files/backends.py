"""Which backend keeps the files: a bucket when SOCIALGEN_FILES_URL names one, else
the local folder `$SOCIALGEN_HOME/files` (nothing to configure for one machine).

Read from the environment on every call, like socialgen.config, so tests and
long-lived processes follow the same rules; a bucket client is made once per
distinct configuration and shared by all threads.
"""

from __future__ import annotations

import threading
from pathlib import Path

from socialgen.config import current_settings, data_dir, environment
from socialgen.files.backend import FileBackend
from socialgen.files.local import LocalFolder

FILES_URL_ENV = "SOCIALGEN_FILES_URL"
REDIRECT_ENV = "SOCIALGEN_FILES_REDIRECT"
ENDPOINT_ENVS = ("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "AWS_ENDPOINT")
# What a bucket client is built from; a change in any of them means a new client.
_CLIENT_ENVS = (
    *ENDPOINT_ENVS,
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
)

_buckets: dict[tuple[str | None, ...], FileBackend] = {}
_lock = threading.Lock()


def local_root() -> Path:
    return data_dir() / "files"


def files_url() -> str | None:
    return (current_settings().files_url or "").strip() or None


def current_backend() -> FileBackend:
    url = files_url()
    if url is None:
        return LocalFolder(local_root())
    return bucket(url)


def bucket(url: str) -> FileBackend:
    from socialgen.files.s3 import S3Bucket  # obstore loads only when a bucket is used

    key = (url, *(environment(name) for name in _CLIENT_ENVS))
    with _lock:
        if key not in _buckets:
            endpoint = next((environment(n) for n in ENDPOINT_ENVS if environment(n)), None)
            _buckets[key] = S3Bucket(url, endpoint)
        return _buckets[key]


def redirects_enabled() -> bool:
    """Whether GET /files answers with a presigned redirect to the bucket. Off by
    default: the browser must reach the bucket's endpoint, which a private MinIO or
    Ceph may not allow; streaming through serve works everywhere."""
    return current_settings().files_redirect
