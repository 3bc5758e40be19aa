"""Give back the quota that processes reserved and did not live to give back.

A generation gives back its unspent posts when its stream ends, however it ends,
unless its process is killed outright (SIGKILL, power loss, OOM). Then the ledger
(quota_reservation) still holds its rows, and its lease (process_lease) stops being
refreshed. Reconciling refunds the unspent posts of every reservation whose owner's
lease has lapsed, and deletes those rows: posts_used comes back to what was saved.

It runs whenever a process opens the store (startup.open_store) and, in `serve`,
every half lease (quota_upkeep.py). A live owner's rows are never touched, even
by another process sharing a PostgreSQL database: the test is the owner's lease,
read in the same statement that picks the rows.
"""

from __future__ import annotations

from sqlalchemy import Engine
from sqlmodel import Session

from socialgen.store.engine import read_session, transaction
from socialgen.workspaces.repository_quota import (
    abandoned_reservation_count,
    delete_lapsed_leases_without_reservations,
    lapsed_lease_count,
    lock_abandoned_reservations,
)
from socialgen.workspaces.usage import settle


def reconcile_abandoned(engine: Engine, lease_seconds: float) -> int:
    """Refund and delete the reservations of dead owners, and forget lapsed leases;
    returns the posts refunded. A read first, so the usual case (nothing to do)
    takes no write lock. `lease_seconds`: the quota_lease_seconds setting."""
    with read_session(engine) as session:
        abandoned = abandoned_reservation_count(session, lease_seconds)
        lapsed = lapsed_lease_count(session, lease_seconds)
    if not (abandoned or lapsed):
        return 0
    with transaction(engine) as session:
        return reconcile_in(session, lease_seconds)


def reconcile_in(session: Session, lease_seconds: float) -> int:
    """reconcile_abandoned inside the caller's transaction."""
    # Rows another reconciler (or their owner) holds are left for the next round.
    rows = lock_abandoned_reservations(session, lease_seconds)
    refunded = sum(settle(session, row) for row in rows)
    delete_lapsed_leases_without_reservations(session, lease_seconds)
    return refunded
