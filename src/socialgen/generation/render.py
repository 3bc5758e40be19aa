"""Generation events in the terminal: text as it is written, a live batch table.

Each event carries its payload model (`Event.payload`, checked where the event was
built), so a printer can only use fields the contract declares, mypy checks it, and
nothing is validated again here.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from socialgen.cli.support import styled
from socialgen.cli.wrap import WordWrap
from socialgen.events import Event
from socialgen.events.chat import (
    ChatDelta,
    ChatResponse,
    ContentDelta,
    ExtractionCompleted,
    PostIds,
    ReasoningDelta,
    ReasoningEnded,
    ReasoningStarted,
    ScrapingUrl,
    SummarizingContent,
    UrlProcessingStart,
)
from socialgen.events.common import StreamError
from socialgen.generation.batch_events import BatchComplete, BatchProgress
from socialgen.kit.control_chars import printable

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID


class StreamPrinter:
    """chat / post: the answer streams to stdout; status and notes go to stderr."""

    def __init__(self, out: Console, notes: Console) -> None:
        self.out = out
        self.notes = notes
        self.failed = False
        self.in_reasoning = False
        # A terminal gets the text wrapped between words; a pipe gets it as written
        # (but for control characters, shown as symbols on both).
        self.wrap = WordWrap(sys.stdout.write, out.width) if out.is_terminal else None

    def __enter__(self) -> StreamPrinter:
        return self

    def __exit__(self, *_exc: object) -> None:
        if self.wrap is not None:  # a stream that ended on a word: it is shown
            self.wrap.end()
            sys.stdout.flush()

    def __call__(self, item: Event) -> None:
        if self.wrap is not None and not isinstance(item.payload, ChatDelta | ContentDelta):
            self.wrap.end()  # whatever follows the text starts after its last word
        match item.payload:
            case ChatDelta(text=text) | ContentDelta(text=text):
                text = printable(text)  # a model's ESC is shown, never sent to the terminal
                if self.wrap is not None:
                    self.wrap.feed(text)
                else:
                    sys.stdout.write(text)
                sys.stdout.flush()
            case ReasoningStarted():
                self.notes.print("thinking…", style="dim")
            case ReasoningDelta(text=text):
                self.notes.print(text, style="dim", end="")
            case ReasoningEnded():
                self.notes.print()
            case UrlProcessingStart(message=note) | ScrapingUrl(message=note):
                self.notes.print(note, style="dim")
            case SummarizingContent(title=title):
                self.notes.print(title, style="dim")
            case ExtractionCompleted() as done:
                self.notes.print(done.message, style="dim")
                for failure in done.failed:
                    self.notes.print(
                        styled(("skipped", "yellow"), f" {failure.url}: {failure.message}")
                    )
            case PostIds() as saved:
                sys.stdout.write("\n")
                self.notes.print(
                    styled(
                        "\n",
                        ("Saved draft", "green"),
                        f" {saved.postId} ",
                        (f"(conversation {saved.conversationId})", "dim"),
                    )
                )
                self._questions("To refine it", saved.refinementQuestions)
            case ChatResponse() as answer:
                sys.stdout.write("\n")
                self._questions("You could ask", answer.suggestedQuestions)
            case StreamError(message=message):
                self.failed = True
                sys.stdout.write("\n")
                self.notes.print(styled(("Error:", "red"), f" {message}"))

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
        match item.payload:
            case BatchProgress() as step:
                self._step(self.progress, step)
            case BatchComplete() as result:
                self.progress.stop()
                self._show(result)
            case StreamError(message=message):
                self.failed = True
                self.notes.print(styled(("Error:", "red"), f" {message}"))

    def _step(self, progress: Progress, step: BatchProgress) -> None:
        from rich.markup import escape

        row = self.rows.get(step.current)
        if row is None:
            row = progress.add_task(
                f"{step.current}/{step.total} {step.variationName}", total=1, status=""
            )
            self.rows[step.current] = row
        label = {
            "generating": "[yellow]writing…[/yellow]",
            "completed": f"[green]done[/green] {escape(step.postId or '')}",
            "failed": f"[red]failed[/red] {escape(step.error or '')}",
        }[step.status]
        progress.update(row, status=label, completed=step.status != "generating")

    def _show(self, result: BatchComplete) -> None:
        from rich.panel import Panel

        ranking = result.ranking
        posts = result.posts
        if ranking is not None:  # likeliest to do well first, each with its score
            place = {post_id: rank for rank, post_id in enumerate(ranking.order)}
            posts = sorted(posts, key=lambda post: place.get(post.postId, len(place)))
            self.notes.print(
                f"In the order your history predicts (it ordered {ranking.heldOutAccuracy:.0%}"
                f" of {ranking.pairs} pairs of your latest posts right; 50% is chance):"
            )
        for post in posts:
            score = (
                ""
                if ranking is None or post.postId not in ranking.scores
                else f"  score {ranking.scores[post.postId]:.2f}"
            )
            self.out.print(
                styled((f"{post.index}. {post.variationName}", "bold"), f"  {post.postId}{score}")
            )
            self.out.print(Panel(post.content, expand=False))
        summary = result.summary
        if summary.failed:
            self.failed = True
            for failure in result.errors:
                self.notes.print(
                    styled((f"{failure.variationName} failed:", "red"), f" {failure.message}")
                )
        self.notes.print(f"{summary.generated} of {summary.total} drafts saved.")
