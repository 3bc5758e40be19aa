"""`socialgen posts preview ID [--to ACCOUNT/NETWORK ...] [--html FILE]`.

posts/ sits below publishing and must not import it, so the posts group gets this
command from here (`extend_posts_group`, declared in feature.py)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from socialgen.cli.refs import open_ref, resolve_each
from socialgen.cli.support import (
    JsonOpt,
    WorkspaceOpt,
    console,
    creator_zone,
    current_runtime,
    emit,
    fail,
)
from socialgen.files.backends import files_of

if TYPE_CHECKING:
    from rich.console import Console

PostIdArg = Annotated[
    str, typer.Argument(help="Post id, or 6+ characters of it.", show_default=False)
]
ToOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--to",
        help="An account (handle, network:handle, display name or id) or a network's name "
        "(bluesky, mastodon, linkedin, x, threads, telegram, discord, nostr, pixelfed); "
        "repeat for several. Default: the accounts the post is scheduled to, else every "
        "connected account, else every network.",
        show_default=False,
    ),
]
NumberPartsOpt = Annotated[
    bool,
    typer.Option(
        "--number-parts",
        help='Number the parts of a post that becomes a thread ("1/3", "2/3", ...).',
    ),
]
HtmlOpt = Annotated[
    Path | None,
    typer.Option(
        "--html",
        help="Also write the preview as one self-contained HTML page (nothing to fetch).",
        dir_okay=False,
        show_default=False,
    ),
]


def extend_posts_group(posts_app: typer.Typer) -> None:
    """Give `socialgen posts` the preview command."""
    posts_app.command("preview")(preview)


def preview(
    post_id: PostIdArg,
    to: ToOpt = None,
    number_parts: NumberPartsOpt = False,
    html: HtmlOpt = None,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """How a post reads on each network: thread parts, LinkedIn's fold, link cards,
    the media each takes, the first comment. Sends and fetches nothing."""
    from socialgen.publishing.accounts.refs import ACCOUNT_REF
    from socialgen.publishing.preview.page_file import PageNotWritten, check_destination
    from socialgen.publishing.preview.service import preview_post

    try:
        if html is not None:
            check_destination(html)  # a typo is refused before the preview is built
    except PageNotWritten as error:
        raise fail(error.message) from None
    engine, workspace_id, post_id = open_ref(workspace, "post", post_id)
    refs = resolve_each(engine, workspace_id, ACCOUNT_REF, to or [], keep_unknown=True)
    data = preview_post(
        engine,
        workspace_id,
        post_id,
        refs,
        number_parts=number_parts,
        files=files_of(current_runtime()),
    )
    zone = creator_zone()

    def render(out: Console) -> None:
        from socialgen.publishing.preview.terminal import print_preview

        print_preview(out, data, zone)

    emit(json_output, data.model_dump(), render)
    if html is None:
        return
    from socialgen.publishing.preview.html import render_page
    from socialgen.publishing.preview.page_file import write_page

    try:
        write_page(html, render_page(data, zone))
    except PageNotWritten as error:  # the disk refused after all
        raise fail(error.message) from None
    if not json_output:
        console().print(f"Wrote the preview page to {html.resolve()}", soft_wrap=True)
