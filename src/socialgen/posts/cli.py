"""`socialgen posts ...` and `socialgen conversations`."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, TextIO

import typer

from socialgen.cli.refs import open_ref
from socialgen.cli.support import (
    IdShortener,
    JsonOpt,
    WorkspaceOpt,
    command_group,
    confirm,
    current_runtime,
    emit,
    open_workspace,
    styled,
)
from socialgen.kit.limits import (
    DEFAULT_PAGE,
    DEFAULT_PAGE_LIMIT,
    DEFAULT_TABLE_POSTS,
    PAGE,
    PAGE_LIMIT,
    POST_LIST_LIMIT,
)

if TYPE_CHECKING:
    from socialgen.posts.views import PostListJson

app = command_group()  # its help: the feature's Group (feature.py)
from socialgen.posts.transfer_cli import export_posts, import_posts_command  # noqa: E402

app.command("export")(export_posts)
app.command("import")(import_posts_command)

PostIdArg = Annotated[
    str, typer.Argument(help="Post id, or 6+ characters of it.", show_default=False)
]
LimitOpt = Annotated[
    int | None,
    typer.Option(
        "--limit",
        help=f"At most N posts, latest first ({POST_LIST_LIMIT.describe()}). Default: "
        f"{DEFAULT_TABLE_POSTS} in the table, all with --json.",
        show_default=False,
    ),
]
AllOpt = Annotated[bool, typer.Option("--all", help="Every post of the window in the table.")]
CursorOpt = Annotated[
    str | None,
    typer.Option("--cursor", help="Continue after this nextCursor.", show_default=False),
]


@app.command()
def recent(
    limit: LimitOpt = None,
    show_all: AllOpt = False,
    cursor: CursorOpt = None,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Drafts, scheduled and published posts of the last 90 days, plus future scheduled ones."""
    _list_posts("recent", limit, show_all, cursor, workspace, json_output)


@app.command()
def timeline(
    limit: LimitOpt = None,
    show_all: AllOpt = False,
    cursor: CursorOpt = None,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Published posts of the last 90 days and scheduled posts (no drafts)."""
    _list_posts("timeline", limit, show_all, cursor, workspace, json_output)


def _list_posts(
    kind: str,
    limit: int | None,
    show_all: bool,
    cursor: str | None,
    workspace: str | None,
    json_output: bool,
) -> None:
    """The table shows the newest DEFAULT_TABLE_POSTS unless --limit or --all says
    otherwise; --json gives the whole window (SPEC.md's shape) unless --limit or
    --cursor asks for a page."""
    from socialgen.kit.errors import BadRequest
    from socialgen.posts.quick_listing import quick_listing

    if show_all and limit is not None:
        raise BadRequest("Give --limit N or --all, not both")
    if limit is not None:
        POST_LIST_LIMIT.check(limit)
    elif not show_all and not json_output:
        limit = DEFAULT_TABLE_POSTS
    if workspace is None:  # --workspace and SOCIALGEN_WORKSPACE win over the config file
        workspace = current_runtime().light_setting("workspace")
    # A SQLite store ready for use is read without SQLAlchemy (a quicker start).
    store = current_runtime().store_settings
    data = quick_listing(
        kind, workspace, limit=limit, cursor=cursor, database_url=store.database_url
    )
    if data is None:
        from socialgen.posts import listing
        from socialgen.store.engine import read_session

        read = listing.recent_posts if kind == "recent" else listing.posts_timeline
        engine, workspace_id = open_workspace(workspace)
        with read_session(engine) as session:
            data = read(session, workspace_id, limit=limit, cursor=cursor)
    title = "Recent posts" if kind == "recent" else "Timeline"
    if json_output:
        write_post_list(data, sys.stdout)
        return
    from socialgen.posts.tables_cli import print_post_table

    shorten = _post_shortener(workspace)
    emit(False, data, lambda out: print_post_table(out, data, title, cursor, shorten))


def _post_shortener(workspace: str | None) -> IdShortener:
    """The posts table's short ids: read as the listing was (quickly on a ready SQLite
    store), only when a table is drawn."""

    def shorten(ids: list[str]) -> Mapping[str, str]:
        from socialgen.posts.quick_listing import quick_short_ids

        database_url = current_runtime().store_settings.database_url
        quick = quick_short_ids(workspace, ids, database_url=database_url)
        if quick is not None:
            return quick
        from socialgen.cli.refs import shortener

        engine, workspace_id = open_workspace(workspace)
        return shortener(engine, "post", workspace_id)(ids)

    return shorten


JSON_CHUNK_POSTS = 1000


def write_post_list(data: PostListJson, stream: TextIO) -> None:
    """`data` as emit's one JSON line, byte for byte, written 1,000 posts at a time: a
    window of 100,000 posts never becomes one 50 MB string (and its encoded copy)."""
    from socialgen.cli.support import json_text

    posts = data["posts"]
    stream.write('{"posts": [')
    for start in range(0, len(posts), JSON_CHUNK_POSTS):
        chunk = json_text(posts[start : start + JSON_CHUNK_POSTS])
        stream.write((", " if start else "") + chunk[1:-1])  # without the brackets
    rest = json_text({k: v for k, v in data.items() if k != "posts"})
    stream.write("], " + rest[1:] + "\n")


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
        str, typer.Option("--at", help="When to publish, ISO 8601 (UTC unless an offset is given).")
    ],
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Schedule a draft (or move a scheduled post) to a future time."""
    from socialgen.kit.clock import iso
    from socialgen.posts import service
    from socialgen.store.engine import transaction

    moment = _parse_moment(at)
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


def _parse_moment(text: str) -> Any:
    from socialgen.kit.clock import DateOutOfRange, parse_iso
    from socialgen.kit.errors import BadRequest

    try:
        return parse_iso(text)
    except DateOutOfRange as error:
        raise BadRequest(str(error)) from None
    except ValueError:
        raise BadRequest(f"Not an ISO 8601 time: {text!r} (e.g. 2026-12-01T09:00:00Z)") from None
