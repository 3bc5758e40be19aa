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

from socialgen.files.backend import StorageUnavailable
from socialgen.files.store import FileStore
from socialgen.kit.clock import iso, utcnow
from socialgen.kit.errors import SocialgenError
from socialgen.posts.rules import valid_content
from socialgen.publishing.accounts.service import credentials_for, scrub, secret_saver
from socialgen.publishing.followups.service import queue_on_live
from socialgen.publishing.networks.base import OutgoingPost, Published, PublishError
from socialgen.publishing.outbox.claim import (
    WINDOW_MARGIN_SECONDS,
    Claim,
    ClaimedRow,
    first_attempt,
    forgotten,
    idempotency_window,
)
from socialgen.publishing.outbox.keeper import ClaimKeeper
from socialgen.publishing.outbox.media import post_media
from socialgen.publishing.outbox.progress import PartRecorder, maybe_live_since, posted_parts
from socialgen.publishing.outbox.repository import lock_post, settle_alone
from socialgen.publishing.outbox.repository_claim import claimed_row, record_answer
from socialgen.publishing.outbox.service import (
    FIRST_ATTEMPT,
    MAYBE_LIVE_SINCE,
    POSTED_PARTS,
    SENT_TEXT,
    UNSETTLED_TEXT,
    idempotency_key,
    settle_post,
)
from socialgen.publishing.registry import Networks
from socialgen.publishing.settings import MAX_ATTEMPTS
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import Post, Publication, PublicationState

logger = logging.getLogger("socialgen.publishing")

BACKOFF_BASE_SECONDS = 30.0
MAX_DELAY_SECONDS = 24 * 3600.0
RECONNECT_HINT = "reconnect the account"  # adapters' messages may already carry it


@dataclass(frozen=True)
class Verdict:
    """What to write for an answer that is not a success."""

    state: str
    message: str
    next_attempt_at: datetime | None = None
    # Whether the text sent may be live: True when the network gave no clear answer
    # (the text is frozen until it settles), False when it refused, None when nothing
    # was sent this time (an earlier attempt's mark stays as it was).
    maybe_live: bool | None = None


@dataclass(frozen=True)
class Outcome:
    publication_id: str
    state: str  # a final state, or queued when a retry is planned
    message: str


def backoff(attempt: int) -> float:
    """Seconds before retry number `attempt` + 1 when the network named no time."""
    return min(BACKOFF_BASE_SECONDS * 2.0 ** max(0, attempt - 1), 3600.0)


def verdict_for(
    error: PublishError,
    attempt: int,
    network: str,
    now: datetime,
    *,
    networks: Networks,
    first_attempt_at: datetime | None = None,
) -> Verdict:
    """What to record for `error`. A retry on a network that forgets idempotency keys
    (Mastodon, after about an hour) is planned to start while it still remembers the
    key of the first attempt, `first_attempt_at` (default `now`); when that is no
    longer possible the publication is `unknown`, never sent a second time blind."""
    message = error.message
    if error.reconnect:
        if RECONNECT_HINT in message.lower():  # the adapter said how, with the details
            return Verdict(
                PublicationState.FAILED,
                f"{network} refused the account's credentials: {message}",
                maybe_live=False,
            )
        return Verdict(
            PublicationState.FAILED,
            f"{network} refused the account's credentials ({message}): "
            f"{RECONNECT_HINT}: socialgen accounts add {network} ...",
            maybe_live=False,
        )
    if error.outcome_unknown:
        return Verdict(
            PublicationState.UNKNOWN,
            f"{message}. {network} gave no answer after the post was sent, so it may be "
            "live. Check the account; if the post is not there, run: socialgen posts "
            "publish POST_ID --to ACCOUNT --retry",
            maybe_live=True,
        )
    if error.retryable and attempt < MAX_ATTEMPTS:
        wait = error.retry_after if error.retry_after is not None else backoff(attempt)
        wait = min(max(0.0, wait), MAX_DELAY_SECONDS)
        window = idempotency_window(networks, network)
        if window is not None:
            since_first = (now - (first_attempt_at or now)).total_seconds()
            room = window - WINDOW_MARGIN_SECONDS - since_first
            if room <= 0:
                return Verdict(
                    PublicationState.UNKNOWN,
                    f"{network}: {message}. {forgotten(networks, network)}",
                    maybe_live=True,
                )
            wait = min(wait, room)
        at = now + timedelta(seconds=wait)
        return Verdict(
            PublicationState.QUEUED,
            f"{network}: {message} (attempt {attempt} of {MAX_ATTEMPTS}; next at {iso(at)})",
            at,
            maybe_live=True,  # e.g. a 5xx after the network created the post
        )
    if error.retryable:
        return Verdict(
            PublicationState.FAILED,
            f"{message} (gave up after {MAX_ATTEMPTS} attempts)",
            maybe_live=True,
        )
    return Verdict(PublicationState.FAILED, message, maybe_live=False)


