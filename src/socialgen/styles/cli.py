"""`socialgen style ...`: writing styles learned from example posts."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from socialgen.cli.refs import open_ref, resolve, shortener
from socialgen.cli.support import (
    JsonOpt,
    WorkspaceOpt,
    command_group,
    confirm,
    current_runtime,
    emit,
    open_workspace,
    styled,
)
from socialgen.kit.limits import STYLE_FROM_TOP as FROM_TOP

if TYPE_CHECKING:
    from rich.console import Console

app = command_group()  # its help: the feature's Group (feature.py)

StyleIdArg = Annotated[
    str, typer.Argument(help="Style name or id (6+ characters of it).", show_default=False)
]
ExampleIdArg = Annotated[
    str, typer.Argument(help="Example post id, or 6+ characters of it.", show_default=False)
]
POST_SEPARATOR = "---"


@app.command("create")
def create(
    name: Annotated[str, typer.Argument(help="Style name.")],
    description: Annotated[
        str | None, typer.Option("--description", help="What it is for.")
    ] = None,
    from_top: Annotated[
        int | None,
        typer.Option(
            "--from-top",
            help=(
                f"Teach it your N best posts ({FROM_TOP.describe()}) by engagement "
                "relative to your usual at the time."
            ),
            show_default=False,
        ),
    ] = None,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Create a style; then teach it with `style add-posts`, or at once with --from-top."""
    from socialgen.store.engine import transaction
    from socialgen.styles import service

    if from_top is not None:
        replace(FROM_TOP, name="--from-top").check(from_top)  # before the store
    engine, workspace_id = open_workspace(workspace)
    with transaction(engine) as session:
        style = service.create_style(session, workspace_id, name, description)
        if from_top is not None:
            from socialgen.styles.from_top import teach_from_top

            teach_from_top(session, workspace_id, style, from_top, asked_as="--from-top")
        data = service.style_view(session, style).json_data()

    def show_created(out: Console) -> None:
        out.print(f"Created style {name!r}: {data['_id']}")
        if data["posts"]:
            out.print(f"Taught with your {len(data['posts'])} best post(s) by relative engagement.")

    emit(json_output, data, show_created)


@app.command("list")
def list_(workspace: WorkspaceOpt = None, json_output: JsonOpt = False) -> None:
    """The workspace's styles."""
    from socialgen.cli.support import print_rows
    from socialgen.store.engine import read_session
    from socialgen.styles import service

    engine, workspace_id = open_workspace(workspace)
    with read_session(engine) as session:
        data = [
            view.json_data()
            for view in service.style_views(session, service.list_styles(session, workspace_id))
        ]
    rows = [
        {
            "id": s["_id"],
            "name": s["name"],
            "examples": len(s["posts"]),
            "description": s["description"],
        }
        for s in data
    ]
    short_ids = {"id": shortener(engine, "style", workspace_id)}
    emit(
        json_output,
        data,
        lambda out: print_rows(
            out,
            "Content styles",
            rows,
            short_ids,
            empty="Make one: socialgen style create NAME, then teach it with style add-posts",
        ),
    )


@app.command("show")
def show(
    style_id: StyleIdArg, workspace: WorkspaceOpt = None, json_output: JsonOpt = False
) -> None:
    """A style, its derived profile and its example posts."""
    from socialgen.store.engine import read_session
    from socialgen.styles import service
    from socialgen.styles.profile import describe_profile, profile_from_dict

    engine, workspace_id, style_id = open_ref(workspace, "style", style_id)
    with read_session(engine) as session:
        style = service.get_style(session, workspace_id, style_id)
        view = service.style_view(session, style)
        data: dict[str, Any] = {**view.json_data(), "profile": style.profile}
    guidance = describe_profile(profile_from_dict(style.profile)) if style.profile else []
    emit(json_output, data, lambda out: _print_style(out, data, guidance))


