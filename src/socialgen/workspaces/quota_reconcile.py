"""Give back the quota that processes reserved and did not live to give back.

A generation gives back its unspent posts when its stream ends, however it ends,
unless its process is killed outright (SIGKILL, power loss, OOM). Then the ledger
(quota_reservation) still holds its rows, and its lease (process_lease) stops being
refreshed. Reconciling refunds the unspent posts of every reservation whose owner's
lease has lapsed, and deletes those rows: posts_used comes back to what was saved.

It runs whenever a process opens the store (startup.open_store) and, in `serve`,
every half lease (startup.quota_upkeep). A live owner's rows are never touched, even
by another process sharing a PostgreSQL database: the test is the owner's lease,
read in the same statement that picks the rows.
"""

from __future__ import annotations

from sqlalchemy import ColumnElement, Engine, delete, exists, func
from sqlmodel import Session, col, select

from socialgen.store.engine import read_session, transaction
from socialgen.store.leases import lease_cutoff
from socialgen.store.tables import ProcessLease, QuotaReservation
from socialgen.workspaces.usage import settle


def reconcile_abandoned(engine: Engine, lease_seconds: float) -> int:
    """Refund and delete the reservations of dead owners, and forget lapsed leases;
    returns the posts refunded. A read first, so the usual case (nothing to do)
    takes no write lock. `lease_seconds`: the quota_lease_seconds setting."""
    with read_session(engine) as session:
        abandoned = session.exec(
            select(func.count()).select_from(QuotaReservation).where(_abandoned(lease_seconds))
        ).one()
        lapsed = session.exec(
            select(func.count())
            .select_from(ProcessLease)
            .where(col(ProcessLease.last_seen) < lease_cutoff(lease_seconds))
        ).one()
    if not (abandoned or lapsed):
        return 0
    with transaction(engine) as session:
        return reconcile_in(session, lease_seconds)


def reconcile_in(session: Session, lease_seconds: float) -> int:
    """reconcile_abandoned inside the caller's transaction."""
    rows = session.exec(
        select(QuotaReservation)
        .where(_abandoned(lease_seconds))
        # Rows another reconciler (or their owner) holds are left for the next round.
        .with_for_update(skip_locked=True)
    ).all()
    refunded = sum(settle(session, row) for row in rows)
    owners = select(QuotaReservation.id).where(
        col(QuotaReservation.owner_id) == col(ProcessLease.id)
    )
    session.connection().execute(
        delete(ProcessLease).where(
            col(ProcessLease.last_seen) < lease_cutoff(lease_seconds), ~exists(owners)
        )
    )
    return refunded


def _abandoned(lease_seconds: float) -> ColumnElement[bool]:
    """Reservations whose owner has no lease, or a lapsed one."""
    live = select(ProcessLease.id).where(
        col(ProcessLease.id) == col(QuotaReservation.owner_id),
        col(ProcessLease.last_seen) >= lease_cutoff(lease_seconds),
    )
    return ~exists(live)
