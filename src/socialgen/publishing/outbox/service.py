"""The outbox: one publication row per (post, account), queued for a due time.

Creating, moving and dropping publications, and showing them. Claiming and running
them is `claim.py` and `worker.py`. Never commits: the caller's transaction does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlmodel import Session

from socialgen.kit.clock import iso, utcnow
from socialgen.kit.errors import BadRequest
from socialgen.posts.rules import UNSETTLED_TEXT as UNSETTLED_TEXT  # for publishing/
from socialgen.posts.service import get_post, schedule, unschedule
from socialgen.publishing.accounts.service import get_account
from socialgen.publishing.outbox import repository
from socialgen.publishing.outbox.schemas import PublicationView
from socialgen.store.tables import Post, PostStatus, Publication, PublicationState, SocialAccount

# Publication.options: when the first attempt was claimed (kept once a retry is planned).
FIRST_ATTEMPT = "first_attempt_at"
# Publication.options: the text the latest attempt sent (written when it is claimed):
# on a published publication, the text that went live.
SENT_TEXT = "sent_text"
# Publication.options, for networks without an idempotency key: the ids of the thread's
# parts that went live while the publication is not settled (never posted again), and
# since when an attempt may be live unanswered (an adapter that can, looks for it).
POSTED_PARTS = "posted_parts"
MAYBE_LIVE_SINCE = "maybe_live_since"


def idempotency_key(publication_id: str) -> str:
    """The handle the network dedupes on, the same for every attempt of a publication
    (a worker that died after sending is followed by one sending the same key).
    Hex, 32 characters: fits Mastodon's header and a Bluesky record key alike."""
    return hashlib.sha256(f"socialgen-publication:{publication_id}".encode()).hexdigest()[:32]


def publication_view(publication: Publication, account: SocialAccount) -> PublicationView:
    return PublicationView(
        id=publication.id,
        postId=publication.post_id,
        accountId=account.id,
        network=account.network,
        account=account.handle,
        state=publication.state,
        dueAt=iso(publication.due_at),
        attempts=publication.attempts,
        nextAttemptAt=iso(publication.next_attempt_at),
        remoteId=publication.remote_id,
        url=publication.remote_url,
        message=publication.message,
        publishedAt=iso(publication.published_at),
    )


def post_publications(
    session: Session, workspace_id: str, post_id: str
) -> list[tuple[Publication, SocialAccount]]:
    """A post's publications with their accounts, in the order they were asked for
    (the first account's URL becomes the post's URL)."""
    get_post(session, workspace_id, post_id)  # 404 for another workspace's post
    rows = repository.with_accounts(session, post_id)
    return sorted(rows, key=lambda row: _order(row[0]))


def views(rows: Sequence[tuple[Publication, SocialAccount]]) -> list[PublicationView]:
    return [publication_view(publication, account) for publication, account in rows]


def queue_publications(
    session: Session,
    workspace_id: str,
    post_id: str,
    account_refs: Sequence[str],
    due_at: datetime,
    *,
    retry: bool = False,
    number_parts: bool = False,
) -> list[tuple[Publication, SocialAccount]]:
    """Queue the post for each account at `due_at`. A queued publication moves to the
    new time; a published one stays as it is; a failed, unknown or missed one is
    queued again only with `retry` (an unknown one may be live already). Each queued
    one takes `number_parts` ("1/3" markers on a thread), as this request says."""
    if not account_refs:
        raise BadRequest("Name at least one account to publish to (--to ACCOUNT)")
    post = get_post(session, workspace_id, post_id)
    accounts = _distinct(get_account(session, workspace_id, ref) for ref in account_refs)
    existing = repository.by_account(session, post.id, [account.id for account in accounts])
    now = utcnow()
    chosen: list[tuple[Publication, SocialAccount]] = []
    for position, account in enumerate(accounts):
        publication = existing.get(account.id)
        if publication is None:
            publication = Publication(
                workspace_id=workspace_id,
                post_id=post.id,
                account_id=account.id,
                due_at=due_at,
                options={"position": position, "number_parts": number_parts},
            )
        elif publication.state == PublicationState.PUBLISHING:
            raise BadRequest(
                f"The post is being published to {account.handle} right now: "
                "wait for the answer (socialgen posts publications POST_ID)"
            )
        elif publication.state == PublicationState.PUBLISHED:
            chosen.append((publication, account))
            continue
        elif publication.state != PublicationState.QUEUED and not retry:
            raise BadRequest(_refusal(publication, account))
        _requeue(publication, due_at, now)
        # A new dict: the JSON column does not see changes made in place.
        publication.options = {**(publication.options or {}), "number_parts": number_parts}
        session.add(publication)
        chosen.append((publication, account))
    session.flush()
    return chosen


