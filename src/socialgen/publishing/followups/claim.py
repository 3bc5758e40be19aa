"""Claiming due follow-ups so that each is posted by exactly one worker, as the outbox
claims publications (publishing/outbox/claim.py): one short write transaction picks
due rows (PostgreSQL skips rows another worker holds; SQLite's write lock makes the
transaction exclusive), writes `publishing` with the attempt, the worker and the end
of its lease, and the text it sends; only after the commit is the network called.

A row still `publishing` after its lease ended belongs to a worker that died,
perhaps after the network took the reply. It is sent again only where that is
harmless (the network dedupes on our key and still remembers it, or the adapter
looks for its reply first: `FINDS_ITS_POSTS`), with the same text; elsewhere it is
`unknown`. A follow-up carries no media, so its call fits well within one lease and
needs no heartbeat; the worker does not send once its lease has ended.

Also settled here without a network call: a network that cannot reply under a post
(`CAN_REPLY` not set: a Discord webhook) is `skipped`, and a publication no longer
live has nothing to go under (`failed`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import Engine

from socialgen.kit.clock import utcnow
from socialgen.publishing.followups import repository_claim
from socialgen.publishing.outbox.claim import can_resend, has_idempotency, idempotency_window
from socialgen.publishing.registry import Networks
from socialgen.publishing.settings import MAX_ATTEMPTS, PublishTerms
from socialgen.store.engine import transaction
from socialgen.store.tables import (
    FollowupKind,
    FollowupPublication,
    FollowupState,
    PostFollowup,
    Publication,
    PublicationState,
    SocialAccount,
)

DEFAULT_BATCH = 8


@dataclass(frozen=True)
class FollowupClaim:
    """A claimed row with what the worker needs, read in the claim's transaction."""

    row: FollowupPublication
    followup: PostFollowup
    publication: Publication
    account: SocialAccount
    worker_id: str
    attempt: int
    claimed_at: datetime
    claimed_until: datetime
    text: str  # what this attempt sends


@dataclass
class FollowupRound:
    claims: list[FollowupClaim] = field(default_factory=list)
    settled: list[tuple[str, str]] = field(default_factory=list)  # (row id, state) w/o a call


def can_reply(networks: Networks, network: str) -> bool:
    """Whether `network`'s module posts under a published post (`CAN_REPLY`)."""
    try:
        return bool(getattr(networks.module(network), "CAN_REPLY", False))
    except Exception:  # an unknown network cannot
        return False


def retry_command(kind: str, post_id: str) -> str:
    option = "first-comment" if kind == FollowupKind.FIRST_COMMENT else "plug"
    return f"socialgen posts {option} {post_id} --retry"


def claim_followups(
    engine: Engine,
    worker_id: str,
    *,
    terms: PublishTerms,
    limit: int = DEFAULT_BATCH,
    now: datetime | None = None,
    publication_ids: Sequence[str] | None = None,
    workspace_id: str | None = None,
) -> FollowupRound:
    """Claim up to `limit` due follow-ups for `worker_id` (committed on return)."""
    moment = now or utcnow()
    found = FollowupRound()
    networks = terms.networks
    with transaction(engine) as session:
        rows = repository_claim.claimable(session, moment, limit, publication_ids, workspace_id)
        for row, followup, publication, account in rows:
            network = account.network
            settled = _settle_without_call(networks, row, followup, publication, network, moment)
            if row.state == FollowupState.PUBLISHING:  # a dead worker's: it may be live
                row.maybe_live_since = row.maybe_live_since or row.updated_at
            if settled is not None:
                state, message = settled
                _mark(row, state, message, moment)
                session.add(row)
                found.settled.append((row.id, state))
                continue
            # After an unclear attempt the same text goes again; else the text now.
            text = row.sent_text if row.maybe_live_since and row.sent_text else followup.text
            until = moment + terms.claim
            row.sent_text = text
            row.state = FollowupState.PUBLISHING
            row.attempts += 1
            row.claimed_by, row.claimed_until = worker_id, until
            row.next_attempt_at = None
            row.updated_at = moment
            session.add(row)
            found.claims.append(
                FollowupClaim(
                    row,
                    followup,
                    publication,
                    account,
                    worker_id,
                    row.attempts,
                    moment,
                    until,
                    text,
                )
            )
        session.flush()
    return found


def _settle_without_call(
    networks: Networks,
    row: FollowupPublication,
    followup: PostFollowup,
    publication: Publication,
    network: str,
    now: datetime,
) -> tuple[str, str] | None:
    """(state, message) for a row settled here, or None when it is to be sent."""
    if not can_reply(networks, network):
        return FollowupState.SKIPPED, (
            f"{network} cannot post a reply under a post through its API (a webhook posts "
            "new messages only), so the follow-up is not posted there"
        )
    if publication.state != PublicationState.PUBLISHED or not publication.remote_id:
        return FollowupState.FAILED, "The post is not live on this account: nothing to reply under"
    command = retry_command(followup.kind, followup.post_id)
    if row.state == FollowupState.QUEUED:
        if _too_late(networks, network, row.first_attempt_at, now):
            return FollowupState.UNKNOWN, (
                f"A retry could not start while {network} still remembered the key of the "
                f"first attempt, which may be live. Check the post; if the reply is not "
                f"there, run: {command}"
            )
        return None
    first = row.first_attempt_at or row.updated_at
    if not can_resend(networks, network, first, now) or row.attempts >= MAX_ATTEMPTS:
        return FollowupState.UNKNOWN, (
            f"A worker stopped while posting to {network}, perhaps after {network} took the "
            f"reply, and {network} cannot tell us whether it did. Check the post; if the "
            f"reply is not there, run: {command}"
        )
    return None


def _too_late(networks: Networks, network: str, first: datetime | None, now: datetime) -> bool:
    """A planned retry that would start after the network forgot the first key."""
    window = idempotency_window(networks, network)
    if window is None or first is None or not has_idempotency(networks, network):
        return False
    return (now - first).total_seconds() >= window


def _mark(row: FollowupPublication, state: str, message: str, now: datetime) -> None:
    row.state = state
    row.message = message
    row.claimed_by = row.claimed_until = None
    row.updated_at = now
