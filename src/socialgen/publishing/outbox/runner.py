"""Passes over the outbox: claim what is due, publish it in worker threads, repeat
until nothing is due. The scheduler in `serve`, `socialgen publish-due` and
publishing now all go through `publish_pass`, so they share one path (and one
notion of exactly once).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine

from socialgen.kit.clock import utcnow
from socialgen.publishing.followups.views import with_followups
from socialgen.publishing.followups.worker import FollowupReport, followup_pass
from socialgen.publishing.outbox.claim import (
    DEFAULT_BATCH,
    Claim,
    claim_due,
    worker_name,
)
from socialgen.publishing.outbox.keeper import ClaimKeeper, release
from socialgen.publishing.outbox.repository import by_ids, with_accounts_by_ids
from socialgen.publishing.outbox.schemas import PublicationView
from socialgen.publishing.outbox.service import (
    post_publications,
    publication_view,
    queue_publications,
)
from socialgen.publishing.outbox.worker import Outcome, run_claim
from socialgen.publishing.settings import PublishTerms
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import PublicationState

THREADS = 8  # network calls at once per worker process
SUMMARY_STATES = ("published", "failed", "unknown", "missed", "retrying")


@dataclass
class PassReport:
    outcomes: list[Outcome] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)  # publication ids
    expired_unknown: list[str] = field(default_factory=list)  # stale claims, no idempotency
    # A pass over everything due then posts the due follow-ups (followups/worker.py).
    followups: FollowupReport = field(default_factory=FollowupReport)

    def counts(self) -> dict[str, int]:
        counts = dict.fromkeys(SUMMARY_STATES, 0)
        # A publication retried within the pass counts once, by its last answer.
        last = {outcome.publication_id: outcome.state for outcome in self.outcomes}
        for state in last.values():
            key = "retrying" if state == PublicationState.QUEUED else state
            if key in counts:
                counts[key] += 1
        counts["missed"] += len(self.missed)
        counts["unknown"] += len(self.expired_unknown)
        return counts

    def touched(self) -> list[str]:
        ids = [o.publication_id for o in self.outcomes] + self.missed + self.expired_unknown
        return list(dict.fromkeys(ids))

    def extend(self, other: PassReport) -> None:
        self.outcomes += other.outcomes
        self.missed += other.missed
        self.expired_unknown += other.expired_unknown
        self.followups.outcomes += other.followups.outcomes
        self.followups.settled += other.followups.settled


def publish_pass(
    engine: Engine,
    worker_id: str,
    executor: Executor,
    *,
    stop: threading.Event | None = None,
    only_ids: Sequence[str] | None = None,
    workspace_id: str | None = None,
    now: datetime | None = None,
    batch: int = DEFAULT_BATCH,
    capacity: int = THREADS,
    terms: PublishTerms,
) -> PassReport:
    """Claim and publish due rows until none is due (or `stop`). Up to `capacity`
    publications are in flight at once, and up to `capacity` more wait claimed behind
    them: a thread that frees up starts the next at once while the main thread claims
    the following batch, so no slot waits for a claim. The pass's ClaimKeeper keeps
    every claim alive, waiting or running, until its answer is recorded."""
    report = PassReport()
    in_flight: dict[Future[Outcome], Claim] = {}
    drained = False
    with ClaimKeeper(engine, worker_id, terms.claim) as keeper:
        while True:
            stopping = stop is not None and stop.is_set()
            if stopping:
                _give_back(engine, in_flight)
            room = 2 * capacity - len(in_flight)
            if len(in_flight) <= capacity and not drained and not stopping:
                found = claim_due(
                    engine,
                    worker_id,
                    limit=min(room, max(batch, capacity)),
                    now=now,
                    only_ids=only_ids,
                    workspace_id=workspace_id,
                    terms=terms,
                )
                report.missed += found.missed
                report.expired_unknown += found.unknown
                keeper.hold(found.claims)
                for claim in found.claims:
                    work = executor.submit(
                        run_claim,
                        engine,
                        claim,
                        keeper,
                        networks=terms.networks,
                        files=terms.files,
                    )
                    in_flight[work] = claim
                # Rows just marked missed/unknown may hide more due rows behind them.
                drained = not (found.claims or found.missed or found.unknown)
                if found.missed or found.unknown or (len(in_flight) <= capacity and found.claims):
                    continue
            if not in_flight:
                if drained or stopping:
                    break
                continue
            done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
            for future in done:
                del in_flight[future]
                if not future.cancelled():
                    report.outcomes.append(future.result())
            drained = False  # a retry may be due at once: look again
    if only_ids is None:  # the scheduler's and publish-due's pass: then the follow-ups
        report.followups = followup_pass(
            engine, worker_id, executor, terms=terms, stop=stop, workspace_id=workspace_id
        )
    return report


def _give_back(engine: Engine, in_flight: dict[Future[Outcome], Claim]) -> None:
    """Stopping: claims not started yet go back to the queue for the next worker."""
    unstarted = [claim for future, claim in in_flight.items() if future.cancel()]
    release(engine, unstarted)


def publish_now(
    engine: Engine,
    workspace_id: str,
    post_id: str,
    account_refs: Sequence[str],
    *,
    retry: bool = False,
    number_parts: bool = False,
    wait_seconds: float = 0.0,
    terms: PublishTerms,
) -> list[PublicationView]:
    """Queue the post for the accounts, due now, and publish it in this process.
    Retries the network asked for within `wait_seconds` are waited for here; later
    ones stay queued for the scheduler or `publish-due`. A publication another worker
    holds is waited for (up to `wait_seconds`), then shown as it stands."""
    with transaction(engine) as session:
        rows = queue_publications(
            session,
            workspace_id,
            post_id,
            account_refs,
            utcnow(),
            retry=retry,
            number_parts=number_parts,
        )
        ids = [publication.id for publication, _ in rows]
    deadline = time.monotonic() + wait_seconds
    worker = worker_name("now")
    with ThreadPoolExecutor(THREADS, thread_name_prefix="socialgen-publish") as executor:
        while True:
            publish_pass(engine, worker, executor, only_ids=ids, terms=terms)
            wake = _next_wake(engine, ids)
            if wake is None:
                break
            pause = max(0.0, (wake - utcnow()).total_seconds())
            if time.monotonic() + pause > deadline:
                break
            time.sleep(max(0.05, pause))
        # A first comment due at once goes out with the post (followups/worker.py).
        followup_pass(engine, worker, executor, terms=terms, publication_ids=ids)
    return current_views(engine, ids)


def current_views(engine: Engine, ids: Sequence[str]) -> list[PublicationView]:
    with read_session(engine) as session:
        rows = with_accounts_by_ids(session, ids)
        order = {publication_id: index for index, publication_id in enumerate(ids)}
        ordered = sorted(rows, key=lambda row: order.get(row[0].id, 0))
        views = [publication_view(publication, account) for publication, account in ordered]
        return with_followups(session, views)  # each one's first comment and plug


def post_views(engine: Engine, workspace_id: str, post_id: str) -> list[PublicationView]:
    with read_session(engine) as session:
        views = [
            publication_view(p, a) for p, a in post_publications(session, workspace_id, post_id)
        ]
        return with_followups(session, views)


def pass_summary(engine: Engine, report: PassReport) -> dict[str, Any]:
    """publish-due's --json: the counts, and every publication it handled."""
    views = current_views(engine, report.touched())
    return {
        **report.counts(),
        "publications": [view.model_dump() for view in views],
        "followups": report.followups.counts(),  # first comments and plugs posted
    }


def _next_wake(engine: Engine, ids: Sequence[str]) -> datetime | None:
    """When one of `ids` may move again: a planned retry, or another worker's claim
    ending; None when all are final."""
    with read_session(engine) as session:
        rows = by_ids(session, ids)
    moments: list[datetime] = []
    for publication in rows:
        if publication.state == PublicationState.QUEUED:
            moments.append(publication.next_attempt_at or publication.due_at)
        elif publication.state == PublicationState.PUBLISHING:
            # Another worker has it: look again shortly (its answer, or its claim's end).
            moments.append(utcnow() + timedelta(seconds=0.25))
    return min(moments) if moments else None
