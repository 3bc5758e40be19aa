"""`socialgen insights evergreen`: the published posts worth posting again (those that
beat their usual clearly, older than a few months), added to the insights group by
this slice's feature.py (insights sits below publishing and knows no plan)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated

import typer

from socialgen.cli.support import (
    IdShortener,
    JsonOpt,
    WorkspaceOpt,
    emit,
    notes,
    open_workspace,
    print_rows,
    styled,
)
from socialgen.insights.evergreen_candidates import MIN_AGE_DAYS
from socialgen.posts.views import snippet

if TYPE_CHECKING:
    from rich.console import Console

    from socialgen.publishing.evergreen.schemas import CandidatesData


def extend_insights_group(insights_app: typer.Typer) -> None:
    insights_app.command("evergreen")(evergreen_candidates)


def evergreen_candidates(
    min_age: Annotated[
        int,
        typer.Option("--min-age", min=0, max=3650, help="Only posts at least this many days old."),
    ] = MIN_AGE_DAYS,
    limit: Annotated[int, typer.Option("--limit", min=1, max=100, help="At most N posts.")] = 20,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
) -> None:
    """Posts worth making evergreen: they beat your usual clearly (the interval says so,
    not one lucky number) and are old enough to post again."""
    from socialgen.cli.refs import shortener
    from socialgen.publishing.evergreen.candidates import candidates
    from socialgen.store.engine import read_session

    engine, workspace_id = open_workspace(workspace)
    with read_session(engine) as session:
        data = candidates(session, workspace_id, min_age_days=min_age, limit=limit)

    def render(out: Console) -> None:
        _print(out, data, {"postId": shortener(engine, "post", workspace_id)})

    emit(json_output, data.model_dump(), render)


def _print(out: Console, data: CandidatesData, short_ids: Mapping[str, IdShortener]) -> None:
    if data.withheld:
        out.print(styled(("Withheld: ", "yellow"), data.withheld))
        return
    rows = [
        {
            "postId": item.postId,
            "post": snippet(item.postContent),
            "publishedAt": item.publishedAt,
            "engagement": str(item.engagement),
            "vs usual": f"{item.multiplier:.1f}x ({item.low:.1f}x to {item.high:.1f}x)",
        }
        for item in data.candidates
    ]
    print_rows(
        out,
        f"Evergreen candidates (of {data.considered} posts over {data.minAgeDays} days old)",
        rows,
        short_ids,
        empty="No post beat its usual clearly enough; more history makes the intervals narrower.",
    )
    if rows:
        hint = "Make one evergreen: socialgen posts evergreen POST_ID --every 60d --times 3"
        notes(out).print(hint)  # on stderr when piped: stdout holds only the rows
