"""Remove carousel folders that no carousel owns.

A stream that fails or is cancelled removes its own folder, but a process killed
outright (SIGKILL, power loss) cannot. `socialgen serve` sweeps such folders when
it starts. A folder is only removed once nothing in it has changed for a while,
so a carousel being made right now by another process is never touched.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from sqlalchemy import Engine

from socialgen.carousels.repository import owned_carousel_ids
from socialgen.files.backends import files_of
from socialgen.files.folders import folders_of
from socialgen.files.layout import CAROUSELS_FOLDER, carousel_folder
from socialgen.files.store import FileStore

if TYPE_CHECKING:
    from socialgen.app.runtime import Runtime

QUIET_SECONDS = 3600.0


def sweep_orphaned_carousels(
    engine: Engine, files: FileStore, *, quiet_seconds: float = QUIET_SECONDS
) -> int:
    """Delete orphaned carousel folders untouched for `quiet_seconds`; returns how many."""
    folders = folders_of(files.backend, CAROUSELS_FOLDER)  # local folder or bucket alike
    if not folders:
        return 0
    owned = owned_carousel_ids(engine, [folder.name for folder in folders])
    cutoff = time.time() - quiet_seconds
    removed = 0
    for folder in folders:
        if folder.name not in owned and folder.last_change < cutoff:
            files.delete_folder(folder.workspace_id, carousel_folder(folder.name))
            removed += 1
    return removed


def sweep_before_serving(engine: Engine, runtime: Runtime) -> None:
    """`serve`'s start: the sweep of the Runtime's file store, said in one line;
    storage that cannot be reached skips it (the server starts anyway; the next start
    sweeps)."""
    from socialgen.files.backend import StorageUnavailable

    try:
        if removed := sweep_orphaned_carousels(engine, files_of(runtime)):
            print(f"removed {removed} orphaned carousel folder(s)")
    except StorageUnavailable as error:
        print(f"orphaned carousel sweep skipped: {error.message}")
