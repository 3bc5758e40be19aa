"""`socialgen queue slots [set|suggest|clear]`: the weekly slots posts are queued into."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from socialgen.cli.refs import resolve_each, resolve_in
from socialgen.cli.support import (
    JsonOpt,
    WorkspaceOpt,
    creator_zone,
    emit,
    notes,
    open_workspace,
    styled,
)
from socialgen.publishing.queue.schemas import MAX_PER_DAY

if TYPE_CHECKING:
    from collections.abc import Callable

    from rich.console import Console

    from socialgen.publishing.queue.schemas import SlotsView, SuggestData

slots_app = typer.Typer(
    invoke_without_command=True,
    no_args_is_help=False,
    rich_markup_mode=None,
    help="The weekly slots posts are queued into; alone, lists them.",
)

AccountOpt = Annotated[
    str | None,
    typer.Option(
        "--account",
        help="An account's own queue (handle, network:handle, name or id); default: the "
        "workspace's.",
        show_default=False,
    ),
]
PerDayOpt = Annotated[
    int | None,
    typer.Option(
        "--per-day",
        min=1,
        max=MAX_PER_DAY,
        help="At most this many posts a day (no day gets more slots).",
        show_default=False,
    ),
]


@slots_app.callback()
def slots(
    ctx: typer.Context,
    account: AccountOpt = None,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """The weekly slots of each queue, and its next free one."""
    if ctx.invoked_subcommand is not None:
        return
    from socialgen.publishing.accounts.refs import ACCOUNT_REF
    from socialgen.publishing.queue.service import queue_view, queues
    from socialgen.store.engine import read_session

    engine, workspace_id = open_workspace(workspace)
    account = resolve_in(engine, workspace_id, ACCOUNT_REF, account)
    with read_session(engine) as session:
        views = [queue_view(session, queue) for queue in queues(session, workspace_id, account)]
    emit(json_output, {"queues": [view.model_dump() for view in views]}, _printer(views))


@slots_app.command("set")
def set_slots(
    slots: Annotated[
        str,
        typer.Argument(
            help='The weekly slots, e.g. "Tue 08:30, Thu 08:30, Sat 10:00" (also Mon-Fri '
            "09:00, weekdays 08:30 17:00, daily 12:00), in your time zone.",
            show_default=False,
        ),
    ],
    account: AccountOpt = None,
    per_day: PerDayOpt = None,
    to: Annotated[
        list[str] | None,
        typer.Option(
            "--to",
            help="The workspace queue's accounts: where a post queued without --to goes "
            "(repeat for several).",
            show_default=False,
        ),
    ] = None,
    tz: Annotated[
        str | None,
        typer.Option("--tz", help="The slots' time zone (default: yours).", show_default=False),
    ] = None,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Set a queue's weekly slots (posts already queued keep their times)."""
    from socialgen.publishing.accounts.refs import ACCOUNT_REF
    from socialgen.publishing.queue.service import queue_view
    from socialgen.publishing.queue.service import set_slots as set_queue_slots
    from socialgen.store.engine import transaction

    zone = tz.strip() if tz is not None else creator_zone().key
    engine, workspace_id = open_workspace(workspace)
    account = resolve_in(engine, workspace_id, ACCOUNT_REF, account)
    accounts = resolve_each(engine, workspace_id, ACCOUNT_REF, to) if to else None
    with transaction(engine) as session:
        queue = set_queue_slots(
            session,
            workspace_id,
            slots,
            zone=zone,
            account_ref=account,
            per_day=per_day,
            account_refs=accounts,
        )
        view = queue_view(session, queue)
    emit(json_output, view.model_dump(), _printer([view]))


@slots_app.command("suggest")
def suggest(
    per_day: PerDayOpt = None,
    count: Annotated[
        int | None,
        typer.Option(
            "--count",
            min=1,
            max=7 * MAX_PER_DAY,
            help="Slots a week (default: as many as the queue has, else 5).",
            show_default=False,
        ),
    ] = None,
    account: AccountOpt = None,
    apply: Annotated[bool, typer.Option("--apply", help="Make them the queue's slots.")] = False,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Slots from your own history: the times that stand out, exploration elsewhere."""
    from socialgen.publishing.accounts.refs import ACCOUNT_REF
    from socialgen.publishing.queue.suggest import suggest_slots
    from socialgen.store.engine import transaction

    engine, workspace_id = open_workspace(workspace)
    account = resolve_in(engine, workspace_id, ACCOUNT_REF, account)
    with transaction(engine) as session:
        data = suggest_slots(
            session,
            workspace_id,
            zone=creator_zone().key,
            per_day=per_day,
            count=count,
            account_ref=account,
            apply=apply,
        )
    emit(json_output, data.model_dump(), lambda out: _print_suggestion(out, data))


@slots_app.command("clear")
def clear(
    account: AccountOpt = None, workspace: WorkspaceOpt = None, json_output: JsonOpt = False
) -> None:
    """Remove a queue's slots; its posts stay scheduled at their times."""
    from socialgen.publishing.accounts.refs import ACCOUNT_REF
    from socialgen.publishing.queue.service import clear_slots
    from socialgen.store.engine import transaction

    engine, workspace_id = open_workspace(workspace)
    account = resolve_in(engine, workspace_id, ACCOUNT_REF, account)
    with transaction(engine) as session:
        kept = clear_slots(session, workspace_id, account)
    data = {"accountId": account, "cleared": True, "keptScheduled": kept}
    emit(
        json_output,
        data,
        lambda out: out.print(
            f"Slots cleared; {kept} queued post(s) stay scheduled at their times"
        ),
    )


def _printer(views: list[SlotsView]) -> Callable[[Console], None]:
    def render(out: Console) -> None:
        from socialgen.kit.local_time import local_moment

        if not views:
            notes(out).print(
                'No slots yet: socialgen queue slots set "Tue 08:30, Thu 08:30, Sat 10:00"'
            )
            return
        for view in views:
            whose = f"{view.network}:{view.account}" if view.account else "Workspace"
            limit = f" · at most {view.perDay} a day" if view.perDay else ""
            out.print(styled((f"{whose} queue", "bold"), f" ({view.timezone}){limit}"))
            out.print("  " + (", ".join(view.slots) or "no slots"))
            if view.accounts:
                out.print("  to: " + ", ".join(f"{a.network}:{a.account}" for a in view.accounts))
            if view.nextFreeAt:
                out.print(f"  next free slot: {local_moment(view.nextFreeAt, creator_zone())}")
            out.print(f"  {view.queued} post(s) waiting")

    return render


def _print_suggestion(out: Console, data: SuggestData) -> None:
    out.print(data.message)
    for row in data.slots:
        figures = (
            f"  x{row.score} (90%: {row.low}-{row.high}, {row.posts} posts)"
            if row.score is not None
            else ""
        )
        style = "green" if row.reason == "stands out" else "cyan"
        out.print(styled(f"  {row.slot}  ", (row.reason, style), figures))
    note = f"Slots are in {data.timezone}, at most {data.perDay} a day."
    if data.applied is not None:
        out.print(f"{note} Applied: they are the queue's slots now.")
    else:
        out.print(f"{note} To make them your slots, run this again with --apply.")
