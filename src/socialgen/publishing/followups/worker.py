"""Posting claimed follow-ups through their networks, and the passes that do it.

The claim (claim.py) is committed before the network is called; the answer is written
in a second short transaction, only while the claim is still this worker's. A reply
that goes out as several parts (a long one, on X or Bluesky) records each part as it
goes live, so a retry never posts it again. The verdict on a failure is the outbox's
(publishing/outbox/worker.py `verdict_for`: retries, backoff, a network's key window,
`unknown` where a lost answer cannot be settled), in the follow-up's words. Nothing
here touches the publication: a follow-up that fails leaves the post published.

A pass over everything due (outbox/runner.py `publish_pass`: the scheduler in `serve`,
whose one look sees due follow-ups too, and `publish-due`) runs `followup_pass` after
its publications; `posts publish` runs it for the post's publications, so a first
comment without a delay goes out with the post.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine

from socialgen.kit.clock import utcnow
from socialgen.publishing.accounts.service import credentials_for, scrub, secret_saver
from socialgen.publishing.followups import repository_claim
from socialgen.publishing.followups.claim import (
    DEFAULT_BATCH,
    FollowupClaim,
    claim_followups,
    retry_command,
)
from socialgen.publishing.followups.service import followup_text
from socialgen.publishing.networks.base import OutgoingPost, Published, PublishError
from socialgen.publishing.outbox.worker import Verdict, verdict_for
from socialgen.publishing.registry import Networks
from socialgen.publishing.settings import PublishTerms
from socialgen.store.engine import transaction
from socialgen.store.tables import FollowupState, Publication

logger = logging.getLogger("socialgen.publishing")

# The outbox's words name the post's retry; a follow-up's is its own command.
_POST_RETRY = re.compile(r"socialgen posts publish POST_ID(?: --to ACCOUNT)? --retry")


@dataclass(frozen=True)
class FollowupOutcome:
    row_id: str
    state: str
    message: str


@dataclass
class FollowupReport:
    outcomes: list[FollowupOutcome] = field(default_factory=list)
    settled: list[tuple[str, str]] = field(default_factory=list)  # settled without a call

    def counts(self) -> dict[str, int]:
        last = {o.row_id: o.state for o in self.outcomes} | dict(self.settled)
        counts = dict.fromkeys(("published", "retrying", "failed", "unknown", "skipped"), 0)
        for state in last.values():
            key = "retrying" if state == FollowupState.QUEUED else state
            if key in counts:
                counts[key] += 1
        return counts


def followup_key(row_id: str) -> str:
    """The follow-up's idempotency handle, the same for each of its attempts (and never
    a publication's: another prefix)."""
    return hashlib.sha256(f"socialgen-followup:{row_id}".encode()).hexdigest()[:32]


def reply_target(publication: Publication) -> str:
    """The id of the post a follow-up goes under: the root part, as `publish` gave it."""
    parts = publication.part_ids or []
    return str(parts[0] if parts else publication.remote_id or "")


def followup_pass(
    engine: Engine,
    worker_id: str,
    executor: Executor,
    *,
    terms: PublishTerms,
    stop: threading.Event | None = None,
    publication_ids: Sequence[str] | None = None,
    workspace_id: str | None = None,
    batch: int = DEFAULT_BATCH,
) -> FollowupReport:
    """Claim due follow-ups a batch at a time and post each batch at once, until none
    is due (or `stop`). A batch is no larger than the threads that run it, so no claim
    waits for a thread."""
    report = FollowupReport()
    while stop is None or not stop.is_set():
        found = claim_followups(
            engine,
            worker_id,
            terms=terms,
            limit=batch,
            publication_ids=publication_ids,
            workspace_id=workspace_id,
        )
        report.settled += found.settled
        if not found.claims:
            if found.settled:
                continue  # rows settled without a call may hide more due ones
            break
        work = [executor.submit(run_followup, engine, c, terms.networks) for c in found.claims]
        report.outcomes += [future.result() for future in work]
    return report


