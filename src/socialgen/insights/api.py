"""GET /api/v1/insights/{workspaceId}: the insights report, as `socialgen insights
--json` prints it, for any member of the workspace."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query

from socialgen.http.guard import WorkspaceAccess, WorkspaceGuard
from socialgen.http.support import EngineDep, RuntimeDep, error_responses, fails_with
from socialgen.insights.schemas import InsightsResponse
from socialgen.kit.limits import INSIGHTS_DAYS

# The shape of an IANA name ("UTC", "Europe/Paris", "America/Argentina/Buenos_Aires",
# "Etc/GMT+5"); whether the database knows it is checked when the report is built.
ZONE_NAME = r"^[A-Za-z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*$"

router = APIRouter(prefix="/api/v1/insights", tags=["insights"])

Member = Annotated[WorkspaceAccess, Depends(WorkspaceGuard(bearer_required=False))]


@router.get(
    "/{workspaceId}",
    response_model=InsightsResponse,
    responses=error_responses(400, 401, 403, 500),
)
@fails_with("Failed to build the insights report")
def get_insights(
    caller: Member,
    engine: EngineDep,
    runtime: RuntimeDep,
    days: Annotated[
        int | None,
        Query(
            ge=INSIGHTS_DAYS.low,
            le=INSIGHTS_DAYS.high,
            description="Only posts published in the last N days.",
        ),
    ] = None,
    tz: Annotated[
        str | None,
        Query(
            description="IANA time zone of the slots, e.g. Europe/Paris (default: the "
            "timezone setting, else the server's zone). A name the time zone database "
            "does not know is a 400.",
            min_length=1,
            max_length=64,
            pattern=ZONE_NAME,
        ),
    ] = None,
) -> InsightsResponse:
    """Engagement relative to the creator's baseline, findings with intervals, slots
    of the week and the best ones; findings only from 30 measured posts on."""
    from socialgen.insights.report import build_report
    from socialgen.store.engine import read_session

    zone = tz if tz is not None else runtime.settings.timezone
    with read_session(engine) as session:
        report = build_report(session, caller.workspace_id, days, zone)
    return InsightsResponse(success=True, data=report)
