"""Progress bars for `models pull`, shaped as the tqdm-like class huggingface_hub's
http_get drives: made with (total, initial, desc, ...), advanced with update(n),
closed on exit. A resumed download starts the bar at the bytes already on disk."""

from __future__ import annotations

from typing import Any


class RichBar:
    """A rich progress bar on stderr: bytes, speed, time left."""

    def __init__(
        self, *, total: int | None = None, initial: int = 0, desc: str = "", **_: Any
    ) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            DownloadColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
            TransferSpeedColumn,
        )

        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            DownloadColumn(),
            TransferSpeedColumn(),
            TimeRemainingColumn(),
            console=Console(stderr=True, highlight=False),
            transient=False,
        )
        self._task = self._progress.add_task(desc, total=total, completed=initial)
        self._progress.start()

    def update(self, count: int | float = 1) -> None:
        self._progress.advance(self._task, count)

    def close(self) -> None:
        self._progress.stop()

    def __enter__(self) -> RichBar:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class NoBar:
    """--json: nothing drawn."""

    def __init__(self, **_: Any) -> None:
        pass

    def update(self, count: int | float = 1) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self) -> NoBar:
        return self

    def __exit__(self, *_: object) -> None:
        pass