def settle_post(session: Session, post_id: str) -> Post | None:
    """Once every publication of a post is published, the post is: published_at, its
    URL and account (SPEC.md's postUrl, socialAccount) from the first account asked.
    Call it with the post row locked (`repository.lock_post`) so two workers recording a post's
    last two publications at once cannot each miss the other's."""
    post = session.get(Post, post_id)
    rows = repository.with_accounts(session, post_id)
    if post is None or not rows:
        return None
    if any(publication.state != PublicationState.PUBLISHED for publication, _ in rows):
        return None
    first, account = min(rows, key=lambda row: _order(row[0]))
    moments = [p.published_at for p, _ in rows if p.published_at is not None]
    post.status = PostStatus.PUBLISHED
    post.published_at = max(moments) if moments else utcnow()
    post.post_url = first.remote_url or post.post_url
    post.social_account_name = (account.display_name or account.handle)[:200]
    post.social_account_email = account.email or None
    post.updated_at = utcnow()
    post.place_on_timeline()
    session.add(post)
    return post


def _requeue(publication: Publication, due_at: datetime, now: datetime) -> None:
    if publication.state != PublicationState.QUEUED:
        publication.attempts = 0
        publication.message = ""
        publication.remote_id = publication.remote_url = None
        publication.part_ids = []
        publication.options = {
            key: value for key, value in (publication.options or {}).items() if key != FIRST_ATTEMPT
        }
    publication.state = PublicationState.QUEUED
    publication.due_at = due_at
    publication.next_attempt_at = None
    publication.claimed_by = publication.claimed_until = None
    publication.updated_at = now


def _refusal(publication: Publication, account: SocialAccount) -> str:
    said = f": {publication.message}" if publication.message else ""
    if publication.state == PublicationState.UNKNOWN:
        return (
            f"The publication to {account.handle} is unknown{said}. Check the account first; "
            "if the post is not there, publish again with --retry (retry: true)"
        )
    return (
        f"The publication to {account.handle} is {publication.state}{said}. "
        "Queue it again with --retry (posts publish or posts schedule; retry: true over HTTP)"
    )


def _distinct(accounts: Any) -> list[SocialAccount]:
    seen: dict[str, SocialAccount] = {}
    for account in accounts:
        seen.setdefault(account.id, account)
    return list(seen.values())


def _order(publication: Publication) -> tuple[datetime, int]:
    position = publication.options.get("position", 0) if publication.options else 0
    return (publication.created_at, int(position) if isinstance(position, int) else 0)


def schedule_post(
    session: Session,
    workspace_id: str,
    post_id: str,
    at: datetime,
    account_refs: Sequence[str] = (),
    *,
    retry: bool = False,
    number_parts: bool = False,
) -> tuple[Post, list[tuple[Publication, SocialAccount]]]:
    """Schedule (or move) the post to `at`; its queued publications move with it, and
    it is queued for the accounts named (with `retry`, a failed, unknown or missed
    publication to one of them is queued again for `at`)."""
    if (number_parts or retry) and not account_refs:
        raise BadRequest("--number-parts and --retry go with --to ACCOUNT")
    post = schedule(session, workspace_id, post_id, at)
    repository.move_queued(session, post.id, at)
    if account_refs:
        queue_publications(
            session, workspace_id, post.id, account_refs, at, retry=retry, number_parts=number_parts
        )
    return post, post_publications(session, workspace_id, post.id)


def unschedule_post(session: Session, workspace_id: str, post_id: str) -> tuple[Post, int]:
    """Back to a draft; its queued publications are dropped (returns how many)."""
    post = unschedule(session, workspace_id, post_id)
    return post, repository.drop_queued(session, post.id)
