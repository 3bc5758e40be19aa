"""`socialgen posts first-comment` and `socialgen posts plug`: the follow-ups a post
carries (publishing/followups/). posts/ sits below publishing, so the posts group gets
them from here (`extend_posts_group`, declared by this slice's feature.py).

    socialgen posts first-comment POST "Sources: https://example.com" [--delay 10m]
    socialgen posts plug POST "My newsletter: https://example.com" --after-likes 50
    socialgen posts first-comment POST            # what it is, and where it went
    socialgen posts first-comment POST --retry    # failed or unknown ones again
    socialgen posts plug POST --remove
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from socialgen.cli.refs import open_ref
from socialgen.cli.support import JsonOpt, WorkspaceOpt, emit, styled

if TYPE_CHECKING:
    from rich.console import Console

    from socialgen.publishing.followups.schemas import FollowupsData, FollowupView

PostIdArg = Annotated[
    str, typer.Argument(help="Post id, or 6+ characters of it.", show_default=False)
]
TextArg = Annotated[
    str | None,
    typer.Argument(
        help='The text (a link is fine); "-" reads it from stdin. Without it: show the '
        "follow-up and where it went.",
        show_default=False,
    ),
]
RetryOpt = Annotated[
    bool,
    typer.Option(
        "--retry",
        help="Queue again those that failed or are unknown (check the post first: an "
        "unknown one may be live).",
    ),
]
RemoveOpt = Annotated[
    bool, typer.Option("--remove", help="Drop it (what is live on the networks stays).")
]


def extend_posts_group(posts_app: typer.Typer) -> None:
    """Give `socialgen posts` the follow-up commands."""
    posts_app.command("first-comment")(first_comment)
    posts_app.command("plug")(plug)


def first_comment(
    post_id: PostIdArg,
    text: TextArg = None,
    delay: Annotated[
        str | None,
        typer.Option(
            "--delay",
            help="How long after the post is live (90, 30s, 10m, 2h; at most 7d). Default: "
            "at once.",
            show_default=False,
        ),
    ] = None,
    retry: RetryOpt = False,
    remove: RemoveOpt = False,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """A comment posted under the post once it is live, on each account (LinkedIn: a
    comment; elsewhere a reply), exactly once."""
    from socialgen.publishing.followups.repository import followup
    from socialgen.publishing.followups.service import set_first_comment
    from socialgen.store.tables import FollowupKind

    seconds = None if delay is None else _seconds(delay)

    def change(session: Any, workspace_id: str, post: str, given: str | None) -> None:
        # What is not given stays as it was (a new text keeps the delay, and so on).
        existing = followup(session, post, FollowupKind.FIRST_COMMENT)
        text_now = given if given is not None else (existing.text if existing else None)
        if text_now is None:
            raise _needs_text("first comment", "--delay")
        kept = existing.delay_seconds if existing is not None else 0
        delay_now = seconds if seconds is not None else kept
        set_first_comment(session, workspace_id, post, text_now, delay_now, retry=retry)

    _run("first_comment", post_id, text, retry, remove, workspace, json_output, change,
         changes=seconds is not None)  # fmt: skip


def plug(
    post_id: PostIdArg,
    text: TextArg = None,
    after_likes: Annotated[
        int | None,
        typer.Option(
            "--after-likes",
            min=1,
            max=1_000_000_000,
            help="Post it under a publication once it has this many likes (read by the "
            "metrics poll).",
            show_default=False,
        ),
    ] = None,
    retry: RetryOpt = False,
    remove: RemoveOpt = False,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """A reply (a plug: the newsletter, the product) posted once under the post where
    it passes --after-likes likes."""
    from socialgen.kit.errors import BadRequest
    from socialgen.publishing.followups.repository import followup
    from socialgen.publishing.followups.service import set_plug
    from socialgen.store.tables import FollowupKind

    def change(session: Any, workspace_id: str, post: str, given: str | None) -> None:
        existing = followup(session, post, FollowupKind.TAKEOFF_REPLY)
        likes = after_likes or (existing.like_threshold if existing is not None else None)
        if likes is None:
            raise BadRequest("Say after how many likes: --after-likes N")
        text_now = given if given is not None else (existing.text if existing else None)
        if text_now is None:
            raise _needs_text("plug", "--after-likes")
        set_plug(session, workspace_id, post, text_now, likes, retry=retry)

    _run("takeoff_reply", post_id, text, retry, remove, workspace, json_output, change,
         changes=after_likes is not None)  # fmt: skip


def _run(
    kind: str,
    post_id: str,
    text: str | None,
    retry: bool,
    remove: bool,
    workspace: str | None,
    json_output: bool,
    change: Any,
    *,
    changes: bool,
) -> None:
    """Show, set, retry or remove the post's follow-up of `kind`, then show it."""
    from socialgen.kit.errors import BadRequest
    from socialgen.publishing.followups.service import remove_followup, retry_followup
    from socialgen.publishing.followups.views import followups_data
    from socialgen.store.engine import read_session, transaction

    given = _read_text(text)
    if remove and (given is not None or retry or changes):
        raise BadRequest("--remove takes no text and no other option")
    engine, workspace_id, post = open_ref(workspace, "post", post_id)
    removed = None
    with transaction(engine) as session:
        if remove:
            removed = remove_followup(session, workspace_id, post, kind)
        elif given is not None or changes:
            change(session, workspace_id, post, given)
        elif retry:
            retry_followup(session, workspace_id, post, kind)
    with read_session(engine) as session:
        data = followups_data(session, workspace_id, post)
    if removed is not None:
        name = "first-comment" if kind == "first_comment" else "plug"
        result = {"postId": post, "kind": name, "removed": removed}
        said = "Removed" if removed else "The post had no " + name.replace("-", " ")
        emit(json_output, result, lambda out: out.print(f"{said} ({post})"))
        return
    emit(json_output, data.model_dump(), lambda out: _print(out, data, kind))


