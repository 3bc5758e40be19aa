"""Generation events in the terminal: text as it is written, a live batch table."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from socialgen.cli_support import styled
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
            self.notes.print("thinking…", style="dim")
        elif item.name == "reasoning_delta":
            self.notes.print(data["text"], style="dim", end="")
        elif item.name == "reasoning_ended":
            self.notes.print()
        elif item.name in ("url_processing_start", "scraping_url", "summarizing_content"):
            self.notes.print(data.get("message") or data.get("title") or "", style="dim")
        elif item.name == "extraction_completed":
            self.notes.print(data["message"], style="dim")
            for failure in data.get("failed", []):
                self.notes.print(
                    styled(("skipped", "yellow"), f" {failure['url']}: {failure['message']}")
                )
        elif item.name == "post_ids":
            self.conversation_id = data["conversationId"]
            sys.stdout.write("\n")
            self.notes.print(
                styled(
                    "\n",
                    ("Saved draft", "green"),
                    f" {data['postId']} ",
                    (f"(conversation {data['conversationId']})", "dim"),
                )
            )
            self._questions("To refine it", data["refinementQuestions"])
        elif item.name == "chat_response":
            self.conversation_id = data["conversationId"]
            sys.stdout.write("\n")
            self._questions("You could ask", data["suggestedQuestions"])
        elif item.name == "error":
            self.failed = True
            sys.stdout.write("\n")
            self.notes.print(styled(("Error:", "red"), f" {data['message']}"))

    def _questions(self, heading: str, questions: list[str]) -> None:
        if questions:
            self.notes.print(f"{heading}:", style="dim")
            for question in questions:
                self.notes.print(f"  • {question}", style="dim")


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
            TextColumn("{task.description}", markup=False),
            TextColumn("{task.fields[status]}"),  # markup: its user parts are escaped
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
            from rich.markup import escape

            status = data["status"]
            label = {
                "generating": "[yellow]writing…[/yellow]",
                "completed": f"[green]done[/green] {escape(data.get('postId', ''))}",
                "failed": f"[red]failed[/red] {escape(data.get('error', ''))}",
            }.get(status, status)
            self.progress.update(row, status=label, completed=status != "generating")
        elif item.name == "batch_complete":
            self.progress.stop()
            self._show(data)
        elif item.name == "error":
            self.failed = True
            self.notes.print(styled(("Error:", "red"), f" {data['message']}"))

    def _show(self, data: dict[str, Any]) -> None:
        from rich.panel import Panel

        for post in data["posts"]:
            self.out.print(
                styled((f"{post['index']}. {post['variationName']}", "bold"), f"  {post['postId']}")
            )
            self.out.print(Panel(post["content"], expand=False))
        summary = data["summary"]
        if summary["failed"]:
            self.failed = True
            for failure in data["errors"]:
                self.notes.print(
                    styled((f"{failure['variationName']} failed:", "red"), f" {failure['message']}")
                )
        self.notes.print(f"{summary['generated']} of {summary['total']} drafts saved.")
