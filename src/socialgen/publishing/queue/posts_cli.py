"""`socialgen posts queue ID [--to ACCOUNT ...]`: the post goes into the next free slot.

posts/ sits below publishing and must not import it, so the posts group gets this
command from here (`extend_posts_group`, declared in feature.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from socialgen.cli.refs import open_ref, resolve_each
from socialgen.cli.support import JsonOpt, WorkspaceOpt, creator_zone, emit

if TYPE_CHECKING:
    from rich.console import Console


def extend_posts_group(posts_app: typer.Typer) -> None:
    """Give `socialgen posts` its `queue` command."""
    posts_app.command("queue")(queue)


def queue(
    post_id: Annotated[
        str, typer.Argument(help="Post id, or 6+ characters of it.", show_default=False)
    ],
    to: Annotated[
        list[str] | None,
        typer.Option(
            "--to",
            help="Account to publish to (repeat for several); default: the post's accounts "
            "already chosen, else the queue's (queue slots set --to).",
            show_default=False,
        ),
    ] = None,
    number_parts: Annotated[
        bool,
        typer.Option(
            "--number-parts",
            help='Number the parts of a post that becomes a thread ("1/3", "2/3", ...).',
        ),
    ] = False,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Put a post in the next free slot of its queue (an account's own, when it goes to
    that one account and it has slots; else the workspace's)."""
    from socialgen.kit.local_time import local_moment
    from socialgen.publishing.accounts.refs import ACCOUNT_REF
    from socialgen.publishing.queue.service import queue_post
    from socialgen.publishing.queue.views import queued_data
    from socialgen.store.engine import transaction

    engine, workspace_id, post_id = open_ref(workspace, "post", post_id)
    accounts = resolve_each(engine, workspace_id, ACCOUNT_REF, to or [], keep_unknown=True)
    with transaction(engine) as session:
        queued = queue_post(session, workspace_id, post_id, accounts, number_parts=number_parts)
        data = queued_data(session, queued)

    def render(out: Console) -> None:
        when = local_moment(data.scheduledAt, creator_zone())
        whose = f"{data.queue.network}:{data.queue.account}'s" if data.queue.account else "the"
        out.print(f"Queued {post_id} in {whose} {data.slot} slot: {when}")
        for row in data.publications:
            out.print(f"  {row.network} {row.account}: {row.state}")
        if not data.publications:
            out.print(
                "  It goes out nowhere yet: add accounts with --to ACCOUNT (or give the "
                'queue accounts: socialgen queue slots set "..." --to ACCOUNT)'
            )

    emit(json_output, data.model_dump(), render)
