"""Keeping claims alive while they wait and while the network is called, and giving
back those a stopping worker did not start.

A claim (claim.py) lasts SOCIALGEN_PUBLISH_CLAIM. A live worker's claims must not
expire, however slow the network (Mastodon: four images, each uploaded and polled):
`ClaimKeeper` extends them all with one UPDATE every third of that length. A dead
worker keeps nothing, so its claims end and are taken over as claim.py describes.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import Engine

from socialgen.kit.clock import utcnow
from socialgen.publishing.outbox.claim import Claim
from socialgen.publishing.outbox.repository_claim import extend_claims, give_back
from socialgen.store.engine import transaction

logger = logging.getLogger("socialgen.publishing")


def release(engine: Engine, claims: Sequence[Claim]) -> None:
    """Give back claims whose publication was not started (a worker stopping): queued
    again as they were, for the next worker."""
    if not claims:
        return
    with transaction(engine) as session:
        for claim in claims:
            give_back(session, claim.publication_id, claim.worker_id, claim.attempt - 1)


class ClaimKeeper:
    """Keeps a worker's claims alive from the moment they are taken until their
    answer is recorded: every third of SOCIALGEN_PUBLISH_CLAIM, one UPDATE pushes the
    end of every claim it holds a claim's length ahead, where the row is still this
    worker's. A slow publish (Mastodon: four images, each uploaded and polled) is not
    taken over; only a dead worker's claims, with nobody keeping them, expire. A claim
    found taken over is `lost`: the worker must not send it."""

    def __init__(self, engine: Engine, worker_id: str, claim: timedelta) -> None:
        self._engine = engine
        self._claim = claim  # the publish_claim setting
        self._worker_id = worker_id
        self._held: dict[str, datetime] = {}  # publication id -> claim's end as written
        self._lost: set[str] = set()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def hold(self, claims: Sequence[Claim]) -> None:
        with self._lock:
            for claim in claims:
                self._held[claim.publication_id] = claim.claimed_until or utcnow()
            if self._thread is None and claims:
                self._thread = threading.Thread(
                    target=self._run, name="socialgen-claim-keeper", daemon=True
                )
                self._thread.start()

    def release(self, publication_id: str) -> None:
        with self._lock:
            self._held.pop(publication_id, None)
            self._lost.discard(publication_id)

    def still_ours(self, publication_id: str) -> bool:
        """Whether the claim stands as far as this worker knows (no database call)."""
        with self._lock:
            until = self._held.get(publication_id)
            return publication_id not in self._lost and until is not None and until > utcnow()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def __enter__(self) -> ClaimKeeper:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _run(self) -> None:
        while not self._stop.wait(self._claim.total_seconds() / 3):
            try:
                self.extend()
            except Exception:  # the database hiccupped: try again at the next beat
                logger.warning("%s: could not extend its claims", self._worker_id)

    def extend(self) -> None:
        with self._lock:
            ids = list(self._held)
        if not ids:
            return
        until = utcnow() + self._claim
        with transaction(self._engine) as session:
            kept = extend_claims(session, ids, self._worker_id, until)
        with self._lock:
            for publication_id in ids:
                if publication_id not in self._held:
                    continue  # answered meanwhile
                if publication_id in kept:
                    self._held[publication_id] = until
                else:
                    self._lost.add(publication_id)
