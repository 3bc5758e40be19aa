"""Writing the runs due soon: the preparer, run by `serve` (scheduler.py), by
`publish-due` before its pass, and on demand (`posts evergreen prepare`).

A run is written ahead, from LEAD (a day) before it is due, never at the moment it
is due: the model may be slow or down, and then the run is tried again at the next
look, not sent late. A pass claims the plans whose next run is due within the lead
in one short transaction (PostgreSQL skips rows another preparer's claim transaction
holds; SQLite's write transaction is exclusive), exactly as the outbox claims
publications; asks the model outside any transaction; and records the answer in one
transaction while its claim stands (record.py). Two preparers (two `serve`s and a
cron `publish-due`) never write the same run twice: the run is unique per (plan,
number), and only the claim's holder writes it. A run whose due time comes before an
acceptable variation is `missed`: nothing goes out late, the plan moves on.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Engine
from sqlmodel import Session

from socialgen.ai.model import TextModel
from socialgen.kit.clock import utcnow
from socialgen.kit.errors import SocialgenError
from socialgen.publishing.accounts.service import list_accounts
from socialgen.publishing.evergreen import record, repository
from socialgen.publishing.evergreen.cadence import LEAD
from socialgen.publishing.evergreen.schemas import PrepareData, PreparedRun
from socialgen.publishing.evergreen.variation import Brief, Refusal, write_variation
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import EvergreenPlan, EvergreenRun, Post
from socialgen.workspaces.service import get_usage

logger = logging.getLogger("socialgen.publishing")

CLAIM = timedelta(minutes=5)  # longer than the model's own timeout (variation.py)
PLANS_PER_PASS = 20  # a pass is bounded; the next look takes the rest


@dataclass(frozen=True)
class Job:
    plan_id: str
    number: int
    brief: Brief


def anything_to_prepare(engine: Engine, now: datetime | None = None) -> bool:
    """The scheduler's look: one indexed read."""
    moment = now or utcnow()
    with read_session(engine) as session:
        return repository.anything_to_prepare(session, moment + LEAD, moment)


async def prepare_due(
    engine: Engine,
    model: Callable[[], TextModel],
    *,
    worker: str,
    max_tokens: int,
    workspace_id: str | None = None,
    force: bool = False,
    now: datetime | None = None,
) -> PrepareData:
    """Write every run due within LEAD (of one workspace when named). `force` (on
    demand) does not wait out the back-off after a refused variation. `now` is when
    the pass looks (tests); the answers are recorded at the real time. `model` is
    called only when a run is to be written: an idle pass never builds the model."""
    jobs, outcomes = await asyncio.to_thread(
        claim, engine, worker, now or utcnow(), workspace_id, force
    )
    built: TextModel | None = None
    unusable = ""  # a model that cannot be built (a bad provider setting) refuses every run
    for job in jobs:
        try:
            if built is None and not unusable:
                built = model()
            if built is None:
                raise Refusal(unusable)
            text, problem = await write_variation(built, job.brief, max_tokens=max_tokens), ""
        except Refusal as refusal:
            text, problem = "", refusal.message
        except SocialgenError as error:
            unusable = error.message
            text, problem = "", unusable
        done = await asyncio.to_thread(settle, engine, job, worker, text, problem)
        if done is not None:
            outcomes.append(done)
    counts = {kind: sum(o.outcome == kind for o in outcomes) for kind in ("written", "refused")}
    missed = sum(o.outcome == "missed" for o in outcomes)
    return PrepareData(
        written=counts["written"], refused=counts["refused"], missed=missed, runs=outcomes
    )


def claim(
    engine: Engine, worker: str, now: datetime, workspace_id: str | None, force: bool
) -> tuple[list[Job], list[PreparedRun]]:
    """Claim the plans to prepare; a run already due is missed here, and a plan that
    cannot be written (no account left, no quota) is refused without asking the model."""
    jobs: list[Job] = []
    outcomes: list[PreparedRun] = []
    with transaction(engine) as session:
        plans = repository.preparable(
            session, now + LEAD, now, limit=PLANS_PER_PASS, workspace_id=workspace_id, force=force
        )
        for plan in plans:
            run = _run_of(session, plan)
            if run.due_at <= now:
                outcomes.append(record.missed(session, plan, run, now))
                continue
            brief, problem = _brief(session, plan, run)
            if problem:
                run.attempts += 1
                outcomes.append(record.refused(session, plan, run, problem, now))
                continue
            plan.claimed_by, plan.claimed_until = worker, now + CLAIM
            session.add(plan)
            jobs.append(Job(plan.id, run.number, brief))
    return jobs, outcomes


def settle(engine: Engine, job: Job, worker: str, text: str, problem: str) -> PreparedRun | None:
    """Record the model's answer for `job` if the claim still stands; None when the
    plan was taken over or changed meanwhile (whoever has it now writes it)."""
    try:
        with transaction(engine) as session:
            return _settle(session, job, worker, text, problem)
    except SocialgenError as error:  # an account removed meanwhile, the quota spent ...
        with transaction(engine) as session:
            return _settle(session, job, worker, "", error.message)


def _settle(session: Session, job: Job, worker: str, text: str, problem: str) -> PreparedRun | None:
    now = utcnow()
    plan = repository.locked_plan(session, job.plan_id)
    if plan is None or plan.claimed_by != worker or plan.next_number != job.number:
        return None
    run = repository.run_number(session, plan.id, job.number)
    if run is None:
        return None
    run.attempts += 1
    if run.due_at <= now:
        return record.missed(session, plan, run, now)
    if problem:
        return record.refused(session, plan, run, problem, now)
    return record.written(session, plan, run, text, now)


def _run_of(session: Session, plan: EvergreenPlan) -> EvergreenRun:
    """The plan's next run, made when first looked at."""
    run = repository.run_number(session, plan.id, plan.next_number)
    if run is None:
        assert plan.next_at is not None  # a preparable plan has a next run
        run = EvergreenRun(plan_id=plan.id, number=plan.next_number, due_at=plan.next_at)
        session.add(run)
        session.flush()
    return run


def _brief(session: Session, plan: EvergreenPlan, run: EvergreenRun) -> tuple[Brief, str]:
    """What the model is given for `run`, or why it cannot be written now."""
    original = session.get(Post, plan.post_id)
    assert original is not None  # the plan goes with its post
    accounts = {account.id: account for account in list_accounts(session, plan.workspace_id)}
    networks = [accounts[i].network for i in plan.account_ids if i in accounts]
    earlier = [
        (f"run {other.number}", post.content)
        for other, post in repository.runs_with_posts(session, [plan.id])
        if post is not None and other.number != run.number
    ]
    seen = {text for _, text in earlier} | {original.content}
    earlier += [
        ("an earlier version", text)
        for text in dict.fromkeys(repository.version_texts(session, original.id))
        if text not in seen
    ]
    brief = Brief(run.number, original.content, earlier, networks)
    if not networks:
        return brief, record.NO_ACCOUNT
    usage = get_usage(session, plan.workspace_id)
    if usage.post_quota is not None and usage.posts_used >= usage.post_quota:
        return brief, f"the post quota is spent ({usage.posts_used} of {usage.post_quota})"
    return brief, ""
