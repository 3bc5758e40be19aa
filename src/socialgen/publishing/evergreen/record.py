"""What a preparer writes once the model answered (or a run turned out missed): the
run's own post scheduled for its due time with its publications queued (the outbox
publishes it exactly once, as any scheduled post), the variation kept as a version of
the original, one post of the quota spent, the plan moved to its next run. All in one
transaction, written only while the preparer's claim on the plan stands: a preparer
that was taken over (its claim ended) or a plan changed meanwhile writes nothing.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from sqlmodel import Session

from socialgen.kit.clock import iso
from socialgen.kit.errors import BadRequest
from socialgen.posts.repository import latest_version_number
from socialgen.posts.service import create_draft
from socialgen.posts.views import snippet
from socialgen.publishing.accounts.repository import account_by_id
from socialgen.publishing.evergreen.cadence import add_days, ends_before
from socialgen.publishing.evergreen.schemas import PreparedRun
from socialgen.publishing.outbox.service import schedule_post
from socialgen.store.tables import (
    EvergreenPlan,
    EvergreenRun,
    PlanState,
    Post,
    PostVersion,
    RunState,
)
from socialgen.workspaces.usage import give_back_reserved, reserve_posts, spend_reserved

# After a refused variation the plan waits before the next try: 1 min, 2, 4 ... 1 h.
BACKOFF_START = timedelta(minutes=1)
BACKOFF_MAX = timedelta(hours=1)
NOT_WRITTEN = "No acceptable variation was written before it was due"
NO_ACCOUNT = "none of the plan's accounts is connected any more: name others"


def outcome(plan: EvergreenPlan, run: EvergreenRun, kind: str, message: str = "") -> PreparedRun:
    return PreparedRun(
        planId=plan.id,
        postId=plan.post_id,
        number=run.number,
        dueAt=iso(run.due_at),
        outcome=kind,
        runPostId=run.post_id,
        message=message,
    )


def advance(plan: EvergreenPlan, now: datetime) -> None:
    """The plan's next run is one period later, or there is none (it finished)."""
    plan.next_number += 1
    due = add_days(plan.next_at or now, plan.every_days, ZoneInfo(plan.zone))
    if ends_before(due, plan.runs_written, plan.max_runs, plan.until):
        plan.state, plan.next_at = PlanState.FINISHED, None
    else:
        plan.next_at = due
    plan.claimed_by = plan.claimed_until = None
    plan.updated_at = now


def missed(session: Session, plan: EvergreenPlan, run: EvergreenRun, now: datetime) -> PreparedRun:
    """Its due time came before a variation was accepted: nothing goes out late."""
    said = f"{NOT_WRITTEN}: {run.message}" if run.message else NOT_WRITTEN
    run.state, run.message, run.updated_at = RunState.MISSED, said, now
    plan.message = f"Run {run.number} was missed: {said}"
    advance(plan, now)
    session.add_all([plan, run])
    return outcome(plan, run, "missed", said)


def refused(
    session: Session, plan: EvergreenPlan, run: EvergreenRun, problem: str, now: datetime
) -> PreparedRun:
    """No variation this time: the run says why, the plan waits a little and tries again."""
    run.message, run.updated_at = problem, now
    plan.message = f"Run {run.number}: {problem}"
    plan.claimed_by = None
    plan.claimed_until = now + min(BACKOFF_MAX, BACKOFF_START * 2 ** max(0, run.attempts - 1))
    plan.updated_at = now
    session.add_all([plan, run])
    return outcome(plan, run, "refused", problem)


def written(
    session: Session, plan: EvergreenPlan, run: EvergreenRun, text: str, now: datetime
) -> PreparedRun:
    """The run's post, scheduled at its due time to the plan's accounts."""
    original = session.get(Post, plan.post_id)
    assert original is not None  # the plan goes with its post (ON DELETE CASCADE)
    workspace_id = plan.workspace_id
    # An account removed since the plan was set is left out (none left: refused).
    connected = [i for i in plan.account_ids if account_by_id(session, workspace_id, i)]
    if not connected:
        raise BadRequest(NO_ACCOUNT)
    ledger = reserve_posts(session, workspace_id, 1)  # a 403 past the quota: refused
    post = create_draft(
        session,
        workspace_id,
        text,
        title=f"Evergreen run {run.number}: {snippet(original.content)}",
        variation_name=f"Evergreen run {run.number}",
        source="evergreen",
    )
    spend_reserved(session, workspace_id, ledger, 1)
    give_back_reserved(session, ledger)
    schedule_post(session, workspace_id, post.id, run.due_at, connected)
    version = (latest_version_number(session, original.id) or 0) + 1
    session.add(PostVersion(post_id=original.id, version=version, content=text, source="evergreen"))
    run.state, run.post_id, run.version = RunState.SCHEDULED, post.id, version
    run.message, run.updated_at = "", now
    plan.runs_written += 1
    plan.message = ""
    advance(plan, now)
    session.add_all([plan, run])
    session.flush()
    return outcome(plan, run, "written")
