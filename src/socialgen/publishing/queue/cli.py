"""`socialgen queue`: what goes out when; `queue remove`, `queue move`; the slots are
`queue slots ...` (slots_cli.py) and `posts queue ID` puts a post in (posts_cli.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from socialgen.cli.refs import open_ref, resolve_in, shortener
from socialgen.cli.support import (
    JsonOpt,
    WorkspaceOpt,
    creator_zone,
    current_runtime,
    emit,
    notes,
    open_workspace,
    print_rows,
    styled,
)
from socialgen.publishing.queue.slots_cli import slots_app

if TYPE_CHECKING:
    from rich.console import Console
    from sqlalchemy import Engine

    from socialgen.publishing.queue.schemas import QueueView, Shift

# The group lists the queue when no sub-command is named.
app = typer.Typer(invoke_without_command=True, no_args_is_help=False, rich_markup_mode=None)
app.add_typer(slots_app, name="slots")

PostIdArg = Annotated[
    str, typer.Argument(help="Post id, or 6+ characters of it.", show_default=False)
]
AccountOpt = Annotated[
    str | None,
    typer.Option(
        "--account",
        help="Only this account's own queue (handle, network:handle, name or id).",
        show_default=False,
    ),
]
CloseGapOpt = Annotated[
    bool,
    typer.Option(
        "--close-gap",
        help="The later posts each move up one place; default: the slot stays free.",
    ),
]


@app.callback()
def queue(
    ctx: typer.Context,
    account: AccountOpt = None,
    limit: Annotated[
        int, typer.Option("--limit", min=1, max=1000, help="Posts listed per queue.")
    ] = 50,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """What goes out when: each queue's posts in slot order, in your time zone."""
    if ctx.invoked_subcommand is not None:
        return
    from socialgen.publishing.accounts.refs import ACCOUNT_REF
    from socialgen.publishing.queue.listing import queue_listing
    from socialgen.store.engine import read_session

    engine, workspace_id = open_workspace(workspace)
    account = resolve_in(engine, workspace_id, ACCOUNT_REF, account)
    with read_session(engine) as session:
        listed = queue_listing(session, workspace_id, account_ref=account, limit=limit)
    data = {"queues": [view.model_dump() for view in listed]}
    emit(json_output, data, lambda out: _print_queues(out, engine, workspace_id, listed))


@app.command("remove")
def remove(
    post_id: PostIdArg,
    close_gap: CloseGapOpt = False,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Take a post out of the queue: a draft again, its queued publications dropped."""
    from socialgen.publishing.queue.moves import remove as remove_post
    from socialgen.publishing.queue.views import removed_data
    from socialgen.store.engine import transaction

    engine, workspace_id, post_id = open_ref(workspace, "post", post_id)
    with transaction(engine) as session:
        data = removed_data(remove_post(session, workspace_id, post_id, close_gap=close_gap))

    def render(out: Console) -> None:
        dropped = data.droppedPublications
        suffix = f" ({dropped} queued publication(s) dropped)" if dropped else ""
        out.print(f"{post_id} left the queue and is a draft again{suffix}")
        _print_shifts(out, data.moved, close_gap)

    emit(json_output, data.model_dump(), render)


@app.command("move")
def move(
    post_id: PostIdArg,
    at: Annotated[
        str,
        typer.Option(
            "--at",
            help="The new time, ISO 8601 (without an offset: your time zone). A free slot "
            "of the queue keeps it queued; any other time takes it out of the queue.",
        ),
    ],
    close_gap: CloseGapOpt = False,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Move a queued post to another slot (or out of the queue, to any time)."""
    from socialgen.kit.errors import BadRequest
    from socialgen.kit.local_time import local_moment
    from socialgen.publishing.outbox.schedule_time import parse_local_at
    from socialgen.publishing.queue.moves import move as move_post
    from socialgen.publishing.queue.views import moved_data
    from socialgen.store.engine import transaction

    asked = parse_local_at(at, current_runtime().settings.timezone)
    if asked.moment is None:
        raise BadRequest('--at takes a time here, not "best" (posts schedule --at best does)')
    engine, workspace_id, post_id = open_ref(workspace, "post", post_id)
    with transaction(engine) as session:
        data = moved_data(
            move_post(session, workspace_id, post_id, asked.moment, close_gap=close_gap)
        )

    def render(out: Console) -> None:
        when = local_moment(data.scheduledAt, creator_zone())
        where = f"its {data.slot} slot" if data.inQueue else "outside the queue"
        out.print(f"{post_id} goes out at {when}, {where}")
        _print_shifts(out, data.moved, close_gap)

    emit(json_output, data.model_dump(), render)


def _print_shifts(out: Console, moved: list[Shift], close_gap: bool) -> None:
    from socialgen.kit.local_time import local_minute

    zone = creator_zone()
    for shift in moved:
        out.print(
            f"  {shift.postId} moved up: {local_minute(shift.fromAt, zone)} -> "
            f"{local_minute(shift.toAt, zone)}"
        )
    if close_gap and not moved:
        out.print("  No later post to move up (or the slot has passed).")
    if not close_gap:
        out.print("  Its slot is free (close gaps with --close-gap).")


def _print_queues(out: Console, engine: Engine, workspace_id: str, listed: list[QueueView]) -> None:
    from socialgen.kit.local_time import local_moment

    if not listed:
        notes(out).print(
            'No queue yet. Set your slots: socialgen queue slots set "Tue 08:30, Thu 08:30"'
        )
        return
    zone = creator_zone()
    for view in listed:
        whose = f"{view.network}:{view.account}" if view.account else "Workspace"
        slots = ", ".join(view.slots)
        nxt = local_moment(view.nextFreeAt, zone) if view.nextFreeAt else "none"
        notes(out).print(
            styled(
                (f"{whose} queue", "bold"),
                f": {slots} ({view.timezone}) · next free slot {nxt}",
            )
        )
        rows = _rows(view)
        print_rows(
            out,
            f"{view.queued} post(s) waiting",
            rows,
            {"postId": shortener(engine, "post", workspace_id)},
            empty="Queue one: socialgen posts queue POST_ID",
        )
        if any(not post.publications for post in view.posts):
            notes(out).print(
                "  A post with no account goes out nowhere: posts queue POST_ID --to ACCOUNT "
                '(or give the queue accounts: socialgen queue slots set "..." --to ACCOUNT)'
            )


def _rows(view: QueueView) -> list[dict[str, Any]]:
    from zoneinfo import ZoneInfo

    from socialgen.kit.local_time import in_zone
    from socialgen.store.refs import opening

    rows: list[dict[str, Any]] = [
        {
            "dueAt": post.at,
            "slot": post.slot,
            "postId": post.postId,
            "text": opening(post.content),
            "to": ", ".join(f"{p.network}:{p.account} {p.state}" for p in post.publications)
            or "(no account)",
        }
        for post in view.posts
    ]
    zone = ZoneInfo(view.timezone)  # a free slot's label, as the slots are written
    rows += [
        {"dueAt": free, "slot": f"{in_zone(free, zone):%a %H:%M}", "postId": "",
         "text": "(free slot)", "to": ""}
        for free in view.freeAt
    ]  # fmt: skip
    return sorted(rows, key=lambda row: str(row["dueAt"]))
