"""A calendar run in the terminal: sources as they are read, one progress bar for
the days, then the plan as a table. Events are read through their payload models."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from socialgen.cli.support import IdShortener, creator_zone, styled
from socialgen.content_calendar.events import (
    CalendarComplete,
    CalendarProgress,
    GenerationStarted,
    SourceProcessing,
)
from socialgen.events import Event
from socialgen.events.common import StreamError

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID


_DATE_CHARS = 16  # "2026-12-08 09:00"
_TABLE_FRAME = 13  # four columns: five rules and a space either side of each cell


class CalendarPrinter:
    def __init__(self, out: Console, notes: Console, shorten: IdShortener | None = None) -> None:
        self.out = out
        self.notes = notes
        self.shorten = shorten  # the drafts' ids as the listings show them (cli.refs)
        self.failed = False
        self.progress: Progress | None = None
        self.bar: TaskID | None = None

    def __enter__(self) -> CalendarPrinter:
        return self

    def __exit__(self, *_exc: Any) -> None:
        if self.progress is not None:
            self.progress.stop()

    def __call__(self, item: Event) -> None:
        match item.payload:
            case GenerationStarted(message=message):
                self.notes.print(message, style="bold")
            case SourceProcessing(status=status, message=message):
                mark = ("✓ ", "green") if status == "complete" else ("… ", "dim")
                self.notes.print(styled(mark, message))
            case CalendarProgress() as day:
                self._advance(day)
            case CalendarComplete() as calendar:
                if self.progress is not None:
                    self.progress.stop()
                self._show(calendar)
            case StreamError(message=message):
                self.failed = True
                self.notes.print(styled(("Error:", "red"), f" {message}"))

    def _advance(self, day: CalendarProgress) -> None:
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
            self.bar = self.progress.add_task("days", total=day.total, note="")
        assert self.bar is not None
        if day.status in ("completed", "failed"):
            self.progress.advance(self.bar)
        if day.status == "failed":
            self.failed = True
            self.progress.console.print(styled(("✗ ", "red"), day.message))
        self.progress.update(self.bar, note=day.message)

    def _show(self, calendar: CalendarComplete) -> None:
        from rich.table import Table
        from rich.text import Text

        from socialgen.kit.local_time import local_minute, zone_header
        from socialgen.posts.views import snippet

        # A day as a person finds its draft again: the short id `posts show` takes
        # (whole on its line), the theme and, under it, the draft's opening. The ids'
        # 32 characters wrapped and left the opening little room at 80 columns; the
        # last column is capped at what the others leave (rich measured its no-wrap
        # cells whole and squeezed the day and date to nothing).
        ids = [post.postId for post in calendar.posts]
        short = self.shorten(ids) if self.shorten is not None else {}
        shown = [short.get(post_id, post_id) for post_id in ids]
        day_width = max(len("day"), len(str(len(ids))))
        id_width = max([len("id"), *map(len, shown)])
        zone = creator_zone()
        date_header = zone_header("date", zone)
        date_width = max(_DATE_CHARS, len(date_header))
        left = self.out.width - day_width - date_width - id_width - _TABLE_FRAME
        table = Table(title=f"{calendar.calendarLength}-day content calendar", title_justify="left")
        table.add_column("day", no_wrap=True)
        table.add_column(date_header, no_wrap=True)
        table.add_column("id", no_wrap=True)
        table.add_column("theme / post", no_wrap=True, overflow="ellipsis", max_width=max(10, left))
        for post, post_id in zip(calendar.posts, shown, strict=True):
            theme = post.theme + (" (template)" if post.source == "template" else "")
            table.add_row(
                str(post.index),
                local_minute(post.suggestedDate, zone),
                post_id,
                Text.assemble((theme, "bold"), "\n", (snippet(post.content), "dim")),
            )
        self.out.print(table)
        stood_in = sum(post.source == "template" for post in calendar.posts)
        if stood_in:
            self.notes.print(
                f"the model gave no usable theme for {stood_in} of {len(calendar.posts)} days;"
                " they use a classic post format (marked template)",
                style="dim",
            )
        summary = calendar.summary
        if summary.failed:
            self.failed = True
        self.notes.print(f"{summary.generated} of {summary.total} drafts saved.")
