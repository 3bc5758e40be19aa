"""Claiming due publications so that each is taken by exactly one worker.

A claim is one short write transaction: pick due rows (PostgreSQL skips rows another
worker holds with `FOR UPDATE SKIP LOCKED`; SQLite's BEGIN IMMEDIATE makes the whole
transaction exclusive), write `publishing` with the attempt, the worker's id and the
claim's end, commit. Only then does the worker call the network. A row still
`publishing` after its claim ended (a live worker's claims are kept alive, keeper.py)
belongs to a worker that died, perhaps after the
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

from sqlalchemy import Engine

from socialgen.kit.clock import iso, parse_iso, utcnow
from socialgen.kit.ids import new_id
from socialgen.publishing.followups.repository_claim import due as followups_due
from socialgen.publishing.outbox import repository_claim
from socialgen.publishing.outbox.service import (
    FIRST_ATTEMPT,
    MAYBE_LIVE_SINCE,
    SENT_TEXT,
    UNSETTLED_TEXT,
)
from socialgen.publishing.registry import Networks
from socialgen.publishing.settings import MAX_ATTEMPTS, PublishTerms
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import Network, Post, Publication, PublicationState, SocialAccount

logger = logging.getLogger("socialgen.publishing")

DEFAULT_BATCH = 8  # rows per claim: small, so several workers share a burst

# A retry on a network that forgets keys starts at least this long before it forgets.
WINDOW_MARGIN_SECONDS = 300.0


@dataclass(frozen=True)
class ClaimedRow:
    """What the worker needs, read in the claim's own transaction (no second read)."""

    publication: Publication
    account: SocialAccount
    post: Post
    siblings: int  # the post's publications, this one included


@dataclass(frozen=True)
class Claim:
    publication_id: str
    worker_id: str
    attempt: int
    claimed_at: datetime | None = None
    claimed_until: datetime | None = None
    row: ClaimedRow | None = field(default=None, compare=False, repr=False)


@dataclass
class ClaimRound:
    claims: list[Claim] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)  # publication ids marked missed
    unknown: list[str] = field(default_factory=list)  # expired claims, no idempotency


def worker_name(kind: str) -> str:
    """An id for this worker, unique across hosts and restarts (fits 64 chars)."""
    return f"{kind}:{socket.gethostname()[:24]}:{os.getpid()}:{new_id()[:8]}"


def has_idempotency(networks: Networks, network: str) -> bool:
    """Whether sending the same publication twice is harmless on `network` (it
    dedupes on our key). A network module may say so with `IDEMPOTENT`; otherwise
    LinkedIn, which has no idempotency handle, does not, and the others do."""
    try:
        module = networks.module(network)
    except Exception:  # an unknown network: assume the worst
        return False
    declared = getattr(module, "IDEMPOTENT", getattr(module, "idempotent", None))
    return network != Network.LINKEDIN if declared is None else bool(declared)


def idempotency_window(networks: Networks, network: str) -> float | None:
    """How long `network` remembers an idempotency key, in seconds (Mastodon: about
    an hour; a module says so with IDEMPOTENCY_WINDOW_SECONDS); None for ever or for
    a network without idempotency."""
    try:
        window = getattr(networks.module(network), "IDEMPOTENCY_WINDOW_SECONDS", None)
    except Exception:
        return None
    return None if window is None else float(window)


def finds_its_posts(networks: Networks, network: str) -> bool:
    """Whether `network`'s adapter looks for a post on the account before sending it
    again (`FINDS_ITS_POSTS`: X and Threads read the account's timeline)."""
    try:
        return bool(getattr(networks.module(network), "FINDS_ITS_POSTS", False))
    except Exception:
        return False


def can_resend(networks: Networks, network: str, claimed_at: datetime, now: datetime) -> bool:
    """Whether a publication whose claim expired may be sent again: the network
    dedupes on its key and still remembers the key sent first at `claimed_at`, or its
    adapter looks for the post on the account first (`OutgoingPost.earlier_attempt_at`)."""
    if finds_its_posts(networks, network):
        return True
    if not has_idempotency(networks, network):
        return False
    window = idempotency_window(networks, network)
    return window is None or (now - claimed_at).total_seconds() < window


def first_attempt(publication: Publication) -> datetime | None:
    """When the publication's first attempt was claimed (kept once a retry is
    planned); None before that."""
    raw = (publication.options or {}).get(FIRST_ATTEMPT)
    try:
        return parse_iso(raw) if isinstance(raw, str) else None
    except ValueError:
        return None


def retry_too_late(
    networks: Networks, network: str, publication: Publication, now: datetime
) -> bool:
    """A planned retry that would start after the network forgot the key sent first:
    part of a thread may be live, and the network would take the rest as new."""
    window = idempotency_window(networks, network)
    first = first_attempt(publication)
    if window is None or first is None or not has_idempotency(networks, network):
        return False
    return (now - first).total_seconds() >= window


