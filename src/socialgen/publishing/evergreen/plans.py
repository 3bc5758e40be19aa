"""Marking a published post evergreen, changing its terms, stopping it. Never commits:
the caller's transaction does (nothing is half-written when a term is refused).

A plan's runs are written ahead by the preparer (prepare.py); here only the terms and
the next run's due time change. Stopping cancels what has not gone out: the run being
written, and a written run whose publications all still wait (its post is deleted;
its text stays a version of the original).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from sqlmodel import Session

from socialgen.kit.clock import iso, utcnow
from socialgen.kit.errors import BadRequest, NotFound
from socialgen.posts.repository import lock_publications_of_post
from socialgen.posts.service import delete_post, get_post
from socialgen.posts.views import snippet
from socialgen.publishing.accounts.service import get_account
from socialgen.publishing.evergreen import repository
from socialgen.publishing.evergreen.cadence import (
    check_ending,
    check_every,
    check_times,
    ends_before,
    first_due,
)
from socialgen.publishing.outbox.repository import with_accounts
from socialgen.publishing.outbox.service import unschedule_post
from socialgen.store.tables import (
    EvergreenPlan,
    PlanState,
    Post,
    PostStatus,
    PublicationState,
    RunState,
)

NO_PLAN = "This post is not evergreen: mark it with socialgen posts evergreen POST_ID --every 30d"


@dataclass(frozen=True)
class Terms:
    every_days: int
    times: int | None = None
    until: datetime | None = None
    account_refs: Sequence[str] = ()  # empty: the accounts the original went out to
    first: datetime | None = None


def set_plan(
    session: Session,
    workspace_id: str,
    post_id: str,
    terms: Terms,
    zone: ZoneInfo,
    now: datetime | None = None,
) -> EvergreenPlan:
    """Make the post evergreen on these terms, or change the terms of its plan (a
    stopped or finished plan starts again). The runs keep their numbers."""
    now = now or utcnow()
    post = get_post(session, workspace_id, post_id)
    _ensure_original(session, post)
    check_every(terms.every_days)
    check_times(terms.times)
    check_ending(terms.times, terms.until, now)
    accounts = _account_ids(session, workspace_id, post, terms.account_refs)
    plan = repository.plan_of_post(session, workspace_id, post.id)
    if plan is None:
        plan = EvergreenPlan(workspace_id=workspace_id, post_id=post.id, every_days=1)
    runs = repository.runs_with_posts(session, [plan.id])
    written = [run for run, _ in runs if run.state == RunState.SCHEDULED]
    if terms.first is not None:
        if terms.first <= now:
            raise BadRequest(f"The first run must be in the future (got {iso(terms.first)})")
        due = terms.first
    else:  # a period after the latest written run, else after the original
        anchor = max((run.due_at for run in written), default=post.published_at or now)
        due = first_due(anchor, terms.every_days, zone, now)
    if ends_before(due, plan.runs_written, terms.times, terms.until):
        raise BadRequest(_nothing_left(plan.runs_written, terms, due))
    plan.every_days, plan.max_runs, plan.until = terms.every_days, terms.times, terms.until
    plan.account_ids, plan.zone = accounts, zone.key
    plan.state, plan.next_at, plan.message = PlanState.ACTIVE, due, ""
    plan.next_number = max((run.number for run, _ in runs), default=0) + 1
    _reopen_writing_run(session, plan, now)
    plan.claimed_by = plan.claimed_until = None  # a refused run's back-off ends too
    plan.updated_at = now
    session.add(plan)
    session.flush()
    return plan


def stop_plan(
    session: Session, workspace_id: str, post_id: str, now: datetime | None = None
) -> tuple[EvergreenPlan, int]:
    """Stop the post's plan; returns it and how many runs were cancelled. A run whose
    post is going out or went out stays as it is."""
    now = now or utcnow()
    post = get_post(session, workspace_id, post_id)
    plan = repository.plan_of_post(session, workspace_id, post.id)
    if plan is None:
        raise NotFound(NO_PLAN)
    cancelled = 0
    for run in repository.open_runs(session, plan.id):
        if run.state == RunState.SCHEDULED:
            if run.post_id is not None and not _still_waiting(session, run.post_id):
                continue
            if run.post_id is not None:
                unschedule_post(session, workspace_id, run.post_id)
                delete_post(session, workspace_id, run.post_id)
            plan.runs_written = max(0, plan.runs_written - 1)
        run.state, run.post_id, run.updated_at = RunState.CANCELLED, None, now
        session.add(run)
        cancelled += 1
    if plan.state == PlanState.ACTIVE:
        plan.state = PlanState.STOPPED
    plan.next_at = plan.claimed_by = plan.claimed_until = None
    plan.updated_at = now
    session.add(plan)
    session.flush()
    return plan, cancelled


def _ensure_original(session: Session, post: Post) -> None:
    found = repository.run_of_post(session, post.id)
    if found is not None:
        run, plan = found
        raise BadRequest(
            f"This post is run {run.number} of the evergreen post {plan.post_id}: "
            "change that post's plan instead"
        )
    if post.status != PostStatus.PUBLISHED:
        raise BadRequest(
            f"Only a published post can be evergreen (this post is {post.status}): publish it first"
        )
    if post.carousel:
        raise BadRequest(
            f"Evergreen reposts are text: a carousel post cannot be one ({snippet(post.content)!r})"
        )


def _account_ids(session: Session, workspace_id: str, post: Post, refs: Sequence[str]) -> list[str]:
    """The accounts named, or those the original went out to, in order, each once."""
    if refs:
        ids = [get_account(session, workspace_id, ref).id for ref in refs]
    else:
        rows = [
            (publication, account)
            for publication, account in with_accounts(session, post.id)
            if publication.state == PublicationState.PUBLISHED
        ]
        rows.sort(key=lambda row: row[0].created_at)
        ids = [account.id for _, account in rows]
    if not ids:
        raise BadRequest(
            "This post went out through no account socialgen knows: name the accounts "
            "its reposts go to (--to ACCOUNT; accountIds over HTTP and MCP)"
        )
    return list(dict.fromkeys(ids))


def _reopen_writing_run(session: Session, plan: EvergreenPlan, now: datetime) -> None:
    """A run still being written under the old terms is due at the new time (or its
    number is the next one again, once the plan moved past it)."""
    for run in repository.open_runs(session, plan.id):
        if run.state == RunState.WRITING and plan.next_at is not None:
            plan.next_number = run.number
            run.due_at, run.updated_at = plan.next_at, now
            session.add(run)


def _still_waiting(session: Session, post_id: str) -> bool:
    """Whether a run's post has not started going out: scheduled, every publication
    queued. The publications stay locked (PostgreSQL) until the stop commits, so a
    worker's claim skips them rather than sending one the stop then deletes."""
    post = session.get(Post, post_id)
    if post is None or post.status != PostStatus.SCHEDULED:
        return False
    rows = lock_publications_of_post(session, post_id)
    return all(publication.state == PublicationState.QUEUED for publication, _ in rows)


def _nothing_left(written: int, terms: Terms, due: datetime) -> str:
    if terms.times is not None and written >= terms.times:
        return (
            f"{written} run(s) written already: --times {terms.times} leaves none "
            "(ask for more, or stop the plan)"
        )
    return f"The next run would be due {iso(due)}, after --until {iso(terms.until)}"
