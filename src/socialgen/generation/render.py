"""Generation events in the terminal: text as it is written, a live batch table."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from socialgen.events import Event

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID


class StreamPrinter:
    """chat / post: the answer streams to stdout; status and notes go to stderr."""

    def __init__(self, out: Console, notes: Console) -> None:
        self.out = out
        self.notes = notes
        self.failed = False
        self.conversation_id: str | None = None
        self.in_reasoning = False

    def __call__(self, item: Event) -> None:
        data = item.data
        if item.name in ("chat_delta", "content_delta"):
            sys.stdout.write(data["text"])
            sys.stdout.flush()
        elif item.name == "reasoning_started":
            self.notes.print("[dim]thinking…[/dim]")
        elif item.name == "reasoning_delta":
            self.notes.print(data["text"], style="dim", end="")
        elif item.name == "reasoning_ended":
            self.notes.print()
        elif item.name in ("url_processing_start", "scraping_url", "summarizing_content"):
            self.notes.print(f"[dim]{data.get('message') or data.get('title') or ''}[/dim]")
        elif item.name == "extraction_completed":
            self.notes.print(f"[dim]{data['message']}[/dim]")
            for failure in data.get("failed", []):
                self.notes.print(f"[yellow]skipped[/yellow] {failure['url']}: {failure['message']}")
        elif item.name == "post_ids":
            self.conversation_id = data["conversationId"]
            sys.stdout.write("\n")
            self.notes.print(
                f"\n[green]Saved draft[/green] {data['postId']} "
                f"[dim](conversation {data['conversationId']})[/dim]"
            )
            self._questions("To refine it", data["refinementQuestions"])
        elif item.name == "chat_response":
            self.conversation_id = data["conversationId"]
            sys.stdout.write("\n")
            self._questions("You could ask", data["suggestedQuestions"])
        elif item.name == "error":
            self.failed = True
            sys.stdout.write("\n")
            self.notes.print(f"[red]Error:[/red] {data['message']}")

    def _questions(self, heading: str, questions: list[str]) -> None:
        if questions:
            self.notes.print(f"[dim]{heading}:[/dim]")
            for question in questions:
                self.notes.print(f"[dim]  • {question}[/dim]")


class BatchPrinter:
    """batch: one progress row per variation, then the drafts."""

    def __init__(self, out: Console, notes: Console) -> None:
        self.out = out
        self.notes = notes
        self.failed = False
        self.progress: Progress | None = None
        self.rows: dict[int, TaskID] = {}

    def __enter__(self) -> BatchPrinter:
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

        self.progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            TextColumn("{task.fields[status]}"),
            TimeElapsedColumn(),
            console=self.notes,
            transient=False,
        )
        self.progress.start()
        return self

    def __exit__(self, *_exc: Any) -> None:
        if self.progress is not None:
            self.progress.stop()

    def __call__(self, item: Event) -> None:
        assert self.progress is not None
        data = item.data
        if item.name == "batch_progress":
            row = self.rows.get(data["current"])
            if row is None:
                row = self.progress.add_task(
                    f"{data['current']}/{data['total']} {data['variationName']}",
                    total=1,
                    status="",
                )
                self.rows[data["current"]] = row
            status = data["status"]
            label = {
                "generating": "[yellow]writing…[/yellow]",
                "completed": f"[green]done[/green] {data.get('postId', '')}",
                "failed": f"[red]failed[/red] {data.get('error', '')}",
            }.get(status, status)
            self.progress.update(row, status=label, completed=status != "generating")
        elif item.name == "batch_complete":
            self.progress.stop()
            self._show(data)
        elif item.name == "error":
            self.failed = True
            self.notes.print(f"[red]Error:[/red] {data['message']}")

    def _show(self, data: dict[str, Any]) -> None:
        from rich.panel import Panel

        for post in data["posts"]:
            self.out.print(
                Panel(
                    post["content"],
                    title=f"{post['index']}. {post['variationName']}",
                    subtitle=post["postId"],
                    expand=False,
                )
            )
        summary = data["summary"]
        if summary["failed"]:
            self.failed = True
            for failure in data["errors"]:
                self.notes.print(
                    f"[red]{failure['variationName']} failed:[/red] {failure['message']}"
                )
        self.notes.print(f"{summary['generated']} of {summary['total']} drafts saved.")
