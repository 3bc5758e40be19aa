"""Files in an S3-compatible bucket (AWS S3, MinIO, R2, Ceph ...) through obstore.

obstore (Rust's object_store) rather than boto3: it ships its own type stubs (mypy
strict without a stubs package), has no Python dependencies, presigns URLs itself,
and its calls release the GIL, so copies run in parallel threads. Connection
details come from the usual AWS variables (AWS_ACCESS_KEY_ID,
AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION / AWS_DEFAULT_REGION) and
AWS_ENDPOINT_URL (or AWS_ENDPOINT_URL_S3) for a service other than AWS.

An S3 PUT is atomic: a reader sees the old object, or none, or all of the new one.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from datetime import timedelta
from typing import TYPE_CHECKING

import obstore
from obstore.exceptions import BaseError

from socialgen.files.backend import FILE_NOT_FOUND, StorageUnavailable, StoredObject
from socialgen.kit.errors import NotFound

if TYPE_CHECKING:
    from obstore.store import ClientConfig, RetryConfig, S3Store

logger = logging.getLogger("socialgen.files")

# A bucket that is down must fail a request in seconds (a clear 503), not after
# object_store's default of 10 retries over up to three minutes.
RETRIES: RetryConfig = {
    "max_retries": 2,
    "retry_timeout": timedelta(seconds=10),
    "backoff": {"init_backoff": timedelta(milliseconds=100), "max_backoff": timedelta(seconds=2)},
}
CLIENT: ClientConfig = {"connect_timeout": timedelta(seconds=3), "timeout": timedelta(seconds=60)}
DELETE_BATCH = 1000  # S3's DeleteObjects takes at most 1,000 keys


class S3Bucket:
    def __init__(self, url: str, endpoint: str | None = None) -> None:
        from obstore.store import S3Store

        self.url = url
        client: ClientConfig = {
            **CLIENT,
            "allow_http": bool(endpoint and endpoint.startswith("http:")),
        }
        try:
            # Credentials, region and the endpoint are read from the environment.
            self.store: S3Store = S3Store.from_url(url, client_options=client, retry_config=RETRIES)
        except (BaseError, ValueError) as error:
            raise StorageUnavailable(f"SOCIALGEN_FILES_URL is not usable: {error}") from None

    def put(self, key: str, data: bytes) -> None:
        with _unavailable("put", key):
            obstore.put(self.store, key, data)

    def get(self, key: str) -> bytes:
        with _unavailable("get", key):
            try:
                return obstore.get(self.store, key).bytes().to_bytes()
            except FileNotFoundError:
                raise NotFound(FILE_NOT_FOUND) from None

    def delete(self, key: str) -> None:
        with _unavailable("delete", key):
            obstore.delete(self.store, key)  # S3 answers 204 for a missing key too

    def delete_prefix(self, prefix: str) -> None:
        keys = [item.key for item in self.list(prefix)]
        with _unavailable("delete", prefix):
            for start in range(0, len(keys), DELETE_BATCH):
                obstore.delete(self.store, keys[start : start + DELETE_BATCH])

    def list(self, prefix: str = "") -> Iterator[StoredObject]:
        # A trailing slash: "ws/carousels/abc" must not also list "ws/carousels/abcd".
        folder = f"{prefix.rstrip('/')}/" if prefix else None
        with _unavailable("list", prefix):
            for batch in obstore.list(self.store, folder):
                for item in batch:
                    yield StoredObject(
                        key=item["path"],
                        size=item["size"],
                        modified=item["last_modified"].timestamp(),
                    )

    def presign(self, key: str, expires_in: timedelta) -> str | None:
        """Only for an object that exists (one HEAD): a missing file is our 404, not
        the bucket's XML error after the redirect. Signing itself is local."""
        with _unavailable("sign", key):
            try:
                obstore.head(self.store, key)
            except FileNotFoundError:
                raise NotFound(FILE_NOT_FOUND) from None
            return obstore.sign(self.store, "GET", key, expires_in)


@contextlib.contextmanager
def _unavailable(operation: str, key: str) -> Iterator[None]:
    """obstore's errors (down, refused, timed out) as StorageUnavailable, logged."""
    try:
        yield
    except BaseError as error:
        # The first line says what happened; the rest is object_store's debug dump.
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        logger.warning("file storage %s %s failed: %s", operation, key, reason)
        raise StorageUnavailable() from None
