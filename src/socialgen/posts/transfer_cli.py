"""`socialgen posts export` and `socialgen posts import`, registered in posts/cli.py.

Imports only typer and cli.support (plus the standard library) at module level:
`socialgen --help` loads this module.
"""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from socialgen.cli.support import (
    JsonOpt,
    WorkspaceOpt,
    creator_zone,
    emit,
    notes,
    open_workspace,
    styled,
)

if TYPE_CHECKING:
    from rich.console import Console


# What `posts import` leaves out, one and several: rows naming a post the workspace
# has (by id), published posts it already has (by address or content and date), and
# an X archive's replies and retweets.
SKIPPED_NOUNS = {
    "existing": ("post already here", "posts already here"),
    "duplicates": ("duplicate", "duplicates"),
    "replies": ("reply", "replies"),
    "retweets": ("retweet", "retweets"),
}


class ExportFormat(StrEnum):
    CSV = "csv"
    JSON = "json"
    MD = "md"
    ICS = "ics"


class StatusChoice(StrEnum):
    DRAFT = "draft"
    SCHEDULED = "scheduled"
    PUBLISHED = "published"


def export_posts(
    fmt: Annotated[
        ExportFormat, typer.Option("--format", "-f", help="csv, json, md (Markdown) or ics.")
    ] = ExportFormat.JSON,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="Write to this file (default: stdout).", show_default=False
        ),
    ] = None,
    status: Annotated[
        list[StatusChoice] | None,
        typer.Option("--status", help="Only posts with this status (repeatable; default all)."),
    ] = None,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Export all posts of the workspace as csv, json, md (Markdown) or ics (iCalendar).

    Newest first, each dated by when it is scheduled, was published or (drafts) was
    created. csv and json are a backup: every field, counts and media flag included;
    `socialgen posts import` reads them back. With --json the summary is one JSON
    object: the posts themselves in "posts" (json), the text in "content" (csv, md,
    ics), or the file written in "output"."""
    from socialgen.kit.control_chars import printable
    from socialgen.kit.errors import BadRequest
    from socialgen.kit.local_files import write_private_file
    from socialgen.posts import exports
    from socialgen.posts.repository_exports import export_items
    from socialgen.store.engine import read_session
    from socialgen.store.tables import Workspace

    engine, workspace_id = open_workspace(workspace)
    with read_session(engine) as session:
        items = export_items(session, workspace_id, [s.value for s in status or []])
        found = session.get(Workspace, workspace_id)
        name = found.name if found is not None else workspace_id
    if fmt is ExportFormat.ICS:
        text = exports.to_ics(items, calendar_name=f"socialgen: {name}")
    elif fmt is ExportFormat.CSV:
        text = exports.to_csv(items, backup=True)
    elif fmt is ExportFormat.MD:
        text = exports.to_markdown(items, title=f"Posts of {name}", zone=creator_zone())
    else:
        text = exports.to_json(items)
    summary: dict[str, object] = {"format": fmt.value, "exported": len(items)}
    if output is None:
        if json_output:
            # JSON inside JSON is the posts themselves, not a string of them: the
            # object is also a file `posts import` reads ({"posts": [...]}).
            shown: dict[str, object] = {"content": text}
            if fmt is ExportFormat.JSON:
                shown = {"posts": exports.json_posts(items)}
            emit(True, {**summary, **shown}, print)
            return
        # A file or a pipe gets the export as it is; a terminal, its control
        # characters as symbols (kit/control_chars.py), as every command prints text.
        sys.stdout.write(text if not sys.stdout.isatty() else printable(text))
        sys.stdout.flush()
        return
    try:  # as written, no newline translation: ics and csv lines end in CRLF
        write_private_file(output, text.encode("utf-8"))
    except OSError as error:
        raise BadRequest(f"Cannot write {output}: {error.strerror or error}") from None
    noun = "post" if len(items) == 1 else "posts"
    emit(
        json_output,
        {**summary, "output": str(output)},
        lambda _out: typer.echo(f"Exported {len(items)} {noun} to {output}"),  # never wrapped
    )


def import_posts_command(
    file: Annotated[
        Path,
        typer.Argument(
            help="A .csv or .json file of posts, X's archive file tweets.js, or X's "
            "analytics export (.csv).",
            show_default=False,
        ),
    ],
    show_ids: Annotated[
        bool, typer.Option("--ids", help="Also list the new posts' ids (postIds with --json).")
    ] = False,
    update: Annotated[
        bool,
        typer.Option(
            "--update",
            help="Rows whose post_id is a post here replace its content and theme "
            "(default: they are skipped).",
        ),
    ] = False,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Import posts from a .csv or .json file, X's archive tweets.js or X's analytics
    export, all or nothing.

    Posts become drafts, scheduled posts where the file gives status scheduled and a
    future date, or published posts with their counts (and media flag) where it gives
    status published and publishedAt (history for `socialgen insights`). Every row is
    checked before any post is created. A row whose post_id is a post here (an
    export read back) is skipped, or updated with --update; a published post the
    workspace already has is skipped. A date without an offset is in your time zone
    (the timezone setting); when the file's offsets show another zone, it says so."""
    from socialgen.posts.import_zone import zone_hint
    from socialgen.posts.imports import import_posts, read_import
    from socialgen.store.engine import transaction

    zone = creator_zone()  # a date without an offset is the creator's wall time
    parsed = read_import(file, zone=zone)
    hint = zone_hint(parsed.dates.offsets_seen(), zone)
    engine, workspace_id = open_workspace(workspace)
    with transaction(engine) as session:
        result = import_posts(session, workspace_id, parsed.posts, update=update)
    post_ids, scheduled = result.post_ids, result.scheduled
    skipped = {
        "existing": result.existing,
        "duplicates": result.duplicates,
        "replies": parsed.skipped_replies,
        "retweets": parsed.skipped_retweets,
    }
    data: dict[str, object] = {
        "imported": len(post_ids),
        "scheduled": scheduled,
        "published": result.published,
        "updated": result.updated,
        "skipped": skipped,
    }
    if show_ids:
        data["postIds"] = post_ids
    if hint is not None:
        data["timezoneHint"] = hint.json()

    def render(out: Console) -> None:
        noun = "post" if len(post_ids) == 1 else "posts"
        kinds = f"{scheduled} scheduled"
        if result.published:
            kinds += f", {result.published} published"
        out.print(styled(("Imported", "green"), f" {len(post_ids)} {noun} ({kinds})"))
        if result.updated:
            out.print(f"Updated {result.updated} {'post' if result.updated == 1 else 'posts'}")
        left_out = [
            f"{count} {SKIPPED_NOUNS[name][count != 1]}" for name, count in skipped.items() if count
        ]
        if left_out:
            out.print(f"Skipped {', '.join(left_out)}")
        if result.existing and not update:
            notes(out).print("Pass --update to replace their content from the file", style="dim")
        if hint is not None:
            notes(out).print(hint.message(), style="yellow")
        if show_ids:
            sys.stdout.write("".join(f"{post_id}\n" for post_id in post_ids))

    emit(json_output, data, render)
