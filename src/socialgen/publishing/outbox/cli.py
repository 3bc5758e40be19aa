"""`socialgen posts publish|schedule|unschedule|stats|publications` and
`socialgen publish-due`.

posts/ sits below publishing and must not import it, so the posts group gets these
commands from here (`extend_posts_group`, called by cli.py): `schedule` and
`unschedule` replace the posts group's own, adding `--to` and the outbox.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from socialgen.cli.refs import open_ref, resolve_each, resolve_in
from socialgen.cli.support import (
    JsonOpt,
    WorkspaceOpt,
    current_runtime,
    emit,
    open_workspace,
    styled,
)
from socialgen.files.backends import files_of
from socialgen.publishing.followups.render_cli import followup_lines, followup_previews
from socialgen.publishing.networks_cli import command_networks

if TYPE_CHECKING:
    from rich.console import Console

    from socialgen.publishing.outbox.schemas import PublicationView, StatsView

PostIdArg = Annotated[
    str, typer.Argument(help="Post id, or 6+ characters of it.", show_default=False)
]
ToOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--to",
        help="Account to publish to: handle, network:handle, display name or id "
        "(repeat for several).",
        show_default=False,
    ),
]
# publish-due's own -w: no envvar. Cron environments often export SOCIALGEN_WORKSPACE
# for other commands; a pass that silently skipped the other workspaces would leave
# their due posts unpublished, so only a -w on the command line narrows it.
DueWorkspaceOpt = Annotated[
    str | None,
    typer.Option(
        "--workspace",
        "-w",
        help="Workspace id or name (default: every workspace; SOCIALGEN_WORKSPACE is ignored).",
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
# How long `posts publish` waits in the terminal for retries the network asked for.
PUBLISH_WAIT_SECONDS = 60.0


def extend_posts_group(posts_app: typer.Typer) -> None:
    """Give `socialgen posts` the publishing commands."""
    replaced = {"schedule", "unschedule"}
    posts_app.registered_commands = [
        info
        for info in posts_app.registered_commands
        if (info.name or getattr(info.callback, "__name__", "")) not in replaced
    ]
    posts_app.command("publish")(publish)
    posts_app.command("schedule")(schedule)
    posts_app.command("unschedule")(unschedule)
    posts_app.command("publications")(publications)
    posts_app.command("stats")(stats)


def publish(
    post_id: PostIdArg,
    to: ToOpt = None,
    retry: Annotated[
        bool, typer.Option("--retry", help="Queue failed, unknown or missed publications again.")
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Show what each network would receive; send nothing.")
    ] = False,
    number_parts: NumberPartsOpt = False,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Publish a post now to one or more accounts (exit 1 if one did not go out)."""
    from socialgen.kit.errors import BadRequest
    from socialgen.publishing.accounts.refs import ACCOUNT_REF

    if not to:
        raise BadRequest("Name at least one account to publish to (--to ACCOUNT)")
    engine, workspace_id, post_id = open_ref(workspace, "post", post_id)
    to = resolve_each(engine, workspace_id, ACCOUNT_REF, to, keep_unknown=True)
    if dry_run:
        from socialgen.publishing.outbox.dryrun import dry_run as preview

        previews = preview(
            engine,
            workspace_id,
            post_id,
            to,
            number_parts=number_parts,
            unconnected=True,
            networks=command_networks(),
            files=files_of(current_runtime()),
        )
        emit(json_output, {"postId": post_id, "networks": previews}, _print_previews(previews))
        return
    from socialgen.publishing.outbox.runner import publish_now
    from socialgen.publishing.settings import PublishTerms

    rows = publish_now(
        engine,
        workspace_id,
        post_id,
        to,
        retry=retry,
        number_parts=number_parts,
        wait_seconds=PUBLISH_WAIT_SECONDS,
        terms=PublishTerms.of(
            current_runtime().settings, command_networks(), files_of(current_runtime())
        ),
    )
    emit(json_output, _publications(post_id, rows), _print_rows(rows))
    if any(row.state != "published" for row in rows):
        raise typer.Exit(1)


