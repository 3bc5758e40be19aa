"""This process's lease on a store: proof that the owner of quota reservations lives.

Every process that reserves quota (a `serve` worker, a CLI command) has an instance
id and a row in `process_lease`. Its `last_seen` is written when the process reserves
and then refreshed every lease/4 seconds by a daemon thread. A row older than the
lease (SOCIALGEN_QUOTA_LEASE_SECONDS, default 120) belongs to a process that is gone,
so its reservations may be given back (workspaces/quota_reconcile.py).

A thread rather than an event-loop task: the CLI has no long-lived loop, and a busy
loop must not look like a dead process. Times come from each process's clock; the
lease is long enough that a few seconds of skew between hosts do not matter.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import weakref
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, update
from sqlmodel import Session, col

from socialgen.clock import utcnow
from socialgen.ids import new_id
from socialgen.store.engine import transaction
from socialgen.store.tables import ProcessLease

logger = logging.getLogger("socialgen.store")

LEASE_ENV = "SOCIALGEN_QUOTA_LEASE_SECONDS"
DEFAULT_LEASE_SECONDS = 120.0
MIN_LEASE_SECONDS = 1.0

_lock = threading.Lock()
_instance: tuple[int, str] | None = None  # (pid, id): a forked child gets its own
_engines: weakref.WeakSet[Engine] = weakref.WeakSet()  # stores this process holds a lease on
_keeper: threading.Thread | None = None


def lease_seconds() -> float:
    """How long a process counts as alive after its last refresh."""
    from socialgen.config import current_settings

    return current_settings().quota_lease_seconds


def lease_cutoff() -> datetime:
    """Leases last seen before this moment belong to processes that are gone."""
    return utcnow() - timedelta(seconds=lease_seconds())


def instance_id() -> str:
    """This process's owner id (new after a fork: a child is another owner)."""
    global _instance
    with _lock:
        if _instance is None or _instance[0] != os.getpid():
            _instance = (os.getpid(), new_id())
        return _instance[1]


def hold_lease(session: Session) -> str:
    """Write this process's lease inside `session`'s transaction (so a reservation
    made in it is never seen without a live owner) and keep it refreshed from now on.
    Returns the owner id."""
    owner = instance_id()
    session.connection().execute(_upsert(session, owner))
    keep_alive(_root_engine(session.get_bind()))
    return owner


def keep_alive(engine: Engine) -> None:
    """Refresh this process's lease on `engine` every lease/4 seconds from now on."""
    global _keeper
    with _lock:
        _engines.add(engine)
        if _keeper is None or not _keeper.is_alive():
            _keeper = threading.Thread(target=_keep_leases, name="socialgen-lease", daemon=True)
            _keeper.start()


def refresh_lease(engine: Engine) -> None:
    """Move this process's lease forward, if it still has one. An UPDATE, never an
    insert: a lease another process removed (ours lapsed, our reservations were given
    back) is not brought back by the keeper; the next reservation writes a new one.
    Nor is one written into a store this process no longer reserves in."""
    with transaction(engine) as session:
        session.connection().execute(
            update(ProcessLease)
            .where(col(ProcessLease.id) == instance_id())
            .values(last_seen=utcnow())
        )


def _keep_leases() -> None:
    # Short ticks, so a changed SOCIALGEN_QUOTA_LEASE_SECONDS takes effect promptly. A
    # setting that cannot be read for a moment (a config file half edited by hand)
    # keeps the last good value: this thread must not die, or the lease lapses.
    period = DEFAULT_LEASE_SECONDS
    last = time.monotonic()
    while True:
        try:
            period = lease_seconds()
        except Exception:
            logger.warning("could not read the lease setting; keeping %.0f s", period)
        time.sleep(min(1.0, period / 4))
        if time.monotonic() - last < period / 4:
            continue
        last = time.monotonic()
        for engine in list(_engines):
            try:
                refresh_lease(engine)
            except Exception as error:  # the next round tries again; the lease may lapse
                logger.warning("could not refresh the process lease on %s: %s", engine.url, error)


def _upsert(session: Session, owner: str) -> Any:
    """INSERT ... ON CONFLICT (id) DO UPDATE SET last_seen: one statement, so two
    threads of this process creating the lease at once do not collide."""
    now = utcnow()
    values = {
        "id": owner,
        "host": socket.gethostname()[:255],
        "pid": os.getpid(),
        "started_at": now,
        "last_seen": now,
    }
    if session.get_bind().dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert as pg_insert

        pg = pg_insert(ProcessLease).values(values)
        return pg.on_conflict_do_update(index_elements=["id"], set_={"last_seen": now})
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert

    lite = sqlite_insert(ProcessLease).values(values)
    return lite.on_conflict_do_update(index_elements=["id"], set_={"last_seen": now})


def _root_engine(bind: Any) -> Engine:
    """The engine behind a session's bind: transaction() binds an engine copy with
    execution options, which is made per session and must not be what we keep."""
    engine = getattr(bind, "engine", bind)
    while getattr(engine, "_proxied", None) is not None:
        engine = engine._proxied
    assert isinstance(engine, Engine)
    return engine