@app.command("edit")
def edit(
    style_id: StyleIdArg,
    name: Annotated[str | None, typer.Option("--name", help="New name.")] = None,
    description: Annotated[
        str | None, typer.Option("--description", help="New description ('' clears it).")
    ] = None,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Rename a style or change its description."""
    from socialgen.kit.errors import BadRequest
    from socialgen.store.engine import transaction
    from socialgen.styles import service

    if name is None and description is None:
        raise BadRequest("Nothing to change: give --name and/or --description")
    engine, workspace_id, style_id = open_ref(workspace, "style", style_id)
    with transaction(engine) as session:
        style = service.update_style(
            session, workspace_id, style_id, name=name, description=description
        )
        data = service.style_view(session, style).json_data()
    emit(json_output, data, lambda out: out.print(f"Updated style {style_id}"))


@app.command("delete")
def delete(
    style_id: StyleIdArg,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Delete a style and its example posts (for good)."""
    from socialgen.store.engine import read_session, transaction
    from socialgen.styles import service

    engine, workspace_id, style_id = open_ref(workspace, "style", style_id)
    if not yes:
        with read_session(engine) as session:
            style = service.get_style(session, workspace_id, style_id)
        confirm(f"Delete style {style.name!r} and its examples?")
    with transaction(engine) as session:
        service.delete_style(session, workspace_id, style_id)
    emit(
        json_output,
        {"deletedStyleId": style_id},
        lambda out: out.print(f"Deleted style {style_id}"),
    )


@app.command("add-posts")
def add_posts(
    style_id: StyleIdArg,
    texts: Annotated[
        list[str] | None, typer.Argument(help="Example posts (quote each).", show_default=False)
    ] = None,
    file: Annotated[
        Path | None,
        typer.Option(
            "--file", help=f"A text file of posts separated by lines of {POST_SEPARATOR}."
        ),
    ] = None,
    from_profile: Annotated[
        str | None,
        typer.Option("--from-profile", help="Take the 5 newest posts of this profile URL."),
    ] = None,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Teach a style with example posts (at most 5 per call)."""
    from socialgen.kit.errors import BadRequest
    from socialgen.kit.limits import MAX_STYLE_POSTS_PER_CALL
    from socialgen.store.engine import transaction
    from socialgen.styles import service

    sources = [bool(texts), file is not None, from_profile is not None]
    if sum(sources) != 1:
        raise BadRequest("Give the posts as arguments, or with --file, or with --from-profile")
    posts: list[str] = list(texts or [])
    if file is not None:
        posts = read_posts_file(file)
    if from_profile is not None:
        posts = [p.content for p in _import(from_profile)][:MAX_STYLE_POSTS_PER_CALL]
    engine, workspace_id, style_id = open_ref(workspace, "style", style_id)
    with transaction(engine) as session:
        added = service.add_posts(session, workspace_id, style_id, posts)
        views = [service.post_view(post).json_data() for post in added]
        data = {"count": len(added), "data": views}
    emit(
        json_output,
        data,
        lambda out: out.print(f"Added {len(added)} example post(s) to {style_id}"),
    )


@app.command("edit-post")
def edit_post(
    style_id: StyleIdArg,
    post_id: ExampleIdArg,
    content: Annotated[str, typer.Option("--content", "-c", help="The new text.")],
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Change one example post."""
    from socialgen.store.engine import transaction
    from socialgen.styles import service

    engine, workspace_id, style_id = open_ref(workspace, "style", style_id)
    with transaction(engine) as session:
        post_id = resolve(session, "example", style_id, post_id)
        data = service.post_view(
            service.update_post(session, workspace_id, style_id, post_id, content)
        ).json_data()
    emit(json_output, data, lambda out: out.print(f"Updated example {post_id}"))


@app.command("delete-post")
def delete_post(
    style_id: StyleIdArg,
    post_id: ExampleIdArg,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Remove one example post."""
    from socialgen.store.engine import transaction
    from socialgen.styles import service

    engine, workspace_id, style_id = open_ref(workspace, "style", style_id)
    with transaction(engine) as session:
        post_id = resolve(session, "example", style_id, post_id)
        service.delete_post(session, workspace_id, style_id, post_id)
    emit(
        json_output, {"deletedPostId": post_id}, lambda out: out.print(f"Deleted example {post_id}")
    )


@app.command("import")
def import_(
    url: Annotated[
        str, typer.Argument(help="Profile URL (feed, Mastodon, Bluesky, blog, LinkedIn).")
    ],
    json_output: JsonOpt = False,
) -> None:
    """Print the posts found on a profile."""
    posts = [{"content": p.content, "date": p.date} for p in _import(url)]

    def show_posts(out: Console) -> None:
        from rich.panel import Panel

        for post in posts:
            out.print(Panel(post["content"], title=post["date"], expand=False))
        out.print(f"{len(posts)} post(s) found.")

    emit(json_output, posts, show_posts)


def read_posts_file(path: Path) -> list[str]:
    from socialgen.kit.errors import BadRequest
    from socialgen.kit.local_files import MAX_TEXT_FILE_BYTES, read_regular_file

    data = read_regular_file(path, MAX_TEXT_FILE_BYTES)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise BadRequest(f"Cannot read {path}: not UTF-8 text (byte {error.start + 1})") from None
    from socialgen.kit.text_check import check_text

    check_text(text, str(path))
    chunks: list[str] = []
    current: list[str] = []
    for line in text.splitlines():
        if line.strip() == POST_SEPARATOR:
            chunks.append("\n".join(current))
            current = []
        else:
            current.append(line)
    chunks.append("\n".join(current))
    return [chunk.strip() for chunk in chunks if chunk.strip()]


def _import(url: str) -> list[Any]:
    import asyncio

    from socialgen.sources.profiles import import_profile_posts

    return asyncio.run(import_profile_posts(url, current_runtime().settings))


def _print_style(out: Console, data: dict[str, Any], guidance: list[str]) -> None:
    from rich.panel import Panel

    out.print(styled((data["name"], "bold"), f"  ({data['_id']})"))
    if data["description"]:
        out.print(data["description"])
    if guidance:
        out.print("Derived profile", style="bold")
        for line in guidance:
            out.print(f"  • {line}")
    else:
        out.print("No example posts yet: add some with `socialgen style add-posts`.", style="dim")
    for post in data["posts"]:
        out.print(f"example {post['_id']}", style="dim")  # whole: edit-post needs it
        out.print(Panel(post["content"], expand=False))
