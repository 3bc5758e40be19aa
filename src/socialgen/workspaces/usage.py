"""The post quota: reserve before generating, give back what failed.

`posts_used` goes up when posts are reserved, so two generations cannot both take
the last post. Each reservation is also a row of the ledger (quota_reservation),
owned by this process's lease: saving a post spends one of its posts in the same
transaction as the post, and the stream's end gives the rest back and deletes the
row in one transaction. A process killed mid-stream cannot give back; the ledger
says what it still held, and quota_reconcile.py refunds it once its lease lapses.
The statements are repository_quota.py's.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from sqlalchemy import Engine
from sqlmodel import Session

from socialgen.kit.errors import QuotaExceeded
from socialgen.store.engine import transaction
from socialgen.store.leases import hold_lease
from socialgen.store.tables import QuotaReservation
from socialgen.workspaces.repository_quota import (
    delete_reservation,
    lock_reservation,
    lower_posts_used,
    raise_posts_used,
    spend_from_reservation,
    take_posts_within_quota,
)
from socialgen.workspaces.service import get_usage


def reserve_posts(session: Session, workspace_id: str, count: int) -> str:
    """Take `count` posts from the quota in one atomic UPDATE, or refuse with 403.
    Returns the ledger row's id: the stream spends and gives back through it."""
    if take_posts_within_quota(session, workspace_id, count):
        reservation = QuotaReservation(
            workspace_id=workspace_id, owner_id=hold_lease(session), reserved=count
        )
        session.add(reservation)
        session.flush()
        return reservation.id
    usage = get_usage(session, workspace_id)
    left = max(0, (usage.post_quota or 0) - usage.posts_used)
    raise QuotaExceeded(
        f"Post quota exceeded: {count} requested, {left} left of {usage.post_quota}"
    )


def release_posts(session: Session, workspace_id: str, count: int) -> None:
    """Give back posts that were reserved but not produced."""
    lower_posts_used(session, workspace_id, count)


def spend_reserved(
    session: Session, workspace_id: str, reservation_id: str, count: int = 1
) -> None:
    """Count `count` saved posts against the reservation, in the transaction that saves
    them. If the reservation is gone (its unspent posts were already given back: a
    cancelled stream whose save finished late, or a reconciler that judged this
    process dead) the saved posts are charged again: what was saved stays counted."""
    if not spend_from_reservation(session, reservation_id, count):
        raise_posts_used(session, workspace_id, count)


def give_back_reserved(session: Session, reservation_id: str) -> int:
    """End a reservation: refund what it did not spend and delete its row, in the
    caller's transaction. Returns the posts refunded (0 if it was already settled)."""
    # Locked: a late save's spend or a reconciler waits for us.
    reservation = lock_reservation(session, reservation_id)
    if reservation is None:
        return 0
    return settle(session, reservation)


def settle(session: Session, reservation: QuotaReservation) -> int:
    """Refund a (locked) reservation's unspent posts and delete it; returns the refund."""
    unspent = max(0, reservation.reserved - reservation.spent)
    if not delete_reservation(session, reservation.id):
        return 0  # settled meanwhile by someone else: never refund twice
    if unspent:
        release_posts(session, reservation.workspace_id, unspent)
    return unspent


def give_back(engine: Engine, reservation_id: str) -> int:
    """End a quota reservation: refund its unspent posts, delete its ledger row."""
    with transaction(engine) as session:
        return give_back_reserved(session, reservation_id)


def leftover_release(engine: Engine, reservation_id: str | None) -> Callable[[], Awaitable[None]]:
    """For a stream's response to run once it is over: give back whatever the plan's
    reservation still holds. The stream gives back its own as it ends; this covers a
    client that left before the stream started, when the stream's code never ran.
    A reservation already given back is a no-op (the ledger row is gone)."""

    async def release() -> None:
        if reservation_id is not None:
            await asyncio.to_thread(give_back, engine, reservation_id)

    return release
