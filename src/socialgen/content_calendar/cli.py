"""`socialgen calendar 7|30 ...`."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Annotated, Any

import typer

from socialgen.cli.events import command_resources, stream_in_terminal
from socialgen.cli.support import JsonOpt, WorkspaceOpt, console, creator_zone
from socialgen.files.backends import files_of


def calendar(
    days: Annotated[int, typer.Argument(help="7 or 30.", show_default=False)],
    prompt: Annotated[str | None, typer.Option("--prompt", help="Topic or instruction.")] = None,
    video: Annotated[
        str | None, typer.Option("--video", help="A video URL (YouTube or any site yt-dlp reads).")
    ] = None,
    article: Annotated[
        list[str] | None, typer.Option("--article", help="An article URL (repeat for several).")
    ] = None,
    pdf: Annotated[Path | None, typer.Option("--pdf", help="A PDF (10 MB at most).")] = None,
    style: Annotated[
        str | None, typer.Option("--style", help="Content style (name or id).")
    ] = None,
    start: Annotated[
        str | None, typer.Option("--start", help="First day, YYYY-MM-DD (default: tomorrow).")
    ] = None,
    ics: Annotated[Path | None, typer.Option("--ics", help="Also write an iCalendar file.")] = None,
    csv: Annotated[Path | None, typer.Option("--csv", help="Also write a CSV file.")] = None,
    markdown: Annotated[
        Path | None, typer.Option("--markdown", help="Also write Markdown.")
    ] = None,
    queue: Annotated[
        bool,
        typer.Option(
            "--queue", help="Fill your posting queue's next free slots (socialgen queue)."
        ),
    ] = False,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """A content calendar: one draft per day from a prompt, a video, articles and/or a PDF."""
    from socialgen.app.caller import Caller
    from socialgen.cli.refs import resolve_in, shortener
    from socialgen.cli.support import current_runtime, open_workspace
    from socialgen.content_calendar.events import CalendarComplete
    from socialgen.content_calendar.operations import CREATE_CALENDAR
    from socialgen.content_calendar.render import CalendarPrinter
    from socialgen.content_calendar.schemas import CalendarRequest
    from socialgen.kit.errors import BadRequest

    for target in (ics, csv, markdown):
        if target is not None and not target.parent.is_dir():
            raise BadRequest(f"Cannot write {target}: no such directory {target.parent}")
    request = CalendarRequest(
        calendar_length=days,
        prompt=(prompt or "").strip() or None,
        youtube_url=(video or "").strip() or None,
        article_urls=[url.strip() for url in article or [] if url.strip()],
        content_style_id=style,
        pdf=_read_pdf(pdf) if pdf is not None else None,
        start=_start_date(start, days),
        queue=queue,
    )
    engine, workspace_id = open_workspace(workspace)
    request.content_style_id = resolve_in(engine, workspace_id, "style", style)
    caller = Caller(
        engine, workspace_id, None, current_runtime().settings, files=files_of(current_runtime())
    )
    result = stream_in_terminal(
        CREATE_CALENDAR.stream(caller, request, command_resources()),
        json_output=json_output,
        printer=partial(CalendarPrinter, shorten=shortener(engine, "post", workspace_id)),
        completed=CalendarComplete,
    )
    # The days that were written are exported even when others failed.
    posts = [post.wire() for post in result.completed.posts] if result.completed else []
    _export(posts, ics=ics, csv=csv, markdown=markdown, days=days, quiet=json_output)
    if queue and posts:  # each draft into its day's slot: `socialgen queue` lists them
        from socialgen.publishing.queue.calendar_fill import fill_queue

        placed = fill_queue(engine, workspace_id, posts)
        if not json_output:
            console(stderr=True).print(f"queued {len(placed)} post(s): socialgen queue")
    result.finish()


def _export(
    posts: list[dict[str, Any]],
    *,
    ics: Path | None,
    csv: Path | None,
    markdown: Path | None,
    days: int,
    quiet: bool,
) -> None:
    if not posts or not (ics or csv or markdown):
        return
    from socialgen.content_calendar.export import write_exports

    for path in write_exports(
        posts, ics=ics, csv=csv, markdown=markdown, days=days, zone=creator_zone()
    ):
        if not quiet:
            console(stderr=True).print(f"wrote {path}")


def _read_pdf(path: Path) -> bytes:
    from socialgen.kit.limits import MAX_PDF_BYTES
    from socialgen.kit.local_files import read_regular_file
    from socialgen.kit.uploads import size_text

    too_large = f"The PDF is larger than {size_text(MAX_PDF_BYTES)}"
    return read_regular_file(path, MAX_PDF_BYTES, too_large=too_large)


def _start_date(text: str | None, days: int) -> Any:
    """The first day; the whole calendar within the dates socialgen keeps (kit/clock)."""
    if text is None:
        return None
    from datetime import date, timedelta

    from socialgen.kit.clock import DATE_RANGE, EARLIEST, LATEST
    from socialgen.kit.errors import BadRequest

    try:
        start = date.fromisoformat(text.strip())
    except ValueError:
        raise BadRequest(f"--start must be a date like 2026-12-01, not {text!r}") from None
    if start < EARLIEST.date() or start > LATEST.date() - timedelta(days=days):
        raise BadRequest(f"--start {start}: a calendar's days must fall {DATE_RANGE}")
    return start
