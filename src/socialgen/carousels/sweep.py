"""Remove carousel folders that no carousel owns.

A stream that fails or is cancelled removes its own folder, but a process killed
outright (SIGKILL, power loss) cannot. `socialgen serve` sweeps such folders when
it starts. A folder is only removed once nothing in it has changed for a while,
so a carousel being made right now by another process is never touched.
"""

from __future__ import annotations

import time
from pathlib import Path

from sqlalchemy import Engine
from sqlmodel import col, select

from socialgen.files.layout import CAROUSELS_FOLDER, carousel_folder
from socialgen.files.store import delete_folder, files_root
from socialgen.store.engine import read_session
from socialgen.store.tables import Carousel

QUIET_SECONDS = 3600.0


def sweep_orphaned_carousels(engine: Engine, *, quiet_seconds: float = QUIET_SECONDS) -> int:
    """Delete orphaned carousel folders untouched for `quiet_seconds`; returns how many."""
    root = files_root()
    if not root.is_dir():
        return 0
    folders = [folder for folder in root.glob(f"*/{CAROUSELS_FOLDER}/*") if folder.is_dir()]
    if not folders:
        return 0
    with read_session(engine) as session:
        owned = set(
            session.exec(select(Carousel.id).where(col(Carousel.id).in_([f.name for f in folders])))
        )
    cutoff = time.time() - quiet_seconds
    removed = 0
    for folder in folders:
        if folder.name not in owned and _last_change(folder) < cutoff:
            workspace_id = folder.parent.parent.name
            delete_folder(workspace_id, carousel_folder(folder.name))
            removed += 1
    return removed


def _last_change(folder: Path) -> float:
    """The newest change in the folder; now if it changes under our feet (another
    process cleaning up or writing): such a folder is not quiet."""
    try:
        times = [folder.stat().st_mtime]
        times += [entry.stat().st_mtime for entry in folder.iterdir()]
    except FileNotFoundError:
        return time.time()
    return max(times)
