"""The owner folders in the store (`<workspace>/<kind>/<name>/...`), each with the
time of its newest file, read from whichever backend keeps the files: what the
sweep of abandoned carousels needs to decide, on a local folder or a bucket."""

from __future__ import annotations

from dataclasses import dataclass

from socialgen.files.backend import FileBackend


@dataclass(frozen=True)
class Folder:
    workspace_id: str
    name: str  # e.g. a carousel id
    last_change: float  # newest file, seconds since the epoch (the storage's clock)


def folders_of(backend: FileBackend, kind: str) -> list[Folder]:
    """Every `<workspace>/<kind>/<name>/` in `backend` that holds at least one file."""
    newest: dict[tuple[str, str], float] = {}
    for item in backend.list():
        parts = item.key.split("/")
        if len(parts) >= 4 and parts[1] == kind:
            owner = (parts[0], parts[2])
            newest[owner] = max(newest.get(owner, 0.0), item.modified)
    return [Folder(ws, name, when) for (ws, name), when in newest.items()]