def run_claim(
    engine: Engine,
    claim: Claim,
    keeper: ClaimKeeper | None = None,
    *,
    length: timedelta | None = None,
    networks: Networks,
    files: FileStore,
) -> Outcome:
    """Publish a claimed publication through its network's module in `networks` (its
    media read from `files`) and record what the network said. `keeper` keeps the
    claim alive meanwhile (a pass's, for all its claims; else one of its own, which
    extends it by `length`, the publish_claim setting)."""
    own = keeper is None
    if keeper is None:
        if length is None:
            raise TypeError("run_claim without a keeper needs the claim's length")
        keeper = ClaimKeeper(engine, claim.worker_id, length)
    if own:
        keeper.hold([claim])
    try:
        return _run_claim(engine, claim, keeper, networks, files)
    finally:
        keeper.release(claim.publication_id)
        if own:
            keeper.close()


def _run_claim(
    engine: Engine, claim: Claim, keeper: ClaimKeeper, networks: Networks, files: FileStore
) -> Outcome:
    row = claim.row or _read(engine, claim)
    if row is None:  # deleted with its post or account meanwhile
        return Outcome(claim.publication_id, "gone", "deleted while it was being published")
    if not keeper.still_ours(claim.publication_id):  # waited too long, or taken over
        logger.warning("publication %s: claim lost before sending", claim.publication_id)
        return Outcome(claim.publication_id, PublicationState.PUBLISHING, "claimed elsewhere")
    publication, account, post = row.publication, row.account, row.post
    secrets: list[str] = []
    try:
        credentials = credentials_for(account, networks.keys)
        secrets = list(credentials.secret.values())
        module = networks.module(account.network)
        adapter = module.build(
            credentials, secret_saver(engine, account.id, networks.keys), settings=networks.settings
        )
        # The rule every way in applies (posts.rules.valid_content): a post stored before
        # it did (a NUL, only invisible characters) fails here, before it is sent.
        text = valid_content(sent_text(publication, post))
        recorder = PartRecorder(
            engine,
            publication.id,
            claim.worker_id,
            publication.options or {},
            posted_parts(publication),
        )
        outgoing = OutgoingPost(
            publication_id=publication.id,
            idempotency_key=idempotency_key(publication.id),
            text=text,
            media=post_media(engine, files, post),
            number_parts=bool((publication.options or {}).get("number_parts")),
            posted_parts=tuple(recorder.ids),
            earlier_attempt_at=maybe_live_since(publication),
            part_posted=recorder,
        )
    except Exception as error:  # nothing was sent: safe to say why and stop or retry
        return _record(engine, claim, row, _before_sending(error, claim.attempt, networks))
    try:
        published = adapter.publish(outgoing)
    except PublishError as error:
        error.message = scrub(error.message, secrets)
        first = first_attempt(publication) or claim.claimed_at
        verdict = verdict_for(
            error,
            claim.attempt,
            account.network,
            utcnow(),
            networks=networks,
            first_attempt_at=first,
        )
        return _record(engine, claim, row, verdict, outgoing.text, recorder.ids)
    except Exception as error:
        # Not the contract's error: we cannot tell whether the request went out.
        logger.exception("publication %s: %s adapter failed", publication.id, account.network)
        return _record(
            engine,
            claim,
            row,
            Verdict(
                PublicationState.UNKNOWN,
                f"The {account.network} adapter failed ({type(error).__name__}); the post "
                "may or may not be live. Check the account, then publish with --retry",
                maybe_live=True,
            ),
            outgoing.text,
            recorder.ids,
        )
    return _record(engine, claim, row, published, outgoing.text)


def sent_text(publication: Publication, post: Post) -> str:
    """The text the claim recorded for this attempt (claim.text_to_send): the post's
    text when claimed, or an earlier attempt's that may be live."""
    recorded = (publication.options or {}).get(SENT_TEXT)
    return recorded if isinstance(recorded, str) and recorded else post.content


