"""The stores one Runtime opened: an engine (and pool) per database URL, which of them
are migrated and ready (startup.open_store), and the Runtime's quota lease on them.

A Runtime owns one (runtime.py: made on first use, `close()` disposes the engines and
stops the lease keeper); nothing is kept per process, so a test builds a fresh
Runtime instead of resetting anything. `serve` has one Runtime per process, hence one
engine per database URL per process.
"""

from __future__ import annotations

import threading

from sqlalchemy import Engine

from socialgen.store.engine import new_engine
from socialgen.store.leases import LEASE_OPTION, Lease


class Stores:
    def __init__(self, lease_seconds: float) -> None:
        self.lease = Lease(lease_seconds)
        self._lock = threading.Lock()
        self._engines: dict[str, Engine] = {}
        self._ready: set[str] = set()

    def engine(self, database_url: str) -> Engine:
        """This Runtime's engine for `database_url`, made on first use."""
        with self._lock:
            engine = self._engines.get(database_url)
            if engine is None:
                engine = new_engine(database_url, **{LEASE_OPTION: self.lease})
                self._engines[database_url] = engine
            return engine

    def opened(self) -> list[str]:
        """The database URLs this Runtime holds an engine for now."""
        with self._lock:
            return list(self._engines)

    def is_ready(self, database_url: str) -> bool:
        """Migrated and given its first-run defaults by this Runtime already."""
        return database_url in self._ready

    def mark_ready(self, database_url: str) -> None:
        self._ready.add(database_url)

    def close(self) -> None:
        """Stop the lease keeper and dispose every engine. The Runtime stays usable: a
        store asked for again is opened (and checked) again."""
        self.lease.close()
        with self._lock:
            engines = list(self._engines.values())
            self._engines.clear()
            self._ready.clear()
        for engine in engines:
            engine.dispose()