def _print(out: Console, data: FollowupsData, kind: str) -> None:
    shown: FollowupView | None = data.firstComment if kind == "first_comment" else data.plug
    name = "first comment" if kind == "first_comment" else "plug"
    if shown is None:
        command = "first-comment POST_ID TEXT" if kind == "first_comment" else "plug POST_ID TEXT"
        out.print(f"The post has no {name}. Set one: socialgen posts {command}")
        return
    when = (
        f"{shown.delaySeconds} s after the post is live"
        if kind == "first_comment"
        else f"once a publication has {shown.afterLikes} likes"
    )
    out.print(styled((f"{name.capitalize()} ", "bold"), f"({when}):"))
    out.print("  " + shown.text.replace("\n", "\n  "))
    if not shown.publications:
        out.print("No publications yet: it goes under each one the post gets.")
    from socialgen.publishing.followups.render_cli import followup_lines

    for row in shown.publications:
        out.print(styled(f"{row.network} {row.account}"))
        followup_lines(out, [row])


def _read_text(text: str | None) -> str | None:
    if text == "-":
        return sys.stdin.read()
    return text


def _seconds(delay: str) -> int:
    from socialgen.config.keys import parse_duration
    from socialgen.kit.errors import BadRequest
    from socialgen.publishing.followups.schemas import MAX_DELAY_SECONDS

    try:
        seconds = parse_duration(delay.strip()).total_seconds()
    except ValueError:
        raise BadRequest(f"--delay {delay!r} is not a duration: e.g. 90, 30s, 10m, 2h") from None
    if not 0 <= seconds <= MAX_DELAY_SECONDS:
        raise BadRequest(f"--delay must be from 0 to 7d ({MAX_DELAY_SECONDS} s), not {delay}")
    return round(seconds)


def _needs_text(name: str, option: str) -> Exception:
    from socialgen.kit.errors import BadRequest

    return BadRequest(f"{option} changes the {name}'s settings: give its text as well")
