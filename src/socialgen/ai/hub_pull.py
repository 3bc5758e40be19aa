"""`socialgen models pull`: one GGUF from the Hugging Face hub into the models folder.

huggingface_hub asks the hub about the file (HEAD on /REPO/resolve/REVISION/FILE:
its sha256, size and download location) and streams it (Range requests, retried
on a dropped connection). The bytes go to a `.incomplete` file of our own, named
after the sha256, so an interrupted pull resumes where it stopped, even in a new
process (huggingface_hub's own cache starts over). The file becomes a model only
once its sha256 matches the hub's: a mismatch is deleted and reported.
HF_ENDPOINT (a mirror) is read on each pull, not once at import as the library does.
The models folder is handed in (`Runtime.models_dir`).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from socialgen.ai.catalogue import CATALOGUE, known_model, readable_bytes
from socialgen.ai.model_files import GGUF, short_name
from socialgen.kit.errors import BadRequest
from socialgen.kit.local_files import make_private_folders, open_private

DEFAULT_ENDPOINT = "https://huggingface.co"
SHA256 = re.compile(r"^[0-9a-f]{64}$")
HEAD_TIMEOUT = 15.0


class PullInterrupted(BadRequest):
    """The download stopped part-way; what arrived is kept to resume from."""


@dataclass(frozen=True)
class PullTarget:
    repo: str
    filename: str  # its path inside the repo
    revision: str

    @property
    def local_name(self) -> str:
        return Path(self.filename).name


@dataclass(frozen=True)
class RemoteFile:
    location: str
    sha256: str
    size: int
    headers: dict[str, str]


@dataclass(frozen=True)
class Pulled:
    name: str
    path: Path
    size: int
    sha256: str
    resumed_from: int  # bytes already on disk when this pull started
    already_there: bool = False

    @property
    def use(self) -> str:
        return f"local/{self.name}"


def pull_target(name: str, revision: str = "main") -> PullTarget:
    known = known_model(name)
    if known:
        return PullTarget(known.repo, known.filename, revision)
    parts = name.strip().strip("/").split("/")
    if len(parts) >= 3 and parts[-1].endswith(GGUF) and parts[-1] != GGUF and all(parts):
        return PullTarget("/".join(parts[:2]), "/".join(parts[2:]), revision)
    names = ", ".join(model.name for model in CATALOGUE)
    raise BadRequest(
        f"Unknown model {name!r}: pull one of {names}, or any REPO/FILE.gguf "
        "(e.g. Qwen/Qwen2.5-1.5B-Instruct-GGUF/qwen2.5-1.5b-instruct-q4_k_m.gguf)"
    )


def hub_endpoint() -> str:
    from socialgen.config import environment

    return (environment("HF_ENDPOINT") or DEFAULT_ENDPOINT).rstrip("/")


def destination(target: PullTarget, models: Path) -> Path:
    return models / target.local_name


def remote_file(target: PullTarget) -> RemoteFile:
    """What the hub says about the file; a clear error when it cannot say."""
    import httpx2
    from huggingface_hub import errors, get_hf_file_metadata, hf_hub_url
    from huggingface_hub.utils import build_hf_headers  # type: ignore[attr-defined]

    endpoint = hub_endpoint()
    where = f"{target.repo}/{target.filename} at {endpoint}"
    try:
        url = hf_hub_url(target.repo, target.filename, revision=target.revision, endpoint=endpoint)
        metadata = get_hf_file_metadata(url, timeout=HEAD_TIMEOUT, endpoint=endpoint)
    except errors.HFValidationError:
        raise BadRequest(
            f"Not a hub repository id: {target.repo!r} (letters, digits, '-', '_' and '.')"
        ) from None
    except errors.GatedRepoError:
        raise BadRequest(
            f"{target.repo} is gated: accept its licence on the hub, then set HF_TOKEN"
        ) from None
    except errors.RepositoryNotFoundError:
        raise BadRequest(f"No model repository {target.repo} at {endpoint}") from None
    except errors.RevisionNotFoundError:
        raise BadRequest(f"{target.repo} has no revision {target.revision!r}") from None
    except errors.RemoteEntryNotFoundError:
        raise BadRequest(f"{target.repo} has no file {target.filename}") from None
    except errors.OfflineModeIsEnabled:
        raise BadRequest("HF_HUB_OFFLINE is set: models cannot be pulled offline") from None
    except (httpx2.HTTPError, OSError) as error:
        raise BadRequest(f"Could not reach the hub for {where}: {_reason(error)}") from None
    sha256 = (metadata.etag or "").lower()
    if not SHA256.match(sha256):
        raise BadRequest(f"The hub gives no sha256 for {where}: it cannot be checked, not pulled")
    if metadata.size is None:
        raise BadRequest(f"The hub gives no size for {where}: not pulled")
    same_host = urlsplit(metadata.location).netloc == urlsplit(endpoint).netloc
    headers = build_hf_headers() if same_host else {}  # no token for a signed CDN address
    return RemoteFile(metadata.location, sha256, metadata.size, headers)


def partial_path(target: PullTarget, remote: RemoteFile, models: Path) -> Path:
    """Where the bytes gather; named by sha256 so a changed upstream file starts over."""
    return models / f"{target.local_name}.{remote.sha256[:16]}.incomplete"


def check_disk_space(needed: int, folder: Path, name: str) -> None:
    free = shutil.disk_usage(folder).free
    if free < needed:
        raise BadRequest(
            f"Not enough disk space to pull {name}: it needs {readable_bytes(needed)}, "
            f"{readable_bytes(free)} free in {folder}"
        )


def download(
    target: PullTarget,
    remote: RemoteFile,
    models: Path,
    progress: type[Any],
    on_check: Callable[[], None],
) -> Pulled:
    """Fetch (or resume), check the sha256, move into place. `progress` is a tqdm-like
    class huggingface_hub drives; `on_check` runs before the sha256 is computed.
    One pull of a file at a time: two appending to one partial file would ruin it."""
    from filelock import FileLock, Timeout

    partial = partial_path(target, remote, models)
    make_private_folders(partial.parent)  # SOCIALGEN_HOME/models: 0700 (local_files)
    lock = FileLock(f"{partial}.lock", timeout=0)
    try:
        lock.acquire()
    except Timeout:
        raise BadRequest(
            f"Another pull of {target.local_name} is running: wait for it to finish"
        ) from None
    try:
        return _fetch_and_check(target, remote, models, partial, progress, on_check)
    finally:
        Path(lock.lock_file).unlink(missing_ok=True)  # the folder holds models, not locks
        lock.release()


def _fetch_and_check(
    target: PullTarget,
    remote: RemoteFile,
    models: Path,
    partial: Path,
    progress: type[Any],
    on_check: Callable[[], None],
) -> Pulled:
    import httpx2
    from huggingface_hub import errors
    from huggingface_hub.file_download import http_get

    # Its retry notes name URLs and the library's exceptions; the bar says enough.
    logging.getLogger("huggingface_hub").setLevel(logging.ERROR)
    have = partial.stat().st_size if partial.exists() else 0
    if have > remote.size:  # not a prefix of this file: start again
        partial.unlink()
        have = 0
    check_disk_space(remote.size - have, partial.parent, target.local_name)
    try:
        appending = open_private(partial, os.O_WRONLY | os.O_CREAT | os.O_APPEND)  # 0600
        with os.fdopen(appending, "ab") as file:
            http_get(
                remote.location,
                file,
                resume_size=have,
                headers=remote.headers,
                expected_size=remote.size,
                displayed_filename=target.local_name,
                tqdm_class=progress,
            )
    except (httpx2.HTTPError, errors.HfHubHTTPError, OSError) as error:
        got = partial.stat().st_size if partial.exists() else 0
        raise PullInterrupted(
            f"The download of {target.local_name} stopped at {readable_bytes(got)} of "
            f"{readable_bytes(remote.size)} ({_reason(error)}): run the same command "
            "again to resume"
        ) from None
    on_check()
    with partial.open("rb") as file:
        found = hashlib.file_digest(file, "sha256").hexdigest()
    if found != remote.sha256:
        partial.unlink()
        raise BadRequest(
            f"The download of {target.local_name} does not match the hub's sha256 "
            f"(expected {remote.sha256}, got {found}): the file was deleted; pull again"
        )
    final = destination(target, models)
    partial.replace(final)
    return Pulled(short_name(final), final, remote.size, remote.sha256, resumed_from=have)


def _reason(error: BaseException) -> str:
    """A person's reason: the library's message, without its class names or URLs."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    status = getattr(getattr(error, "response", None), "status_code", None)
    if status:
        return f"the server answered {status}"
    return text or "the connection failed"
