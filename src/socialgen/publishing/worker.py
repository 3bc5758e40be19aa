"""One claimed publication through its network, and the network's answer recorded.

The claim (claim.py) is committed before this runs, so the database says
`publishing` while the network is called; the answer is written in a second short
transaction, and only if the claim is still this worker's (a worker that outlived its
claim must not overwrite the one that took the row over). No transaction is open
while the network is called: a call may take seconds, and an adapter may save a
refreshed token in its own transaction meanwhile.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Engine
from sqlmodel import col, select

from socialgen.clock import iso, utcnow
from socialgen.errors import SocialgenError
from socialgen.files.backend import StorageUnavailable
from socialgen.publishing.accounts import credentials_for, scrub, secret_saver
from socialgen.publishing.adapters import module_for
from socialgen.publishing.claim import Claim
from socialgen.publishing.media import post_media
from socialgen.publishing.networks.base import OutgoingPost, Published, PublishError
from socialgen.publishing.outbox import idempotency_key, lock_post, settle_post
from socialgen.publishing.settings import MAX_ATTEMPTS
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import Post, Publication, PublicationState, SocialAccount

logger = logging.getLogger("socialgen.publishing")

BACKOFF_BASE_SECONDS = 30.0
MAX_DELAY_SECONDS = 24 * 3600.0


@dataclass(frozen=True)
class Verdict:
    """What to write for an answer that is not a success."""

    state: str
    message: str
    next_attempt_at: datetime | None = None


@dataclass(frozen=True)
class Outcome:
    publication_id: str
    state: str  # a final state, or queued when a retry is planned
    message: str


def backoff(attempt: int) -> float:
    """Seconds before retry number `attempt` + 1 when the network named no time."""
    return min(BACKOFF_BASE_SECONDS * 2.0 ** max(0, attempt - 1), 3600.0)


def verdict_for(error: PublishError, attempt: int, network: str, now: datetime) -> Verdict:
    message = error.message
    if error.reconnect:
        return Verdict(
            PublicationState.FAILED,
            f"{network} refused the account's credentials ({message}): "
            f"reconnect the account: socialgen accounts add {network} ...",
        )
    if error.outcome_unknown:
        return Verdict(
            PublicationState.UNKNOWN,
            f"{message}. {network} gave no answer after the post was sent, so it may be "
            "live. Check the account; if the post is not there, run: socialgen posts "
            "publish POST_ID --to ACCOUNT --retry",
        )
    if error.retryable and attempt < MAX_ATTEMPTS:
        wait = error.retry_after if error.retry_after is not None else backoff(attempt)
        at = now + timedelta(seconds=min(max(0.0, wait), MAX_DELAY_SECONDS))
        return Verdict(
            PublicationState.QUEUED,
            f"{network}: {message} (attempt {attempt} of {MAX_ATTEMPTS}; next at {iso(at)})",
            at,
        )
    if error.retryable:
        return Verdict(
            PublicationState.FAILED, f"{message} (gave up after {MAX_ATTEMPTS} attempts)"
        )
    return Verdict(PublicationState.FAILED, message)


def run_claim(engine: Engine, claim: Claim) -> Outcome:
    """Publish a claimed publication and record what the network said."""
    with read_session(engine) as session:
        row = session.exec(
            select(Publication, SocialAccount, Post)
            .join(SocialAccount, col(SocialAccount.id) == col(Publication.account_id))
            .join(Post, col(Post.id) == col(Publication.post_id))
            .where(col(Publication.id) == claim.publication_id)
        ).first()
    if row is None:  # deleted with its post or account meanwhile
        return Outcome(claim.publication_id, "gone", "deleted while it was being published")
    publication, account, post = row
    secrets: list[str] = []
    try:
        credentials = credentials_for(account)
        secrets = list(credentials.secret.values())
        adapter = module_for(account.network).build(credentials, secret_saver(engine, account.id))
        outgoing = OutgoingPost(
            publication_id=publication.id,
            idempotency_key=idempotency_key(publication.id),
            text=post.content,
            media=post_media(engine, post),
        )
    except Exception as error:  # nothing was sent: safe to say why and stop or retry
        return _record(engine, claim, post.id, _before_sending(error, claim.attempt))
    try:
        published = adapter.publish(outgoing)
    except PublishError as error:
        error.message = scrub(error.message, secrets)
        return _record(
            engine, claim, post.id, verdict_for(error, claim.attempt, account.network, utcnow())
        )
    except Exception as error:
        # Not the contract's error: we cannot tell whether the request went out.
        logger.exception("publication %s: %s adapter failed", publication.id, account.network)
        return _record(
            engine,
            claim,
            post.id,
            Verdict(
                PublicationState.UNKNOWN,
                f"The {account.network} adapter failed ({type(error).__name__}); the post "
                "may or may not be live. Check the account, then publish with --retry",
            ),
        )
    return _record(engine, claim, post.id, published)


def _before_sending(error: Exception, attempt: int) -> Verdict:
    if isinstance(error, StorageUnavailable):  # the file store hiccupped: try again
        return verdict_for(
            PublishError(error.message, retryable=True), attempt, "the file store", utcnow()
        )
    if isinstance(error, SocialgenError):
        return Verdict(PublicationState.FAILED, error.message)
    logger.exception("could not prepare a publication")
    return Verdict(PublicationState.FAILED, f"Could not prepare the post: {type(error).__name__}")


def _record(engine: Engine, claim: Claim, post_id: str, answer: Published | Verdict) -> Outcome:
    now = utcnow()
    with transaction(engine) as session:
        lock_post(session, post_id)
        publication = session.exec(
            select(Publication).where(col(Publication.id) == claim.publication_id).with_for_update()
        ).first()
        if publication is None:
            return Outcome(claim.publication_id, "gone", "deleted while it was being published")
        if (
            publication.state != PublicationState.PUBLISHING
            or publication.claimed_by != claim.worker_id
        ):
            logger.warning(
                "publication %s: claim lost to %s before the answer was recorded",
                publication.id,
                publication.claimed_by,
            )
            return Outcome(publication.id, publication.state, publication.message)
        publication.claimed_by = publication.claimed_until = None
        publication.updated_at = now
        if isinstance(answer, Published):
            publication.state = PublicationState.PUBLISHED
            publication.remote_id = answer.remote_id[:512]
            publication.remote_url = answer.url[:2048] or None
            publication.part_ids = list(answer.part_ids)
            publication.published_at = now
            publication.message = ""
        else:
            publication.state = answer.state
            publication.message = answer.message
            publication.next_attempt_at = answer.next_attempt_at
        session.add(publication)
        session.flush()
        if publication.state == PublicationState.PUBLISHED:
            settle_post(session, post_id)
        return Outcome(publication.id, publication.state, publication.message)
