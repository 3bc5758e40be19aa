"""`socialgen accounts history`: an account's own past posts, with their counts, pulled
from its network into the store, so insights can learn from posts socialgen never
published.

Each post the network shows becomes a published `Post` with a `Publication` through
the account (state published, `remote_id` the network's id, options.origin
"history") and a `MetricSnapshot` of its counts. A post already known by its
`remote_id` on this account (socialgen published it, or an earlier pull brought it)
gets a new snapshot only, and only when its counts moved: pulling again creates
nothing twice.

The network is read first, outside any transaction (it can take a while, and the
adapter may save a refreshed session meanwhile); then everything is written in one
transaction, all or nothing, holding the account row (FOR UPDATE on PostgreSQL,
SQLite's write lock) so two pulls of one account at once cannot both create a post.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy import Engine, func
from sqlmodel import Session, col, select
from typing_extensions import TypedDict

from socialgen.clock import parse_iso, utcnow
from socialgen.errors import BadRequest, NotFound, SocialgenError
from socialgen.posts.service import create_draft
from socialgen.publishing.accounts import ACCOUNT_NOT_FOUND, credentials_for, network_errors
from socialgen.publishing.adapters import build_adapter
from socialgen.publishing.networks.base import HistoryReader, PastPost
from socialgen.sources.guard import check_url
from socialgen.store.engine import transaction
from socialgen.store.tables import (
    MetricSnapshot,
    Post,
    PostStatus,
    Publication,
    PublicationState,
    SocialAccount,
)

logger = logging.getLogger("socialgen.publishing")

ORIGIN = "history"  # Publication.options["origin"] of a pulled post
LOOKUP_BATCH = 500  # remote ids per IN (...) query


class HistorySummary(TypedDict):
    accountId: str
    fetched: int  # the account's posts the network showed (since `since`)
    created: int  # new published posts
    updated: int  # known posts with a new snapshot (their counts moved)
    skipped: int  # known posts whose counts had not moved, posts without text


@dataclass
class _Known:
    publication: Publication
    latest: MetricSnapshot | None


def parse_since(value: str | None) -> datetime | None:
    """`--since` / the body's `since`: an ISO 8601 date or time (UTC when it names no
    offset); None or blank means every post."""
    if value is None or not value.strip():
        return None
    try:
        since = parse_iso(value)
    except ValueError:
        raise BadRequest(
            f"since must be an ISO 8601 date or time, e.g. 2025-01-31 (got {value.strip()!r})"
        ) from None
    if since > utcnow():
        raise BadRequest(f"since is in the future ({value.strip()}): no post is that recent")
    return since


def pull_history(engine: Engine, account: SocialAccount, since: datetime | None) -> HistorySummary:
    """Read the account's posts from its network and store them. Call it outside any
    transaction. Network refusals come out as accounts.NetworkRefused /
    NetworkUnavailable (in the network's words, without a secret); a network that
    cannot read history as Forbidden."""
    check_url(account.service_url)  # the guard again: DNS answers change
    secrets = credentials_for(account).secret.values()
    with network_errors(account.network, secrets):
        adapter = build_adapter(engine, account)
        if not isinstance(adapter, HistoryReader):
            raise BadRequest(f"socialgen cannot read past posts from {account.network} yet")
        posts = list(adapter.history(since))
    with transaction(engine) as session:
        return store_history(session, account.workspace_id, account.id, posts)


def store_history(
    session: Session, workspace_id: str, account_id: str, posts: Sequence[PastPost]
) -> HistorySummary:
    """Write what a pull read (see the module's note); never commits."""
    account = session.exec(
        select(SocialAccount).where(col(SocialAccount.id) == account_id).with_for_update()
    ).first()
    if account is None or account.workspace_id != workspace_id:
        raise NotFound(ACCOUNT_NOT_FOUND.format(ref=account_id))  # removed meanwhile
    now = utcnow()
    known = _known(session, account_id, [post.remote_id for post in posts])
    summary: HistorySummary = {
        "accountId": account_id,
        "fetched": len(posts),
        "created": 0,
        "updated": 0,
        "skipped": 0,
    }
    touched: set[str] = set()
    for past in posts:
        found = known.get(past.remote_id)
        if found is not None:
            past = _without_own_thread(past, found.publication)
            if _unchanged(found.latest, past):
                summary["skipped"] += 1
                continue
            _snapshot(session, found.publication, past, now)
            touched.add(found.publication.post_id)
            summary["updated"] += 1
            continue
        publication = _create(session, account, past, now)
        if publication is None:
            summary["skipped"] += 1
            continue
        known[past.remote_id] = _Known(publication, None)
        summary["created"] += 1
    session.flush()
    for post_id in touched:
        _recount(session, post_id)
    logger.info(
        "history of account %s: %d fetched, %d created, %d updated",
        account_id,
        summary["fetched"],
        summary["created"],
        summary["updated"],
    )
    return summary


def _known(session: Session, account_id: str, remote_ids: list[str]) -> dict[str, _Known]:
    """The account's publications among `remote_ids`, each with its latest snapshot."""
    found: dict[str, _Known] = {}
    for start in range(0, len(remote_ids), LOOKUP_BATCH):
        batch = remote_ids[start : start + LOOKUP_BATCH]
        rows = session.exec(
            select(Publication).where(
                col(Publication.account_id) == account_id,
                col(Publication.remote_id).in_(batch),
            )
        ).all()
        for publication in rows:
            if publication.remote_id is not None:
                found[publication.remote_id] = _Known(publication, None)
    if not found:
        return found
    by_publication = {entry.publication.id: entry for entry in found.values()}
    ids = list(by_publication)
    for start in range(0, len(ids), LOOKUP_BATCH):
        batch = ids[start : start + LOOKUP_BATCH]
        newest = (
            select(
                col(MetricSnapshot.publication_id).label("publication_id"),
                func.max(MetricSnapshot.taken_at).label("taken_at"),
            )
            .where(col(MetricSnapshot.publication_id).in_(batch))
            .group_by(col(MetricSnapshot.publication_id))
            .subquery()
        )
        snapshots = session.exec(
            select(MetricSnapshot).join(
                newest,
                (col(MetricSnapshot.publication_id) == newest.c.publication_id)
                & (col(MetricSnapshot.taken_at) == newest.c.taken_at),
            )
        ).all()
        for snapshot in snapshots:
            if snapshot.publication_id is not None:
                by_publication[snapshot.publication_id].latest = snapshot
    return found


def _without_own_thread(past: PastPost, publication: Publication) -> PastPost:
    """A thread socialgen wrote hangs its second part under the root as a reply: not a
    comment (networks/mastodon.py's metrics leave it out the same way)."""
    if len(publication.part_ids or ()) < 2 or past.metrics.comments < 1:
        return past
    counts = replace(past.metrics, comments=past.metrics.comments - 1)
    return replace(past, metrics=counts)


def _unchanged(latest: MetricSnapshot | None, past: PastPost) -> bool:
    if latest is None:
        return False
    counts = past.metrics
    return (latest.likes, latest.reposts, latest.comments) == (
        counts.likes,
        counts.reposts,
        counts.comments,
    )


def _create(
    session: Session, account: SocialAccount, past: PastPost, now: datetime
) -> Publication | None:
    """A published post, its publication and first snapshot; None when the post has
    no text to keep (an image alone) or more than a post may hold."""
    try:
        post = create_draft(session, account.workspace_id, past.text, source="import")
    except SocialgenError:
        return None
    post.status = PostStatus.PUBLISHED
    post.published_at = post.scheduled_at = past.published_at
    post.post_url = past.url[:2048] or None
    post.social_account_name = (account.display_name or account.handle)[:200]
    post.social_account_email = account.email or None
    post.likes = past.metrics.likes
    post.comments = past.metrics.comments
    post.place_on_timeline()
    session.add(post)
    publication = Publication(
        workspace_id=account.workspace_id,
        post_id=post.id,
        account_id=account.id,
        state=PublicationState.PUBLISHED,
        due_at=past.published_at,
        remote_id=past.remote_id,
        remote_url=past.url[:2048] or None,
        part_ids=[past.remote_id],
        options={"origin": ORIGIN},
        published_at=past.published_at,
        metrics_at=now,
    )
    session.add(publication)
    session.flush()
    _snapshot(session, publication, past, now)
    return publication


def _snapshot(session: Session, publication: Publication, past: PastPost, now: datetime) -> None:
    counts = past.metrics
    session.add(
        MetricSnapshot(
            publication_id=publication.id,
            post_id=publication.post_id,
            taken_at=now,
            likes=counts.likes,
            reposts=counts.reposts,
            comments=counts.comments,
        )
    )
    publication.metrics_at = now
    session.add(publication)


def _recount(session: Session, post_id: str) -> None:
    """The post's likes/comments columns: each published publication's latest snapshot,
    summed (as metrics.py keeps them)."""
    post = session.get(Post, post_id)
    if post is None:
        return
    likes = comments = 0
    publications = session.exec(
        select(Publication.id).where(
            col(Publication.post_id) == post_id,
            col(Publication.state) == PublicationState.PUBLISHED,
        )
    ).all()
    for publication_id in publications:
        latest = session.exec(
            select(MetricSnapshot)
            .where(col(MetricSnapshot.publication_id) == publication_id)
            .order_by(col(MetricSnapshot.taken_at).desc())
            .limit(1)
        ).first()
        if latest is not None:
            likes += latest.likes
            comments += latest.comments
    post.likes, post.comments = likes, comments
    session.add(post)
