"""A Runtime's lease on the stores it reserves quota in: proof that the owner of
quota reservations lives.

Every Runtime that reserves quota (a `serve` worker's, a CLI command's) has an owner
id and a row in `process_lease`. Its `last_seen` is written when it reserves and then
refreshed every lease/4 seconds by a daemon thread until the Runtime closes. A row
older than the lease (SOCIALGEN_QUOTA_LEASE_SECONDS, default 120) belongs to an owner
that is gone, so its reservations may be given back (workspaces/quota_reconcile.py).

The lease travels with the engines its Runtime opened (an execution option every
connection carries), so `hold_lease(session)` finds it from the session a plan
reserves in; nothing is kept per process.

A thread rather than an event-loop task: the CLI has no long-lived loop, and a busy
loop must not look like a dead process. Times come from each process's clock; the
lease is long enough that a few seconds of skew between hosts do not matter.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import weakref
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, update
from sqlmodel import Session, col

from socialgen.kit.clock import utcnow
from socialgen.kit.ids import new_id
from socialgen.store.engine import transaction
from socialgen.store.tables import ProcessLease

logger = logging.getLogger("socialgen.store")

LEASE_ENV = "SOCIALGEN_QUOTA_LEASE_SECONDS"
DEFAULT_LEASE_SECONDS = 120.0
MIN_LEASE_SECONDS = 1.0
LEASE_OPTION = "socialgen_lease"  # the execution option that carries an engine's Lease


class Lease:
    """One owner's lease (a Runtime's): its id and the thread that refreshes it on
    every store it reserved in, from the first reservation until `close()`."""

    def __init__(self, seconds: float) -> None:
        self.seconds = max(MIN_LEASE_SECONDS, seconds)
        self._lock = threading.Lock()
        self._owner: tuple[int, str] | None = None  # (pid, id): a forked child is another
        self._engines: weakref.WeakSet[Engine] = weakref.WeakSet()
        self._stop = threading.Event()
        self._keeper: threading.Thread | None = None

    @property
    def owner(self) -> str:
        """The owner id (new after a fork: a child is another owner)."""
        with self._lock:
            if self._owner is None or self._owner[0] != os.getpid():
                self._owner = (os.getpid(), new_id())
            return self._owner[1]

    def keep_alive(self, engine: Engine) -> None:
        """Refresh the lease on `engine` every lease/4 seconds from now on."""
        with self._lock:
            self._engines.add(engine)
            if self._keeper is None or not self._keeper.is_alive():
                self._stop = threading.Event()
                self._keeper = threading.Thread(
                    target=_keep_leases,
                    args=(weakref.ref(self), self._stop),
                    name="socialgen-lease",
                    daemon=True,
                )
                self._keeper.start()

    def refresh(self) -> None:
        """One round of the keeper: every store this lease is held on."""
        for engine in list(self._engines):
            try:
                refresh_lease(engine, self.owner)
            except Exception as error:  # the next round tries again; the lease may lapse
                logger.warning("could not refresh the process lease on %s: %s", engine.url, error)

    @property
    def keeping(self) -> bool:
        """Whether the keeper thread runs (from the first reservation until close)."""
        keeper = self._keeper
        return keeper is not None and keeper.is_alive()

    def close(self) -> None:
        """Stop refreshing (the Runtime closes). The row stays: it lapses, and
        reservations still open then are given back."""
        with self._lock:
            keeper, self._keeper = self._keeper, None
            self._stop.set()
            self._engines = weakref.WeakSet()
        if keeper is not None and keeper is not threading.current_thread():
            keeper.join(timeout=5)


def lease_cutoff(seconds: float) -> datetime:
    """Leases last seen before this moment belong to owners that are gone."""
    return utcnow() - timedelta(seconds=max(MIN_LEASE_SECONDS, seconds))


def hold_lease(session: Session) -> str:
    """Write the lease of the Runtime that opened `session`'s store inside its
    transaction (so a reservation made in it is never seen without a live owner) and
    keep it refreshed from now on. Returns the owner id."""
    lease = session.connection().get_execution_options().get(LEASE_OPTION)
    if not isinstance(lease, Lease):
        raise RuntimeError("no lease on this store: open it through a Runtime (open_store)")
    owner = lease.owner
    session.connection().execute(_upsert(session, owner))
    lease.keep_alive(_root_engine(session.get_bind()))
    return owner


def refresh_lease(engine: Engine, owner: str) -> None:
    """Move `owner`'s lease forward, if it still has one. An UPDATE, never an insert: a
    lease another process removed (ours lapsed, our reservations were given back) is
    not brought back by the keeper; the next reservation writes a new one."""
    with transaction(engine) as session:
        session.connection().execute(
            update(ProcessLease).where(col(ProcessLease.id) == owner).values(last_seen=utcnow())
        )


def _keep_leases(lease_ref: weakref.ref[Lease], stop: threading.Event) -> None:
    # Holds the lease weakly: a Runtime dropped without close() ends its keeper too.
    while True:
        lease = lease_ref()
        if lease is None:
            return
        period = lease.seconds / 4
        del lease
        if stop.wait(period):
            return
        lease = lease_ref()
        if lease is None:
            return
        try:
            lease.refresh()
        except Exception:  # this thread must not die, or the lease lapses
            logger.warning("could not refresh the process lease", exc_info=True)
        del lease


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
