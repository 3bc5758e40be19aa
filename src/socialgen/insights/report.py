"""The insights report of one workspace, as `socialgen insights --json` prints it and
`GET /api/v1/insights/{workspaceId}` answers it (INSIGHTS_CONTRACT.md's JSON)."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlmodel import Session

from socialgen.config.zone import resolve_zone
from socialgen.insights.history import load_published
from socialgen.insights.schemas import InsightsReport
from socialgen.kit.clock import iso, utcnow
from socialgen.kit.limits import INSIGHTS_DAYS


def build_report(
    session: Session,
    workspace_id: str,
    days: int | None,
    tz: str | None,
    *,
    now: datetime | None = None,
) -> InsightsReport:
    """`days`: only posts published in the last `days` days (None: all); `tz`: the
    creator's zone name (the faces pass --tz, else the `timezone` setting; None: the
    system's zone). A bad zone or a `days` under 1 is a BadRequest (400, CLI exit 1)."""
    if days is not None:
        INSIGHTS_DAYS.check(days)
    zone = resolve_zone(tz)
    moment = now or utcnow()
    since = moment - timedelta(days=days) if days is not None else None
    posts = load_published(session, workspace_id, since=since)
    from socialgen.insights.analysis import analyse  # numpy: only when a report is built

    # Validated from the analysis' dicts in one pass (pydantic-core), not built point
    # by point: a report carries one series point per post.
    return InsightsReport.model_validate(
        {
            "workspaceId": workspace_id,
            "generatedAt": iso(moment),
            "days": days,
            "timezone": zone.key,
            **analyse(posts, zone).view(),
        }
    )
