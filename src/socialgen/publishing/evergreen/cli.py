"""`socialgen posts evergreen`: mark a published post evergreen, change or stop its
plan, list the plans and their runs, and write the runs due within a day now.

    posts evergreen ID --every 30d --times 3 [--until DATE] [--to ACCOUNT ...] [--first WHEN]
    posts evergreen ID --stop
    posts evergreen ID            # its plan, each run with its own numbers
    posts evergreen               # every plan
    posts evergreen prepare       # write the runs due within a day now

One command rather than a group, so that `posts evergreen ID --every 30d` reads as
the issue writes it; `prepare` is no post id (ids are hexadecimal). Times a person
types without an offset are in their zone, and what they read is in it too.
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from socialgen.cli.support import JsonOpt, WorkspaceOpt, current_runtime, emit, open_workspace
from socialgen.kit.errors import BadRequest
from socialgen.publishing.evergreen.render_cli import print_plan, print_plans, print_prepared

PREPARE = "prepare"
ToOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--to",
        help="Account each repost goes to (repeat for several). Default: the accounts "
        "the post went out to.",
        show_default=False,
    ),
]


def extend_posts_group(posts_app: typer.Typer) -> None:
    posts_app.command("evergreen")(evergreen)


def evergreen(
    post_id: Annotated[
        str | None,
        typer.Argument(
            help="Post id, or 6+ characters of it; `prepare` writes the reposts due within "
            "a day now; none: every evergreen post.",
            show_default=False,
        ),
    ] = None,
    every: Annotated[
        str | None,
        typer.Option("--every", help="Post it again every N days: 30d, 4w.", show_default=False),
    ] = None,
    times: Annotated[
        int | None, typer.Option("--times", help="At most K reposts.", show_default=False)
    ] = None,
    until: Annotated[
        str | None,
        typer.Option(
            "--until", help="No repost after this date (in your zone).", show_default=False
        ),
    ] = None,
    first: Annotated[
        str | None,
        typer.Option(
            "--first",
            help="When the first repost goes out (ISO 8601, in your zone without an offset). "
            "Default: the post's time of day, a whole number of periods after it.",
            show_default=False,
        ),
    ] = None,
    to: ToOpt = None,
    stop: Annotated[
        bool, typer.Option("--stop", help="Stop it: reposts not gone out are cancelled.")
    ] = False,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """A published post goes out again every N days, each time in new words the model
    writes from it (never the same text twice), at most K times or until a date."""
    terms_given = [
        name
        for name, value in (
            ("--times", times),
            ("--until", until),
            ("--first", first),
            ("--to", to),
        )
        if value
    ]
    if post_id is None or post_id.strip().lower() == PREPARE:
        if every or stop or terms_given:
            raise BadRequest("Name the post: socialgen posts evergreen POST_ID --every 30d ...")
        if post_id is None:
            _list(workspace, json_output)
        else:
            _prepare(workspace, json_output)
        return
    if stop:
        if every or terms_given:
            raise BadRequest("--stop takes no other option")
        _stop(workspace, post_id, json_output)
    elif every is not None:
        _set(workspace, post_id, every, times, until, first, to or [], json_output)
    elif terms_given:
        raise BadRequest(f"{', '.join(terms_given)} go(es) with --every N (e.g. --every 30d)")
    else:
        _show(workspace, post_id, json_output)


def _set(
    workspace: str | None,
    post_id: str,
    every: str,
    times: int | None,
    until: str | None,
    first: str | None,
    to: list[str],
    json_output: bool,
) -> None:
    from socialgen.cli.refs import open_ref, resolve_each
    from socialgen.cli.support import creator_zone
    from socialgen.kit.clock import DateOutOfRange, parse_iso
    from socialgen.publishing.accounts.refs import ACCOUNT_REF
    from socialgen.publishing.evergreen.cadence import parse_every, parse_until
    from socialgen.publishing.evergreen.plans import Terms, set_plan
    from socialgen.publishing.evergreen.views import plan_views
    from socialgen.store.engine import transaction

    zone = creator_zone()
    every_days = parse_every(every)
    ends = parse_until(until, zone) if until is not None else None
    starts = None
    if first is not None:
        try:
            starts = parse_iso(first, zone)
        except DateOutOfRange as error:
            raise BadRequest(str(error)) from None
        except ValueError:
            raise BadRequest(f"--first takes an ISO 8601 time (got {first!r})") from None
    engine, workspace_id, post_id = open_ref(workspace, "post", post_id)
    accounts = resolve_each(engine, workspace_id, ACCOUNT_REF, to, keep_unknown=True)
    with transaction(engine) as session:
        terms = Terms(every_days, times, ends, accounts, starts)
        set_plan(session, workspace_id, post_id, terms, zone)
        (view,) = plan_views(session, workspace_id, post_id)
    emit(json_output, view.model_dump(), lambda out: print_plan(out, view, said="Evergreen"))


def _stop(workspace: str | None, post_id: str, json_output: bool) -> None:
    from socialgen.cli.refs import open_ref
    from socialgen.publishing.evergreen.plans import stop_plan
    from socialgen.publishing.evergreen.views import plan_views
    from socialgen.store.engine import transaction

    engine, workspace_id, post_id = open_ref(workspace, "post", post_id)
    with transaction(engine) as session:
        _, cancelled = stop_plan(session, workspace_id, post_id)
        (view,) = plan_views(session, workspace_id, post_id)
    data: dict[str, Any] = {**view.model_dump(), "cancelledRuns": cancelled}
    said = f"Stopped ({cancelled} repost(s) cancelled)" if cancelled else "Stopped"
    emit(json_output, data, lambda out: print_plan(out, view, said=said))


def _show(workspace: str | None, post_id: str, json_output: bool) -> None:
    from socialgen.cli.refs import open_ref
    from socialgen.kit.errors import NotFound
    from socialgen.publishing.evergreen.plans import NO_PLAN
    from socialgen.publishing.evergreen.views import plan_views
    from socialgen.store.engine import read_session

    engine, workspace_id, post_id = open_ref(workspace, "post", post_id)
    with read_session(engine) as session:
        views = plan_views(session, workspace_id, post_id)
    if not views:
        raise NotFound(NO_PLAN)
    emit(json_output, views[0].model_dump(), lambda out: print_plan(out, views[0]))


def _list(workspace: str | None, json_output: bool) -> None:
    from socialgen.publishing.evergreen.schemas import PlansData
    from socialgen.publishing.evergreen.views import plan_views
    from socialgen.store.engine import read_session

    engine, workspace_id = open_workspace(workspace)
    with read_session(engine) as session:
        data = PlansData(plans=plan_views(session, workspace_id))
    emit(json_output, data.model_dump(), lambda out: print_plans(out, data.plans))


def _prepare(workspace: str | None, json_output: bool) -> None:
    import asyncio

    from socialgen.publishing.evergreen.prepare import prepare_due
    from socialgen.publishing.outbox.claim import worker_name

    engine, workspace_id = open_workspace(workspace)
    runtime = current_runtime()
    data = asyncio.run(
        prepare_due(
            engine,
            runtime.text_model,
            worker=worker_name("cli"),
            max_tokens=runtime.settings.max_tokens,
            workspace_id=workspace_id,
            force=True,
        )
    )
    emit(json_output, data.model_dump(), lambda out: print_prepared(out, data))
