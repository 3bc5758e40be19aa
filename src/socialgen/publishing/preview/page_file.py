"""Writing the preview page where the user asked: refused early with a clear message
when it cannot be written there, then written atomically (a reader sees the old page
or the new one) and private to its user (0600), as every export: it quotes the post."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from socialgen.kit.errors import SocialgenError
from socialgen.kit.local_files import PRIVATE_FILE


class PageNotWritten(SocialgenError):
    """The page could not be written where the user asked; the message says why."""


def check_destination(path: Path) -> None:
    """A clear refusal, before any work, for a page that cannot be written there."""
    if not path.parent.is_dir():
        raise PageNotWritten(f"Cannot write the preview page {path}: {path.parent} is not a folder")
    if path.is_dir():
        raise PageNotWritten(f"Cannot write the preview page {path}: it is a folder")


def write_page(path: Path, page: str) -> None:
    """A temporary file beside `path`, flushed and renamed over it."""
    check_destination(path)
    temporary: str | None = None
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(page)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, PRIVATE_FILE)
        os.replace(temporary, path)
    except OSError as error:
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)
        reason = error.strerror or str(error)
        raise PageNotWritten(f"Cannot write the preview page {path}: {reason}") from None
