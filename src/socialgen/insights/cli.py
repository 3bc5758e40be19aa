"""`socialgen insights`: what works in your own published posts, and when to post."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from socialgen.cli.support import (
    JsonOpt,
    WorkspaceOpt,
    console,
    current_runtime,
    emit,
    open_workspace,
)
from socialgen.insights.charts_cli import (
    HtmlOpt,
    OpenOpt,
    check_chart_options,
    emit_charts,
    post_texts,
)
from socialgen.kit.limits import INSIGHTS_DAYS

if TYPE_CHECKING:
    from socialgen.insights.schemas import InsightsReport

# The group runs the report when no sub-command is named (`insights rank ...` is one).
app = typer.Typer(invoke_without_command=True, no_args_is_help=False, rich_markup_mode=None)

DaysOpt = Annotated[
    int | None,
    typer.Option(
        "--days",
        min=INSIGHTS_DAYS.low,
        max=INSIGHTS_DAYS.high,
        help="Only posts published in the last N days.",
        show_default=False,
    ),
]
TzOpt = Annotated[
    str | None,
    typer.Option(
        "--tz",
        help="Time zone of the slots, e.g. Europe/Paris (default: the timezone setting, "
        "else the system's).",
        show_default=False,
    ),
]


@app.callback()
def insights(
    ctx: typer.Context,
    days: DaysOpt = None,
    tz: TzOpt = None,
    workspace: WorkspaceOpt = None,
    json_output: JsonOpt = False,
    html: HtmlOpt = None,
    open_page: OpenOpt = False,
) -> None:
    """Engagement relative to your baseline, findings with intervals, best times."""
    if ctx.invoked_subcommand is not None:
        return
    # A bad --html path or a lone --open is refused before the report is built.
    check_chart_options(html, open_page)
    # The terminal's report and the charts draw the report's JSON, as --json prints it.
    report = report_for(workspace, days, tz).json_data()
    zone_chosen = tz is not None or current_runtime().settings.timezone is not None
    emit(json_output, report, lambda out: _print(report, out, zone_chosen=zone_chosen))
    emit_charts(
        report,
        console=None if json_output else console(),
        html=html,
        open_page=open_page,
        texts=post_texts(workspace),  # the page lists posts by their words
    )


def report_for(workspace: str | None, days: int | None, tz: str | None) -> InsightsReport:
    """The report the command prints (also what `--html` writes)."""
    from socialgen.insights.report import build_report
    from socialgen.store.engine import read_session

    engine, workspace_id = open_workspace(workspace)
    zone = tz if tz is not None else current_runtime().settings.timezone
    with read_session(engine) as session:
        return build_report(session, workspace_id, days, zone)


def _print(report: dict[str, Any], out: Any, *, zone_chosen: bool) -> None:
    from socialgen.insights.terminal import print_report

    print_report(report, out, zone_chosen=zone_chosen)
