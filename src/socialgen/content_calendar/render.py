"""A calendar run in the terminal: sources as they are read, one progress bar for
the days, then the plan as a table."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from socialgen.cli_support import styled
from socialgen.events import Event

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID


class CalendarPrinter:
    def __init__(self, out: Console, notes: Console) -> None:
        self.out = out
        self.notes = notes
        self.failed = False
        self.posts: list[dict[str, Any]] = []
        self.progress: Progress | None = None
        self.bar: TaskID | None = None

    def __enter__(self) -> CalendarPrinter:
        return self

    def __exit__(self, *_exc: Any) -> None:
        if self.progress is not None:
            self.progress.stop()

    def __call__(self, item: Event) -> None:
        data = item.data
        if item.name == "generation_started":
            self.notes.print(data["message"], style="bold")
        elif item.name == "source_processing":
            mark = ("✓ ", "green") if data["status"] == "complete" else ("… ", "dim")
            self.notes.print(styled(mark, data["message"]))
        elif item.name == "calendar_progress":
            self._advance(data)
        elif item.name == "calendar_complete":
            if self.progress is not None:
                self.progress.stop()
            self.posts = data["posts"]
            self._show(data)
        elif item.name == "error":
            self.failed = True
            self.notes.print(styled(("Error:", "red"), f" {data['message']}"))

    def _advance(self, data: dict[str, Any]) -> None:
        if self.progress is None:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            self.progress = Progress(
                TextColumn("days"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[note]}", markup=False),
                console=self.notes,
            )
            self.progress.start()
            self.bar = self.progress.add_task("days", total=data["total"], note="")
        assert self.bar is not None
        if data["status"] in ("completed", "failed"):
            self.progress.advance(self.bar)
        if data["status"] == "failed":
            self.failed = True
            self.progress.console.print(styled(("✗ ", "red"), data["message"]))
        self.progress.update(self.bar, note=data["message"])

    def _show(self, data: dict[str, Any]) -> None:
        from rich.table import Table

        table = Table(title=f"{data['calendarLength']}-day content calendar", title_justify="left")
        for column in ("day", "date", "theme", "post"):
            table.add_column(column, overflow="fold" if column == "post" else "ellipsis")
        for post in data["posts"]:
            table.add_row(
                str(post["index"]),
                post["suggestedDate"][:16].replace("T", " "),
                post["theme"],
                post["postId"],
            )
        self.out.print(table)
        summary = data["summary"]
        if summary["failed"]:
            self.failed = True
        self.notes.print(f"{summary['generated']} of {summary['total']} drafts saved.")