def _read(engine: Engine, claim: Claim) -> ClaimedRow | None:
    """The row of a claim made without it (claims from claim_due carry theirs)."""
    with read_session(engine) as session:
        found = claimed_row(session, claim.publication_id)
    return None if found is None else ClaimedRow(*found, siblings=0)  # 0: not counted


def _before_sending(error: Exception, attempt: int, networks: Networks) -> Verdict:
    if isinstance(error, StorageUnavailable):  # the file store hiccupped: try again
        refused = PublishError(error.message, retryable=True)
        return verdict_for(refused, attempt, "the file store", utcnow(), networks=networks)
    if isinstance(error, SocialgenError):
        return Verdict(PublicationState.FAILED, error.message)
    logger.exception("could not prepare a publication")
    return Verdict(PublicationState.FAILED, f"Could not prepare the post: {type(error).__name__}")


def _record(
    engine: Engine,
    claim: Claim,
    row: ClaimedRow,
    answer: Published | Verdict,
    text: str | None = None,
    posted: list[str] | None = None,
) -> Outcome:
    """Write the answer, only if the claim is still ours (one conditional UPDATE). A post
    with one publication settles in one more statement; one with several takes the
    post's lock first and settles from all of them (settle_post). `text`: what was sent
    (None: nothing was); `posted`: the thread's parts live so far (progress.py)."""
    now = utcnow()
    publication = row.publication
    values: dict[str, object] = {"claimed_by": None, "claimed_until": None, "updated_at": now}
    options = dict(publication.options or {})
    if text is not None:
        options[SENT_TEXT] = text
    if isinstance(answer, Published):
        options.pop(UNSETTLED_TEXT, None)  # settled: SENT_TEXT is what is live
        options.pop(POSTED_PARTS, None)
        options.pop(MAYBE_LIVE_SINCE, None)
        values |= {
            "state": PublicationState.PUBLISHED,
            "remote_id": answer.remote_id[:512],
            "remote_url": answer.url[:2048] or None,
            "part_ids": list(answer.part_ids),
            "published_at": now,
            "message": _published_note(text, row.post.content),
        }
    else:
        values |= {
            "state": answer.state,
            "message": answer.message,
            "next_attempt_at": answer.next_attempt_at,
        }
        if posted:
            options[POSTED_PARTS] = list(posted)
        if answer.maybe_live and text is not None:
            options[UNSETTLED_TEXT] = text
            options.setdefault(MAYBE_LIVE_SINCE, iso(claim.claimed_at or now))
        elif answer.maybe_live is False:
            options.pop(UNSETTLED_TEXT, None)
        if answer.state == PublicationState.QUEUED and FIRST_ATTEMPT not in options:
            # A retry is planned: remember when the key was first sent (claim.py).
            options[FIRST_ATTEMPT] = iso(claim.claimed_at or now)
    if options != (publication.options or {}):
        values["options"] = options
    state = str(values["state"])
    with transaction(engine) as session:
        shared = row.siblings != 1
        if shared:
            lock_post(session, publication.post_id)
        if not record_answer(session, claim.publication_id, claim.worker_id, values):
            stored = session.get(Publication, claim.publication_id)
            if stored is None:
                return Outcome(claim.publication_id, "gone", "deleted while it was being published")
            logger.warning(
                "publication %s: claim lost to %s before the answer was recorded",
                stored.id,
                stored.claimed_by,
            )
            return Outcome(stored.id, stored.state, stored.message)
        if state == PublicationState.PUBLISHED:
            if shared:
                settle_post(session, publication.post_id)
            else:
                settle_alone(
                    session, publication.post_id, str(values["remote_url"] or ""), row.account, now
                )
            # Live now: the post's first comment is queued under it, in this transaction.
            queue_on_live(session, publication.post_id, claim.publication_id, now)
        return Outcome(claim.publication_id, state, str(values["message"]))


def _published_note(sent: str | None, content: str) -> str:
    """Said on a publication whose live text is not the post's: an earlier attempt's
    text went out again under its key (the post was changed after it)."""
    if sent is None or sent == content:
        return ""
    return (
        "Published with the text of an earlier attempt, which may have been live already "
        "(the network answers a repeat of the same key with the first post); the post "
        "was changed after that attempt and its new text is not on this account"
    )
