"""The statements of the post quota and its ledger (quota_reservation), for
workspaces.usage and workspaces.quota_reconcile. Every function takes the caller's
session and never commits; the counters move in single UPDATEs, so two transactions
never both take the last post."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import ColumnElement, delete, exists, func, update
from sqlmodel import Session, col, select

from socialgen.store.leases import lease_cutoff
from socialgen.store.tables import ProcessLease, QuotaReservation, WorkspaceUsage


def take_posts_within_quota(session: Session, workspace_id: str, count: int) -> bool:
    """Add `count` to the workspace's posts_used in one atomic UPDATE if that keeps it
    within its quota (or it has none); whether it did."""
    statement = (
        update(WorkspaceUsage)
        .where(col(WorkspaceUsage.workspace_id) == workspace_id)
        .where(
            col(WorkspaceUsage.post_quota).is_(None)
            | (col(WorkspaceUsage.posts_used) + count <= col(WorkspaceUsage.post_quota))
        )
        .values(posts_used=col(WorkspaceUsage.posts_used) + count)
    )
    return session.connection().execute(statement).rowcount == 1


def lower_posts_used(session: Session, workspace_id: str, count: int) -> None:
    """Subtract `count` from the workspace's posts_used (posts given back)."""
    statement = (
        update(WorkspaceUsage)
        .where(col(WorkspaceUsage.workspace_id) == workspace_id)
        .values(posts_used=col(WorkspaceUsage.posts_used) - count)
    )
    session.connection().execute(statement)


def raise_posts_used(session: Session, workspace_id: str, count: int) -> None:
    """Add `count` to the workspace's posts_used, quota or not (posts already saved)."""
    charge = (
        update(WorkspaceUsage)
        .where(col(WorkspaceUsage.workspace_id) == workspace_id)
        .values(posts_used=col(WorkspaceUsage.posts_used) + count)
    )
    session.connection().execute(charge)


def spend_from_reservation(session: Session, reservation_id: str, count: int) -> bool:
    """Add `count` to the reservation's spent posts if it still exists and has that
    many unspent, in one UPDATE; whether it did."""
    statement = (
        update(QuotaReservation)
        .where(col(QuotaReservation.id) == reservation_id)
        .where(col(QuotaReservation.spent) + count <= col(QuotaReservation.reserved))
        .values(spent=col(QuotaReservation.spent) + count)
    )
    return session.connection().execute(statement).rowcount == 1


def lock_reservation(session: Session, reservation_id: str) -> QuotaReservation | None:
    """The reservation, its row locked FOR UPDATE until the caller's transaction ends
    (a late save's spend or a reconciler waits); None when it is gone."""
    return session.exec(
        select(QuotaReservation).where(col(QuotaReservation.id) == reservation_id).with_for_update()
    ).first()


def delete_reservation(session: Session, reservation_id: str) -> bool:
    """Delete the reservation's row; whether this statement deleted it (False when
    someone else settled it meanwhile)."""
    statement = delete(QuotaReservation).where(col(QuotaReservation.id) == reservation_id)
    return session.connection().execute(statement).rowcount == 1


def abandoned_reservation_count(session: Session, lease_seconds: float) -> int:
    """How many reservations have an owner with no lease, or a lapsed one."""
    return session.exec(
        select(func.count()).select_from(QuotaReservation).where(_abandoned(lease_seconds))
    ).one()


def lapsed_lease_count(session: Session, lease_seconds: float) -> int:
    """How many process leases were last refreshed before the cutoff."""
    return session.exec(
        select(func.count())
        .select_from(ProcessLease)
        .where(col(ProcessLease.last_seen) < lease_cutoff(lease_seconds))
    ).one()


def lock_abandoned_reservations(
    session: Session, lease_seconds: float
) -> Sequence[QuotaReservation]:
    """The abandoned reservations, locked FOR UPDATE; rows another reconciler (or
    their owner) holds are skipped (SKIP LOCKED), left for the next round."""
    return session.exec(
        select(QuotaReservation).where(_abandoned(lease_seconds)).with_for_update(skip_locked=True)
    ).all()


def delete_lapsed_leases_without_reservations(session: Session, lease_seconds: float) -> None:
    """Forget the lapsed leases that own no reservation any more."""
    owners = select(QuotaReservation.id).where(
        col(QuotaReservation.owner_id) == col(ProcessLease.id)
    )
    session.connection().execute(
        delete(ProcessLease).where(
            col(ProcessLease.last_seen) < lease_cutoff(lease_seconds), ~exists(owners)
        )
    )


def _abandoned(lease_seconds: float) -> ColumnElement[bool]:
    """Reservations whose owner has no lease, or a lapsed one."""
    live = select(ProcessLease.id).where(
        col(ProcessLease.id) == col(QuotaReservation.owner_id),
        col(ProcessLease.last_seen) >= lease_cutoff(lease_seconds),
    )
    return ~exists(live)