def anything_due(engine: Engine, now: datetime | None = None) -> bool:
    """The idle scheduler's one look: one statement of index range scans on (state,
    due_at), publications' and follow-ups' (a pass over what is due posts both), read
    only, so an idle worker never takes SQLite's write lock."""
    moment = now or utcnow()
    with read_session(engine) as session:
        return repository_claim.anything_due(session, moment, followups_due(moment))


def claim_due(
    engine: Engine,
    worker_id: str,
    *,
    limit: int = DEFAULT_BATCH,
    now: datetime | None = None,
    only_ids: Sequence[str] | None = None,
    workspace_id: str | None = None,
    terms: PublishTerms,
) -> ClaimRound:
    """Claim up to `limit` due rows for `worker_id` (committed when this returns),
    by `terms` (grace, claim length)."""
    moment = now or utcnow()
    found = ClaimRound()
    with transaction(engine) as session:
        rows = repository_claim.claimable(session, moment, limit, only_ids, workspace_id)
        grace = terms.grace
        taken: list[ClaimedRow] = []
        for publication, account, post, count in rows:
            network = account.network
            if publication.state == PublicationState.QUEUED:
                expected = max(
                    publication.due_at, publication.next_attempt_at or publication.due_at
                )
                if moment - expected > grace:
                    _mark(publication, PublicationState.MISSED, _missed(expected, moment), moment)
                    found.missed.append(publication.id)
                    continue
                if retry_too_late(terms.networks, network, publication, moment):
                    message = forgotten(terms.networks, network)
                    _mark(publication, PublicationState.UNKNOWN, message, moment)
                    found.unknown.append(publication.id)
                    continue
            elif (
                not can_resend(
                    terms.networks,
                    network,
                    first_attempt(publication) or publication.updated_at,
                    moment,
                )
                or publication.attempts >= MAX_ATTEMPTS
            ):
                _mark(publication, PublicationState.UNKNOWN, _vanished(network), moment)
                _unsettle(publication)
                found.unknown.append(publication.id)
                continue
            else:
                logger.warning(
                    "publication %s: claim of %s expired; sending again with the same key",
                    publication.id,
                    publication.claimed_by,
                )
                _unsettle(publication)  # since when it may be live: the adapter may look
            _hold_text(publication, post)
            taken.append(ClaimedRow(publication, account, post, int(count)))
        if taken:
            until = moment + terms.claim
            repository_claim.mark_claimed(
                session, [row.publication.id for row in taken], worker_id, until, moment
            )
            found.claims = [
                Claim(
                    row.publication.id,
                    worker_id,
                    row.publication.attempts + 1,
                    moment,
                    until,
                    row,
                )
                for row in taken
            ]
    return found


def text_to_send(publication: Publication, post: Post) -> str:
    """What this attempt sends: the text of an earlier attempt that may be live (an
    unsettled one, or the one a worker that died was sending), since the network
    answers a repeat of the key with the first post; else the post's text now."""
    options = publication.options or {}
    held = [UNSETTLED_TEXT]
    if publication.state == PublicationState.PUBLISHING:  # an expired claim
        held.append(SENT_TEXT)
    for key in held:
        text = options.get(key)
        if isinstance(text, str) and text:
            return text
    return post.content


def _hold_text(publication: Publication, post: Post) -> None:
    """Record, with the claim, the text the attempt sends (the worker sends this)."""
    text = text_to_send(publication, post)
    publication.options = {**(publication.options or {}), SENT_TEXT: text}


def _unsettle(publication: Publication) -> None:
    """A claim that expired: the text its worker sent may be live, since it was claimed."""
    options = publication.options or {}
    sent = options.get(SENT_TEXT)
    if isinstance(sent, str) and sent:
        since = options.get(MAYBE_LIVE_SINCE) or iso(publication.updated_at)
        publication.options = {**options, UNSETTLED_TEXT: sent, MAYBE_LIVE_SINCE: since}


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


def forgotten(networks: Networks, network: str) -> str:
    window = idempotency_window(networks, network) or 0.0
    return (
        f"A retry of this publication could not start within {window / 60:.0f} min of its "
        f"first attempt, after which {network} forgets the key that keeps it from posting "
        "twice; part of the post (a thread's first parts) may be live already. Check the "
        "account; if the post is not there, run: socialgen posts publish POST_ID --to "
        "ACCOUNT --retry"
    )


def _vanished(network: str) -> str:
    return (
        f"A worker stopped while publishing to {network}, perhaps after {network} "
        f"accepted the post, and {network} cannot tell us whether it did. Check the "
        "account; if the post is not there, run: socialgen posts publish POST_ID "
        "--to ACCOUNT --retry"
    )
