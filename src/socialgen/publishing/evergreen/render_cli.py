"""How `posts evergreen` shows plans, runs and a preparation to a person: the posts by
their words, times in the creator's zone (named), each run's numbers beside the
original's. --json prints the views themselves (ISO 8601 UTC, whole ids)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from socialgen.cli.support import creator_zone, print_rows, styled
from socialgen.kit.local_time import local_moment
from socialgen.posts.views import snippet

if TYPE_CHECKING:
    from rich.console import Console

    from socialgen.publishing.evergreen.schemas import Counts, PlanView, PrepareData

_STATE_STYLES = {
    "active": "green",
    "stopped": "yellow",
    "finished": "cyan",
    "scheduled": "cyan",
    "published": "green",
    "writing": "yellow",
    "missed": "red",
    "cancelled": "yellow",
}


def numbers(counts: Counts | None) -> str:
    if counts is None:
        return "not read yet"
    return f"likes {counts.likes} · reposts {counts.reposts} · comments {counts.comments}"


def ending(plan: PlanView) -> str:
    """ "2 of 3 reposts", "2 reposts, until 2027-06-30 10:00 Europe/Paris" ..."""
    done = f"{plan.runsWritten} of {plan.times}" if plan.times else str(plan.runsWritten)
    until = f", until {local_moment(plan.until, creator_zone())}" if plan.until else ""
    return f"{done} repost(s){until}"


def print_plans(out: Console, plans: list[PlanView]) -> None:
    rows = [
        {
            "post": snippet(plan.postContent),
            "every": f"{plan.everyDays} d",
            "nextAt": plan.nextAt,
            "reposts": ending(plan),
            "to": ", ".join(account.account for account in plan.accounts),
            "state": plan.state,
            "problem": plan.message,
        }
        for plan in plans
    ]
    print_rows(
        out,
        "Evergreen posts",
        rows,
        empty="Mark a published post: socialgen posts evergreen POST_ID --every 30d --times 3",
    )


def print_plan(out: Console, plan: PlanView, *, said: str = "") -> None:
    zone = creator_zone()
    head = f"{said}: " if said else ""
    out.print(styled((head, "bold"), f"{snippet(plan.postContent, 70)}"))
    state = (plan.state, _STATE_STYLES.get(plan.state, "cyan"))
    out.print(styled("  ", state, f" · every {plan.everyDays} days · {ending(plan)}"))
    if plan.nextAt:
        out.print(f"  next repost {plan.nextNumber}: {local_moment(plan.nextAt, zone)}")
    out.print("  to " + (", ".join(a.account for a in plan.accounts) or "no connected account"))
    out.print(f"  the original: {numbers(plan.metrics)}")
    if plan.message:
        out.print(styled(("  problem: ", "red"), plan.message))
    for run in plan.runs:
        when = local_moment(run.dueAt, zone)
        status = run.postStatus if run.state == "scheduled" and run.postStatus else run.state
        line: list[Any] = [f"  run {run.number}, {when}: ", (status, _STATE_STYLES.get(status, ""))]
        if run.postContent is not None:
            line.append(f"  {snippet(run.postContent, 60)}")
        out.print(styled(*line))
        if run.postContent is not None:
            out.print(f"    {numbers(run.metrics)}")
        for row in run.publications:
            out.print(f"    {row.network} {row.account}: {row.state}  {row.url or ''}".rstrip())
        if run.message:
            out.print(styled(("    ", ""), (run.message, "yellow")))


def print_prepared(out: Console, data: PrepareData) -> None:
    out.print(
        f"Evergreen reposts: {data.written} written, {data.refused} refused (tried again "
        f"later), {data.missed} missed"
    )
    zone = creator_zone()
    for run in data.runs:
        text = f"  run {run.number} due {local_moment(run.dueAt, zone)}: {run.outcome}"
        out.print(styled(text, (f"  {run.message}" if run.message else "", "yellow")))
