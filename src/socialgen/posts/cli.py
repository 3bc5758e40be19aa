"""`socialgen posts ...` and `socialgen conversations`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from socialgen.cli.refs import open_ref
from socialgen.cli.support import (
    JsonOpt,
    WorkspaceOpt,
    command_group,
    confirm,
    creator_zone,
    current_runtime,
    emit,
    open_workspace,
    styled,
)
from socialgen.kit.limits import DEFAULT_PAGE, DEFAULT_PAGE_LIMIT, PAGE, PAGE_LIMIT

if TYPE_CHECKING:
    from zoneinfo import ZoneInfo

app = command_group()  # its help: the feature's Group (feature.py)
from socialgen.posts.listing_cli import list_posts, recent, search_posts, timeline  # noqa: E402
from socialgen.posts.listing_cli import write_post_list as write_post_list  # noqa: E402
from socialgen.posts.transfer_cli import export_posts, import_posts_command  # noqa: E402

app.command("export")(export_posts)
app.command("import")(import_posts_command)
app.command("recent")(recent)
app.command("timeline")(timeline)
app.command("list")(list_posts)
app.command("search")(search_posts)

PostIdArg = Annotated[
    str, typer.Argument(help="Post id, or 6+ characters of it.", show_default=False)
]


@app.command()
def show(post_id: PostIdArg, workspace: WorkspaceOpt = None, json_output: JsonOpt = False) -> None:
    """One post in full, with its versions."""
    from socialgen.posts.service import show_post
    from socialgen.store.engine import read_session

    engine, workspace_id, post_id = open_ref(workspace, "post", post_id)
    with read_session(engine) as session:
        detail = show_post(session, workspace_id, post_id)
    from socialgen.posts.tables_cli import print_post_detail

    emit(json_output, detail.json_data(), lambda out: print_post_detail(out, detail))


@app.command()
def edit(
    post_id: PostIdArg,
    content: Annotated[
        str | None, typer.Option("--content", "-c", help="The new text of the post.")
    ] = None,
    editor: Annotated[bool, typer.Option("--editor", help="Edit the text in $EDITOR.")] = False,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Replace the text of a draft or scheduled post (kept as a new version)."""
    from socialgen.kit.errors import BadRequest
    from socialgen.posts.service import get_post, update_content
    from socialgen.store.engine import read_session, transaction

    if (content is None) == (not editor):
        raise BadRequest("Give the new text with --content TEXT, or use --editor")
    engine, workspace_id, post_id = open_ref(workspace, "post", post_id)
    if editor:
        with read_session(engine) as session:
            current = get_post(session, workspace_id, post_id).content
        # Judged by the text, not by click's mtime check: a quick editor can write
        # within one clock tick of the file's creation and look untouched.
        content = _edit_in_editor(current)
        if content.strip() == current.strip():
            raise BadRequest("Edit cancelled: the text was not changed")
        from socialgen.kit.text_check import check_text

        check_text(content, "The edited text")
    with transaction(engine) as session:
        post = update_content(session, workspace_id, post_id, content)
        data = {"postId": post.id, "content": post.content}
    emit(json_output, data, lambda out: out.print(styled(("Updated", "green"), f" post {post_id}")))


def _edit_in_editor(text: str) -> str:
    """The text after $EDITOR saved it. The file is read back as any user's file
    (socialgen.kit.local_files): an editor that leaves a FIFO or a link to a device
    in its place gets a clear refusal, not a hang or a read without end."""
    import tempfile
    from pathlib import Path

    import click

    from socialgen.kit.errors import BadRequest
    from socialgen.kit.local_files import MAX_TEXT_FILE_BYTES, read_regular_file

    # A private folder, not a bare temp file: whatever the editor leaves beside or
    # in place of the file (a backup, a swap file) goes with it.
    with tempfile.TemporaryDirectory(prefix="socialgen-edit-") as folder:
        path = Path(folder, "post.txt")
        path.write_text(text if text.endswith("\n") else f"{text}\n", encoding="utf-8")
        click.edit(filename=str(path))
        data = read_regular_file(path, MAX_TEXT_FILE_BYTES)
    try:
        return data.decode("utf-8-sig").replace("\r\n", "\n")
    except UnicodeDecodeError as error:
        raise BadRequest(f"The edited text is not UTF-8 (byte {error.start + 1})") from None