def run_followup(engine: Engine, claim: FollowupClaim, networks: Networks) -> FollowupOutcome:
    """Post one claimed follow-up under its publication and record the answer."""
    row, account = claim.row, claim.account
    if claim.claimed_until <= utcnow():  # waited too long: nothing sent, so give it back
        with transaction(engine) as session:
            values: dict[str, Any] = {"state": FollowupState.QUEUED, "claimed_until": None}
            values |= {"attempts": claim.attempt - 1, "claimed_by": None}
            repository_claim.record_answer(session, row.id, claim.worker_id, values)
        return FollowupOutcome(row.id, FollowupState.QUEUED, "claim ended before sending")
    secrets: list[str] = []
    recorder = PartRecorder(engine, row.id, claim.worker_id, list(row.posted_parts or []))
    try:
        credentials = credentials_for(account, networks.keys)
        secrets = list(credentials.secret.values())
        adapter = networks.module(account.network).build(
            credentials, secret_saver(engine, account.id, networks.keys), settings=networks.settings
        )
        outgoing = OutgoingPost(
            publication_id=row.id,
            idempotency_key=followup_key(row.id),
            text=followup_text(claim.text, claim.followup.kind),
            posted_parts=tuple(recorder.ids),
            earlier_attempt_at=row.maybe_live_since,
            part_posted=recorder,
            reply_to=reply_target(claim.publication),
        )
    except Exception as error:  # nothing was sent
        message = getattr(error, "message", "") or type(error).__name__
        return _record(engine, claim, Verdict(FollowupState.FAILED, str(message)))
    try:
        published = adapter.publish(outgoing)
    except PublishError as error:
        error.message = scrub(error.message, secrets)
        verdict = verdict_for(
            error,
            claim.attempt,
            account.network,
            utcnow(),
            networks=networks,
            first_attempt_at=row.first_attempt_at or claim.claimed_at,
        )
        command = retry_command(claim.followup.kind, claim.followup.post_id)
        worded = _POST_RETRY.sub(command, verdict.message)
        verdict = Verdict(verdict.state, worded, verdict.next_attempt_at, verdict.maybe_live)
        return _record(engine, claim, verdict, recorder.ids)
    except Exception as error:  # not the contract's error: it may or may not be live
        logger.exception("follow-up %s: %s adapter failed", row.id, account.network)
        return _record(
            engine,
            claim,
            Verdict(
                FollowupState.UNKNOWN,
                f"The {account.network} adapter failed ({type(error).__name__}); the reply "
                "may or may not be live. Check the post, then: "
                + retry_command(claim.followup.kind, claim.followup.post_id),
                maybe_live=True,
            ),
            recorder.ids,
        )
    return _record(engine, claim, published)


class PartRecorder:
    """`OutgoingPost.part_posted` for one claim: the parts live so far, written on the
    row at once while the claim is this worker's."""

    def __init__(self, engine: Engine, row_id: str, worker_id: str, already: list[str]) -> None:
        self._engine, self._row_id, self._worker_id = engine, row_id, worker_id
        self.ids = list(already)

    def __call__(self, index: int, remote_id: str) -> None:
        self.ids[index:] = [remote_id]
        with transaction(self._engine) as session:
            values = {"posted_parts": list(self.ids)}
            repository_claim.record_answer(session, self._row_id, self._worker_id, values)


def _record(
    engine: Engine,
    claim: FollowupClaim,
    answer: Published | Verdict,
    posted: list[str] | None = None,
) -> FollowupOutcome:
    now = utcnow()
    row = claim.row
    values: dict[str, Any] = {"claimed_by": None, "claimed_until": None, "updated_at": now}
    if isinstance(answer, Published):
        values |= {
            "state": FollowupState.PUBLISHED,
            "remote_id": answer.remote_id[:512],
            "remote_url": answer.url[:2048] or None,
            "posted_parts": list(answer.part_ids),
            "posted_at": now,
            "maybe_live_since": None,
            "message": "",
        }
    else:
        values |= {
            "state": answer.state,
            "message": answer.message,
            "next_attempt_at": answer.next_attempt_at,
        }
        if posted:
            values["posted_parts"] = list(posted)
        if answer.maybe_live:
            values["maybe_live_since"] = row.maybe_live_since or claim.claimed_at
        elif answer.maybe_live is False:
            values["maybe_live_since"] = None
        if answer.state == FollowupState.QUEUED and row.first_attempt_at is None:
            values["first_attempt_at"] = claim.claimed_at  # the key's window starts here
    with transaction(engine) as session:
        if not repository_claim.record_answer(session, row.id, claim.worker_id, values):
            logger.warning("follow-up %s: claim lost before the answer was recorded", row.id)
            return FollowupOutcome(row.id, FollowupState.PUBLISHING, "claimed elsewhere")
    return FollowupOutcome(row.id, str(values["state"]), str(values["message"]))