def schedule(
    post_id: PostIdArg,
    at: Annotated[
        str,
        typer.Option(
            "--at",
            help="When to publish: ISO 8601 (a time without an offset is in your zone: "
            'the timezone setting, else the system\'s), or "best": the next free best '
            "time from your own history (socialgen insights).",
        ),
    ],
    to: ToOpt = None,
    retry: Annotated[
        bool,
        typer.Option(
            "--retry", help="Queue failed, unknown or missed publications again, for --at."
        ),
    ] = False,
    number_parts: NumberPartsOpt = False,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Schedule a draft (or move a scheduled post); with --to it goes out at that time."""
    from socialgen.kit.clock import iso
    from socialgen.publishing.accounts.refs import ACCOUNT_REF
    from socialgen.publishing.outbox.schedule_time import parse_local_at, resolve_at
    from socialgen.publishing.outbox.service import schedule_post, views
    from socialgen.store.engine import transaction

    zone = current_runtime().settings.timezone
    asked = parse_local_at(at, zone)
    engine, workspace_id, post_id = open_ref(workspace, "post", post_id)
    to = resolve_each(engine, workspace_id, ACCOUNT_REF, to or [], keep_unknown=True)
    with transaction(engine) as session:
        post, rows = schedule_post(
            session,
            workspace_id,
            post_id,
            resolve_at(session, workspace_id, post_id, asked.moment, zone),
            to or (),
            retry=retry,
            number_parts=number_parts,
        )
        listed = views(rows)
        data: dict[str, Any] = {
            "postId": post.id,
            "status": post.status,
            "scheduledAt": iso(post.scheduled_at),
        }
        if listed or to:  # the posts group's own shape when the outbox has no part
            data["publications"] = [view.model_dump() for view in listed]
        if asked.zone is not None:
            data["timezone"] = asked.zone  # the zone a time without an offset was read in
        local = post.scheduled_at

    def render(out: Console) -> None:
        from socialgen.cli.support import creator_zone
        from socialgen.kit.local_time import local_moment

        when = data["scheduledAt"]
        shown = f"{local_moment(local, creator_zone())} ({when})" if local is not None else when
        out.print(f"Scheduled {post_id} for {shown}", soft_wrap=True)  # one line to grep
        for row in listed:
            out.print(f"  {row.network} {row.account}: {row.state}")

    emit(json_output, data, render)


def unschedule(
    post_id: PostIdArg, workspace: WorkspaceOpt = None, json_output: JsonOpt = False
) -> None:
    """Turn a scheduled post back into a draft; its queued publications are dropped."""
    from socialgen.publishing.outbox.service import unschedule_post
    from socialgen.store.engine import transaction

    engine, workspace_id, post_id = open_ref(workspace, "post", post_id)
    with transaction(engine) as session:
        post, dropped = unschedule_post(session, workspace_id, post_id)
        data: dict[str, Any] = {"postId": post.id, "status": post.status, "scheduledAt": None}
        if dropped:
            data["droppedPublications"] = dropped
    suffix = f" ({dropped} queued publication(s) dropped)" if dropped else ""
    emit(json_output, data, lambda out: out.print(f"{post_id} is a draft again{suffix}"))


def publications(
    post_id: PostIdArg, workspace: WorkspaceOpt = None, json_output: JsonOpt = False
) -> None:
    """Where a post goes or went: each account's publication and its state."""
    from socialgen.publishing.outbox.runner import post_views

    engine, workspace_id, post_id = open_ref(workspace, "post", post_id)
    rows = post_views(engine, workspace_id, post_id)
    emit(json_output, _publications(post_id, rows), _print_rows(rows))


def stats(
    post_id: Annotated[
        str | None, typer.Argument(help="Post id (default: recent published posts).")
    ] = None,
    refresh: Annotated[
        bool, typer.Option("--refresh", help="Read the counts from the networks first.")
    ] = False,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Likes, reposts and comments of published posts, as the networks report them."""
    from socialgen.publishing.outbox.metrics import post_stats, refresh_metrics
    from socialgen.store.engine import read_session

    engine, workspace_id = open_workspace(workspace)
    post_id = resolve_in(engine, workspace_id, "post", post_id)
    if refresh:
        if post_id is not None:
            with read_session(engine) as session:
                from socialgen.posts.service import get_post

                get_post(session, workspace_id, post_id)  # 404 before any network call
        refresh_metrics(
            engine,
            workspace_id=workspace_id,
            post_id=post_id,
            force=True,
            networks=command_networks(),
        )
    with read_session(engine) as session:
        data = post_stats(session, workspace_id, post_id)
    emit(json_output, data.model_dump(), lambda out: _print_stats(out, data))


def publish_due(workspace: DueWorkspaceOpt = None, json_output: JsonOpt = False) -> None:
    """Publish everything due in every workspace (only one with -w), once, then exit:
    for cron or a systemd timer. Exits 1 when a publication failed, is unknown or was
    missed."""
    from concurrent.futures import ThreadPoolExecutor

    from socialgen.cli.support import open_store
    from socialgen.publishing.evergreen.due_cli import evergreen_step
    from socialgen.publishing.outbox.claim import worker_name
    from socialgen.publishing.outbox.runner import THREADS, pass_summary, publish_pass
    from socialgen.publishing.settings import PublishTerms
    from socialgen.store.engine import read_session
    from socialgen.workspaces.service import resolve_workspace

    engine = open_store()
    workspace_id = None
    if workspace is not None:  # every workspace unless one is named
        with read_session(engine) as session:
            workspace_id = resolve_workspace(session, workspace).id
    with ThreadPoolExecutor(THREADS, thread_name_prefix="socialgen-publish") as executor:
        report = publish_pass(
            engine,
            worker_name("publish-due"),
            executor,
            workspace_id=workspace_id,
            terms=PublishTerms.of(
                current_runtime().settings, command_networks(), files_of(current_runtime())
            ),
        )
    summary = pass_summary(engine, report) | evergreen_step(engine, workspace_id, json_output)
    emit(json_output, summary, lambda out: _print_summary(out, summary))
    if any(summary[k] for k in ("failed", "unknown", "missed")) or summary["evergreen"]["missed"]:
        raise typer.Exit(1)


_STATE_STYLES = {"published": "green", "failed": "red", "unknown": "yellow", "missed": "red"}


def _publications(post_id: str, rows: list[PublicationView]) -> dict[str, Any]:
    """--json: the API's `data` (PublicationsData) for these publications."""
    from socialgen.publishing.outbox.schemas import PublicationsData

    data = PublicationsData(postId=post_id, publications=rows)
    return data.model_dump(exclude={"networks"})


def _print_rows(rows: list[PublicationView]) -> Any:
    def render(out: Console) -> None:
        if not rows:
            out.print("No publications. Publish it: socialgen posts publish ID --to ACCOUNT")
        from socialgen.cli.support import creator_zone
        from socialgen.kit.local_time import local_moment

        for row in rows:
            state = row.state
            due = f"due {local_moment(row.dueAt, creator_zone())}" if row.dueAt else ""
            where = row.url or row.message or due
            out.print(
                styled(
                    f"{row.network} {row.account}: ",
                    (state, _STATE_STYLES.get(state, "cyan")),
                    f"  {where}",
                )
            )
            followup_lines(out, row.followups)  # its first comment and plug

    return render


def _print_previews(previews: list[dict[str, Any]]) -> Any:
    def render(out: Console) -> None:
        import json

        for preview in previews:
            out.print(styled((f"{preview['network']} {preview['account']}", "bold")))
            if preview.get("connected") is False:
                out.print(
                    styled(
                        ("  not connected", "yellow"),
                        ": what it would receive. To publish, connect it first:",
                    )
                )
                # A command to copy: never wrapped, whatever the width.
                out.print(styled("    ", (preview["connect"], "bold")), soft_wrap=True)
            if preview.get("error"):
                out.print(styled(("  refused: ", "red"), preview["error"]))
            for number, part in enumerate(preview["parts"], 1):
                out.print(f"  part {number} of {len(preview['parts'])}:")
                out.print("    " + part["text"].replace("\n", "\n    "))
                if part["details"]:
                    out.print("    details: " + json.dumps(part["details"], ensure_ascii=False))
            for item in preview["media"]:
                out.print(f"  {item['kind']} {item['mimeType']} ({item['bytes']} bytes)")
            followup_previews(out, preview)

    return render


def _print_stats(out: Console, data: StatsView) -> None:
    if not data.posts:
        out.print("No published posts yet.")
    for post in data.posts:
        seen = "" if post.impressions is None else f" · impressions {post.impressions}"
        counts = f"  likes {post.likes} · reposts {post.reposts} · comments {post.comments}"
        out.print(styled((post.postId, "bold"), counts + seen))
        if (brought := post.imported) is not None:  # counts a file brought: no network
            more = "" if brought.impressions is None else f", impressions {brought.impressions}"
            out.print(
                f"  imported: likes {brought.likes}, reposts {brought.reposts}, "
                f"comments {brought.comments}{more}"
            )
        for row in post.publications:
            note = f"  ({row.note})" if row.note else ""
            out.print(
                f"  {row.network} {row.account}: likes {row.likes}, reposts "
                f"{row.reposts}, comments {row.comments}{note}"
            )


def _print_summary(out: Console, summary: dict[str, Any]) -> None:
    counts = ", ".join(
        f"{summary[key]} {key}" for key in ("published", "retrying", "failed", "unknown", "missed")
    )
    out.print(f"Publish pass: {counts}")
    for row in summary["publications"]:
        if row["state"] in ("failed", "unknown", "missed"):
            out.print(
                styled(
                    (f"{row['state']}: ", "red"),
                    f"post {row['postId']} to {row['network']} {row['account']}: {row['message']}",
                )
            )
