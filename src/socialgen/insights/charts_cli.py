"""`socialgen insights --html FILE [--open]`, and the terminal charts: what the insights
command does with its report once it has one (insights/cli.py calls `emit_charts`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

if TYPE_CHECKING:
    from rich.console import Console

HtmlOpt = Annotated[
    Path | None,
    typer.Option(
        "--html",
        help="Also write the report as one self-contained HTML page (no network needed).",
        dir_okay=False,
        show_default=False,
    ),
]
OpenOpt = Annotated[bool, typer.Option("--open", help="Open the --html page in your browser.")]
OPEN_NEEDS_HTML = "--open opens the page written by --html: give --html FILE too"


def check_chart_options(html: Path | None, open_page: bool) -> None:
    """The refusals of --html and --open, for the command to make before it builds a
    report (emit_charts makes them again, so calling this is only quicker)."""
    from socialgen.cli.support import fail
    from socialgen.insights.html_page import PageNotWritten, check_destination

    if open_page and html is None:
        raise fail(OPEN_NEEDS_HTML)
    try:
        if html is not None:
            check_destination(html)
    except PageNotWritten as error:
        raise fail(error.message) from None


PostTexts = Callable[[list[str]], Mapping[str, str]]


def emit_charts(
    report: dict[str, Any],
    *,
    console: Console | None,
    html: Path | None,
    open_page: bool,
    texts: PostTexts | None = None,
) -> None:
    """Draw `report`'s charts on `console` (None with --json: stdout is the JSON's),
    write the page to `html` when given and open it in a browser with `open_page`.
    A page that cannot be written is an error (exit 1) naming the file and why.
    `texts` (`post_texts`) finds the text of the posts the page lists."""
    from socialgen.cli.support import fail
    from socialgen.insights.html_page import PageNotWritten, top_post_ids, write_html

    check_chart_options(html, open_page)  # refused before anything is drawn
    if console is not None:
        from socialgen.insights.charts_terminal import print_charts

        print_charts(report, console)
    if html is None:
        return
    try:
        write_html(report, html, texts(top_post_ids(report)) if texts is not None else None)
    except PageNotWritten as error:  # the disk refused after all
        raise fail(error.message) from None
    page = html.resolve()
    if console is not None:
        console.print(f"Wrote the insights page to {page}", soft_wrap=True)  # copyable
    if open_page:
        import webbrowser

        if not webbrowser.open(page.as_uri()) and console is not None:
            console.print(f"No browser could be opened: open {page} yourself.", soft_wrap=True)


def post_texts(workspace: str | None) -> PostTexts:
    """The text of posts of the command's workspace, by id, read when the page is
    written: the report carries ids only (its JSON stays small)."""

    def read(post_ids: list[str]) -> Mapping[str, str]:
        from socialgen.cli.support import open_workspace
        from socialgen.kit.errors import NotFound
        from socialgen.posts.service import get_post
        from socialgen.store.engine import read_session

        engine, workspace_id = open_workspace(workspace)
        found: dict[str, str] = {}
        with read_session(engine) as session:
            for post_id in post_ids:
                try:
                    found[post_id] = get_post(session, workspace_id, post_id).content
                except NotFound:  # deleted since the report was built
                    continue
        return found

    return read
