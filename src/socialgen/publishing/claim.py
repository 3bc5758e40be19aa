"""Claiming due publications so that each is taken by exactly one worker.

A claim is one short write transaction: pick due rows (PostgreSQL skips rows another
worker holds with `FOR UPDATE SKIP LOCKED`; SQLite's BEGIN IMMEDIATE makes the whole
transaction exclusive), write `publishing` with the attempt, the worker's id and the
claim's end, commit. Only then does the worker call the network. A row still
`publishing` after its claim ended belongs to a worker that died, perhaps after the
network accepted the post: it is claimed again and sent with the same idempotency
key where the network dedupes on one, and marked `unknown` where it cannot (LinkedIn),
never sent blindly a second time.

Also here: a queued row later than the grace period becomes `missed`, not posted.
"""

from __future__ import annotations

import logging
import os
import socket
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import ColumnElement, Engine, and_, or_, update
from sqlmodel import col, select

from socialgen.clock import iso, utcnow
from socialgen.ids import new_id
from socialgen.publishing.adapters import module_for
from socialgen.publishing.settings import MAX_ATTEMPTS, claim_duration, publish_grace
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import Network, Publication, PublicationState, SocialAccount

logger = logging.getLogger("socialgen.publishing")

DEFAULT_BATCH = 8  # rows per claim: small, so several workers share a burst


@dataclass(frozen=True)
class Claim:
    publication_id: str
    worker_id: str
    attempt: int


@dataclass
class ClaimRound:
    claims: list[Claim] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)  # publication ids marked missed
    unknown: list[str] = field(default_factory=list)  # expired claims, no idempotency


def worker_name(kind: str) -> str:
    """An id for this worker, unique across hosts and restarts (fits 64 chars)."""
    return f"{kind}:{socket.gethostname()[:24]}:{os.getpid()}:{new_id()[:8]}"


def has_idempotency(network: str) -> bool:
    """Whether sending the same publication twice is harmless on `network` (it
    dedupes on our key). A network module may say so with `IDEMPOTENT`; otherwise
    LinkedIn, which has no idempotency handle, does not, and the others do."""
    try:
        module = module_for(network)
    except Exception:  # an unknown network: assume the worst
        return False
    declared = getattr(module, "IDEMPOTENT", getattr(module, "idempotent", None))
    return network != Network.LINKEDIN if declared is None else bool(declared)


def can_resend(network: str, claimed_at: datetime, now: datetime) -> bool:
    """Whether a publication whose claim expired may be sent again with its key: the
    network dedupes, and still remembers the key (Mastodon forgets after about an
    hour; a module says how long with IDEMPOTENCY_WINDOW_SECONDS, None for ever)."""
    if not has_idempotency(network):
        return False
    window = getattr(module_for(network), "IDEMPOTENCY_WINDOW_SECONDS", None)
    return window is None or (now - claimed_at).total_seconds() < float(window)


def _due(now: datetime) -> ColumnElement[bool]:
    return and_(
        col(Publication.state) == PublicationState.QUEUED,
        col(Publication.due_at) <= now,
        or_(col(Publication.next_attempt_at).is_(None), col(Publication.next_attempt_at) <= now),
    )


def _expired(now: datetime) -> ColumnElement[bool]:
    return and_(
        col(Publication.state) == PublicationState.PUBLISHING,
        col(Publication.claimed_until) < now,
    )


def anything_due(engine: Engine, now: datetime | None = None) -> bool:
    """The idle scheduler's one look: two index range scans on (state, due_at), read
    only, so an idle worker never takes SQLite's write lock."""
    moment = now or utcnow()
    with read_session(engine) as session:
        for condition in (_due(moment), _expired(moment)):
            if session.exec(select(Publication.id).where(condition).limit(1)).first():
                return True
    return False


def claim_due(
    engine: Engine,
    worker_id: str,
    *,
    limit: int = DEFAULT_BATCH,
    now: datetime | None = None,
    only_ids: Sequence[str] | None = None,
    workspace_id: str | None = None,
) -> ClaimRound:
    """Claim up to `limit` due rows for `worker_id` (committed when this returns)."""
    moment = now or utcnow()
    found = ClaimRound()
    with transaction(engine) as session:
        statement = (
            select(Publication, SocialAccount.network)
            .join(SocialAccount, col(SocialAccount.id) == col(Publication.account_id))
            .where(or_(_due(moment), _expired(moment)))
            .order_by(col(Publication.due_at))
            .limit(limit)
        )
        if only_ids is not None:
            statement = statement.where(col(Publication.id).in_(list(only_ids)))
        if workspace_id is not None:
            statement = statement.where(col(Publication.workspace_id) == workspace_id)
        if session.get_bind().dialect.name == "postgresql":
            statement = statement.with_for_update(skip_locked=True, of=Publication)
        grace = publish_grace()
        taken: list[Publication] = []
        for publication, network in session.exec(statement).all():
            if publication.state == PublicationState.QUEUED:
                expected = max(
                    publication.due_at, publication.next_attempt_at or publication.due_at
                )
                if moment - expected > grace:
                    _mark(publication, PublicationState.MISSED, _missed(expected, moment), moment)
                    found.missed.append(publication.id)
                    continue
            elif (
                not can_resend(network, publication.updated_at, moment)
                or publication.attempts >= MAX_ATTEMPTS
            ):
                _mark(publication, PublicationState.UNKNOWN, _vanished(network), moment)
                found.unknown.append(publication.id)
                continue
            else:
                logger.warning(
                    "publication %s: claim of %s expired; sending again with the same key",
                    publication.id,
                    publication.claimed_by,
                )
            taken.append(publication)
        if taken:
            session.connection().execute(
                update(Publication)
                .where(col(Publication.id).in_([p.id for p in taken]))
                .values(
                    state=PublicationState.PUBLISHING,
                    attempts=col(Publication.attempts) + 1,
                    claimed_by=worker_id,
                    claimed_until=moment + claim_duration(),
                    next_attempt_at=None,
                    updated_at=moment,
                )
            )
            found.claims = [Claim(p.id, worker_id, p.attempts + 1) for p in taken]
    return found


def _mark(publication: Publication, state: str, message: str, now: datetime) -> None:
    publication.state = state
    publication.message = message
    publication.claimed_by = publication.claimed_until = None
    publication.updated_at = now


def _missed(expected: datetime, now: datetime) -> str:
    late = int((now - expected).total_seconds())
    hours, rest = divmod(late, 3600)
    return (
        f"Not published: it was due at {iso(expected)} and no worker ran until {iso(now)} "
        f"({hours} h {rest // 60} min late, more than SOCIALGEN_PUBLISH_GRACE). "
        "Publish it now with: socialgen posts publish POST_ID --to ACCOUNT --retry"
    )


def _vanished(network: str) -> str:
    return (
        f"A worker stopped while publishing to {network}, perhaps after {network} "
        f"accepted the post, and {network} cannot tell us whether it did. Check the "
        "account; if the post is not there, run: socialgen posts publish POST_ID "
        "--to ACCOUNT --retry"
    )