@app.command()
def delete(
    post_id: PostIdArg,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Delete a draft or scheduled post, its versions and its conversation."""
    from socialgen.posts.removal import remove_post
    from socialgen.posts.rules import ensure_deletable
    from socialgen.posts.service import get_post
    from socialgen.posts.views import snippet
    from socialgen.store.engine import read_session

    engine, workspace_id, post_id = open_ref(workspace, "post", post_id)
    if not yes:
        with read_session(engine) as session:
            post = get_post(session, workspace_id, post_id)
            ensure_deletable(post)
        confirm(
            f"Delete {post.status} post {post.id} ({snippet(post.content, 40)!r}) "
            "with its versions and conversation?"
        )
    from socialgen.files.backends import files_of

    data = remove_post(engine, files_of(current_runtime()), workspace_id, post_id).json_data()
    emit(json_output, data, lambda out: out.print(styled(("Deleted", "green"), f" post {post_id}")))


@app.command()
def schedule(
    post_id: PostIdArg,
    at: Annotated[
        str,
        typer.Option(
            "--at", help="When to publish, ISO 8601 (your time zone unless an offset is given)."
        ),
    ],
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Schedule a draft (or move a scheduled post) to a future time."""
    from socialgen.kit.clock import iso
    from socialgen.posts import service
    from socialgen.store.engine import transaction

    moment = _parse_moment(at, creator_zone())
    engine, workspace_id, post_id = open_ref(workspace, "post", post_id)
    with transaction(engine) as session:
        post = service.schedule(session, workspace_id, post_id, moment)
        data = {"postId": post.id, "status": post.status, "scheduledAt": iso(post.scheduled_at)}
    emit(json_output, data, lambda out: out.print(f"Scheduled {post_id} for {data['scheduledAt']}"))


@app.command()
def unschedule(
    post_id: PostIdArg, workspace: WorkspaceOpt = None, json_output: JsonOpt = False
) -> None:
    """Turn a scheduled post back into a draft."""
    from socialgen.posts import service
    from socialgen.store.engine import transaction

    engine, workspace_id, post_id = open_ref(workspace, "post", post_id)
    with transaction(engine) as session:
        post = service.unschedule(session, workspace_id, post_id)
        data = {"postId": post.id, "status": post.status, "scheduledAt": None}
    emit(json_output, data, lambda out: out.print(f"{post_id} is a draft again"))


@app.command("mark-published")
def mark_published(
    post_id: PostIdArg,
    url: Annotated[str | None, typer.Option("--url", help="Where the post now lives.")] = None,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Record that a scheduled post went out (published is final)."""
    from socialgen.kit.clock import iso
    from socialgen.posts import service
    from socialgen.store.engine import transaction

    engine, workspace_id, post_id = open_ref(workspace, "post", post_id)
    with transaction(engine) as session:
        post = service.mark_published(session, workspace_id, post_id, url)
        data = {
            "postId": post.id,
            "status": post.status,
            "publishedAt": iso(post.published_at),
            "postUrl": post.post_url,
        }
    emit(json_output, data, lambda out: out.print(styled(("Published", "green"), f" {post_id}")))


def conversations(
    page: Annotated[int, typer.Option(help=f"Page number, {PAGE.describe()}.")] = DEFAULT_PAGE,
    limit: Annotated[
        int, typer.Option(help=f"Conversations per page, {PAGE_LIMIT.describe()}.")
    ] = DEFAULT_PAGE_LIMIT,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Past AI conversations, newest first."""
    from socialgen.posts.listing import check_page, conversations_page
    from socialgen.store.engine import read_session

    check_page(page, limit)
    engine, workspace_id = open_workspace(workspace)
    with read_session(engine) as session:
        data = conversations_page(session, workspace_id, page, limit).json_data()
    from socialgen.cli.refs import shortener
    from socialgen.posts.tables_cli import print_conversations

    shorten = shortener(engine, "conversation", workspace_id)
    emit(json_output, data, lambda out: print_conversations(out, data, shorten))


def _parse_moment(text: str, zone: ZoneInfo) -> Any:
    from socialgen.kit.clock import DateOutOfRange, parse_iso
    from socialgen.kit.errors import BadRequest

    try:
        return parse_iso(text, zone)
    except DateOutOfRange as error:
        raise BadRequest(str(error)) from None
    except ValueError:
        raise BadRequest(f"Not an ISO 8601 time: {text!r} (e.g. 2026-12-01T09:00:00Z)") from None
