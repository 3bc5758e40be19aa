"""The statements of evergreen plans and their runs. Every function takes the caller's
session (its transaction decides what is atomic) and never commits."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import ColumnElement, and_, or_
from sqlmodel import Session, col, select

from socialgen.store.tables import EvergreenPlan, EvergreenRun, PlanState, Post, PostVersion


def plan_of_post(session: Session, workspace_id: str, post_id: str) -> EvergreenPlan | None:
    """The post's plan, its row locked (PostgreSQL) for the rest of the transaction: a
    preparer recording a run meanwhile is waited for, and its run then seen."""
    return session.exec(
        select(EvergreenPlan)
        .where(
            col(EvergreenPlan.workspace_id) == workspace_id,
            col(EvergreenPlan.post_id) == post_id,
        )
        .with_for_update()
    ).first()


def plans_with_posts(
    session: Session, workspace_id: str, post_id: str | None = None
) -> list[tuple[EvergreenPlan, Post]]:
    """The workspace's plans (or the one of `post_id`) with their originals, the next
    run first and ended plans last."""
    statement = (
        select(EvergreenPlan, Post)
        .join(Post, col(Post.id) == col(EvergreenPlan.post_id))
        .where(col(EvergreenPlan.workspace_id) == workspace_id)
        .order_by(col(EvergreenPlan.next_at).is_(None), col(EvergreenPlan.next_at))
    )
    if post_id is not None:
        statement = statement.where(col(EvergreenPlan.post_id) == post_id)
    return list(session.exec(statement).all())


def runs_with_posts(
    session: Session, plan_ids: Sequence[str]
) -> list[tuple[EvergreenRun, Post | None]]:
    """The runs of these plans, each with its post (None before it is written or once
    it was deleted), by plan and number."""
    if not plan_ids:
        return []
    return list(
        session.exec(
            select(EvergreenRun, Post)
            .join(Post, col(Post.id) == col(EvergreenRun.post_id), isouter=True)
            .where(col(EvergreenRun.plan_id).in_(list(plan_ids)))
            .order_by(col(EvergreenRun.plan_id), col(EvergreenRun.number))
        ).all()
    )


def run_of_post(session: Session, post_id: str) -> tuple[EvergreenRun, EvergreenPlan] | None:
    """The run whose variation `post_id` is, with its plan; None for any other post."""
    return session.exec(
        select(EvergreenRun, EvergreenPlan)
        .join(EvergreenPlan, col(EvergreenPlan.id) == col(EvergreenRun.plan_id))
        .where(col(EvergreenRun.post_id) == post_id)
    ).first()


def run_posts(session: Session, workspace_id: str) -> set[str]:
    """The workspace's posts that are runs' variations."""
    rows = session.exec(
        select(EvergreenRun.post_id)
        .join(EvergreenPlan, col(EvergreenPlan.id) == col(EvergreenRun.plan_id))
        .where(
            col(EvergreenPlan.workspace_id) == workspace_id,
            col(EvergreenRun.post_id).is_not(None),
        )
    ).all()
    return {post_id for post_id in rows if post_id is not None}


def planned_posts(session: Session, workspace_id: str) -> set[str]:
    """The originals with an active plan."""
    rows = session.exec(
        select(EvergreenPlan.post_id).where(
            col(EvergreenPlan.workspace_id) == workspace_id,
            col(EvergreenPlan.state) == PlanState.ACTIVE,
        )
    ).all()
    return set(rows)


def run_number(session: Session, plan_id: str, number: int) -> EvergreenRun | None:
    return session.exec(
        select(EvergreenRun).where(
            col(EvergreenRun.plan_id) == plan_id, col(EvergreenRun.number) == number
        )
    ).first()


def open_runs(session: Session, plan_id: str) -> list[EvergreenRun]:
    """The plan's runs that may still go out: being written, or written and scheduled."""
    return list(
        session.exec(
            select(EvergreenRun).where(
                col(EvergreenRun.plan_id) == plan_id,
                col(EvergreenRun.state).in_(["writing", "scheduled"]),
            )
        ).all()
    )


def texts_of_posts(session: Session, post_ids: Sequence[str]) -> list[str]:
    if not post_ids:
        return []
    return list(session.exec(select(Post.content).where(col(Post.id).in_(list(post_ids)))).all())


def version_texts(session: Session, post_id: str) -> list[str]:
    """Every content the post has had (its versions, the evergreen variations among them)."""
    return list(
        session.exec(select(PostVersion.content).where(col(PostVersion.post_id) == post_id)).all()
    )


def _preparable(horizon: datetime, now: datetime, *, force: bool) -> ColumnElement[bool]:
    """Active plans whose next run is due by `horizon`, claimed by nobody (a claim
    that ended belongs to a preparer that died) and, unless `force`, past the
    back-off after a refused variation."""
    free = or_(col(EvergreenPlan.claimed_until).is_(None), col(EvergreenPlan.claimed_until) < now)
    if force:
        free = or_(free, col(EvergreenPlan.claimed_by).is_(None))
    return and_(
        col(EvergreenPlan.state) == PlanState.ACTIVE,
        col(EvergreenPlan.next_at) <= horizon,
        free,
    )


def anything_to_prepare(session: Session, horizon: datetime, now: datetime) -> bool:
    """One index range scan on (state, next_at); reads only."""
    found = session.exec(
        select(EvergreenPlan.id).where(_preparable(horizon, now, force=False)).limit(1)
    ).first()
    return found is not None


def preparable(
    session: Session,
    horizon: datetime,
    now: datetime,
    *,
    limit: int,
    workspace_id: str | None,
    force: bool,
) -> list[EvergreenPlan]:
    """Up to `limit` plans to prepare, soonest first. On PostgreSQL the rows are locked,
    skipping those another preparer's claim transaction holds; SQLite's write
    transaction is exclusive already."""
    statement = (
        select(EvergreenPlan)
        .where(_preparable(horizon, now, force=force))
        .order_by(col(EvergreenPlan.next_at))
        .limit(limit)
    )
    if workspace_id is not None:
        statement = statement.where(col(EvergreenPlan.workspace_id) == workspace_id)
    if session.get_bind().dialect.name == "postgresql":
        statement = statement.with_for_update(skip_locked=True)
    return list(session.exec(statement).all())


def locked_plan(session: Session, plan_id: str) -> EvergreenPlan | None:
    """The plan, its row locked (PostgreSQL) for the rest of the transaction."""
    return session.exec(
        select(EvergreenPlan).where(col(EvergreenPlan.id) == plan_id).with_for_update()
    ).first()
