"""`socialgen files ...`: the file store from the terminal (moving it into a bucket)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from socialgen.cli.support import (
    JsonOpt,
    command_group,
    console,
    current_runtime,
    emit,
    fail,
)
from socialgen.files.backends import files_of

app = command_group()  # its help: the feature's Group (feature.py)


@app.command()
def migrate(
    source: Annotated[
        Path | None,
        typer.Option(
            "--from",
            help="Local files folder to copy (default: $SOCIALGEN_HOME/files).",
            show_default=False,
        ),
    ] = None,
    json_output: JsonOpt = False,
) -> None:
    """Copy a local files folder into the bucket SOCIALGEN_FILES_URL names.

    Safe to run again: files already in the bucket are skipped. The local folder is
    left as it is; remove it yourself once the bucket serves your files.
    """
    from socialgen.files.migrate import migrate as copy_files

    files = files_of(current_runtime())  # the bucket the settings name
    url = files.bucket_url
    if url is None:
        raise fail(
            "SOCIALGEN_FILES_URL is not set: name the bucket to copy into (s3://bucket/prefix)"
        )
    folder = source or files.root
    if not folder.is_dir():
        raise fail(f"No files folder at {folder}")
    target = files.backend
    if json_output:
        result = copy_files(folder, target)
    else:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        with Progress(
            TextColumn("copying"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=console(stderr=True),
        ) as progress:
            task = progress.add_task("copy", total=None)
            result = copy_files(
                folder,
                target,
                on_start=lambda total: progress.update(task, total=total),
                on_copied=lambda _item: progress.advance(task),
            )
    summary = result.summary()
    emit(
        json_output,
        {"success": not result.failed, "from": str(folder), "to": url, **summary},
        lambda out: out.print(
            f"{result.copied} copied, {result.skipped} already in {url}, "
            f"{len(result.failed)} failed ({result.seconds:.1f} s)"
        ),
    )
    if result.failed:
        raise fail(f"{len(result.failed)} file(s) could not be copied; run the command again")
