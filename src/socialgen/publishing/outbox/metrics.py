"""Metrics read back from the networks: a snapshot series per publication, and the
post's likes/comments columns (SPEC.md's metrics {likes, comments}) as the sum of
each publication's latest snapshot.

Several `serve` processes may refresh at once: each publication is taken with a
conditional UPDATE of its `metrics_at` (one winner), so a snapshot is not read twice.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Engine, or_, update
from sqlmodel import Session, col, select

from socialgen.clock import iso, utcnow
from socialgen.posts.service import get_post
from socialgen.publishing.accounts.service import scrub
from socialgen.publishing.adapters import build_adapter
from socialgen.publishing.networks.base import Metrics, NetworkAdapter, Published, PublishError
from socialgen.publishing.registry import Networks
from socialgen.publishing.settings import METRICS_WINDOW
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import (
    MetricSnapshot,
    Post,
    Publication,
    PublicationState,
    SocialAccount,
)

logger = logging.getLogger("socialgen.publishing")

SERIES_POINTS = 48  # snapshots shown per publication (two days at the default interval)
STATS_POSTS = 50  # posts shown by `posts stats` without a post id


def refresh_metrics(
    engine: Engine,
    *,
    workspace_id: str | None = None,
    post_id: str | None = None,
    force: bool = False,
    now: datetime | None = None,
    interval: timedelta | None = None,
    networks: Networks,
) -> int:
    """Read metrics for published publications younger than 30 days whose last
    reading is older than `interval` (the metrics_interval setting; all of them with
    `force`), through each network's module in `networks` (the Runtime's).
    Returns how many were read. Call it outside any transaction."""
    moment = now or utcnow()
    if interval is None and not force:
        raise TypeError("refresh_metrics needs the metrics_interval setting unless forced")
    cutoff = moment - (interval or timedelta(0))
    statement = (
        select(Publication, SocialAccount)
        .join(SocialAccount, col(SocialAccount.id) == col(Publication.account_id))
        .where(
            col(Publication.state) == PublicationState.PUBLISHED,
            col(Publication.published_at) >= moment - METRICS_WINDOW,
            col(Publication.remote_id).is_not(None),
        )
    )
    if workspace_id is not None:
        statement = statement.where(col(Publication.workspace_id) == workspace_id)
    if post_id is not None:
        statement = statement.where(col(Publication.post_id) == post_id)
    if not force:
        statement = statement.where(_stale(cutoff))
    with read_session(engine) as session:
        rows = session.exec(statement).all()
    adapters: dict[str, NetworkAdapter] = {}  # one per account: sessions are rate-limited
    read = 0
    for publication, account in rows:
        if not _take(engine, publication.id, None if force else cutoff, moment):
            continue  # another process is reading this one
        counts, note = _read(networks, engine, adapters, publication, account)
        _store(engine, publication.id, publication.post_id, counts, note, moment)
        read += 1
    return read


def _stale(cutoff: datetime) -> Any:
    return or_(col(Publication.metrics_at).is_(None), col(Publication.metrics_at) <= cutoff)


def _take(engine: Engine, publication_id: str, cutoff: datetime | None, now: datetime) -> bool:
    with transaction(engine) as session:
        statement = update(Publication).where(col(Publication.id) == publication_id)
        if cutoff is not None:
            statement = statement.where(_stale(cutoff))
        result = session.connection().execute(statement.values(metrics_at=now))
        return bool(getattr(result, "rowcount", 0))


def _read(
    networks: Networks,
    engine: Engine,
    adapters: dict[str, NetworkAdapter],
    publication: Publication,
    account: SocialAccount,
) -> tuple[Metrics | None, str]:
    try:
        adapter = adapters.get(account.id) or build_adapter(networks, engine, account)
        adapters[account.id] = adapter
        published = Published(
            remote_id=publication.remote_id or "",
            url=publication.remote_url or "",
            part_ids=tuple(publication.part_ids or ()),
        )
        counts = adapter.metrics(published)
        return counts, counts.note
    except PublishError as error:
        return None, scrub(error.message, [])
    except Exception as error:  # one account's trouble must not stop the others
        logger.warning("metrics of publication %s: %s", publication.id, type(error).__name__)
        return None, f"Could not read metrics ({type(error).__name__})"


def _store(
    engine: Engine,
    publication_id: str,
    post_id: str,
    counts: Metrics | None,
    note: str,
    now: datetime,
) -> None:
    with transaction(engine) as session:
        publication = session.get(Publication, publication_id)
        if publication is None:
            return
        publication.options = {**(publication.options or {}), "metricsNote": note}
        session.add(publication)
        if counts is not None:
            session.add(
                MetricSnapshot(
                    publication_id=publication_id,
                    post_id=post_id,
                    taken_at=now,
                    likes=counts.likes,
                    reposts=counts.reposts,
                    comments=counts.comments,
                )
            )
        session.flush()
        post = session.get(Post, post_id)
        if post is not None:
            latest = [_latest(session, p.id) for p in _published(session, post_id)]
            post.likes = sum(s.likes for s in latest if s is not None)
            post.comments = sum(s.comments for s in latest if s is not None)
            session.add(post)


def _published(session: Session, post_id: str) -> list[Publication]:
    return list(
        session.exec(
            select(Publication).where(
                col(Publication.post_id) == post_id,
                col(Publication.state) == PublicationState.PUBLISHED,
            )
        ).all()
    )


def _latest(session: Session, publication_id: str) -> MetricSnapshot | None:
    return session.exec(
        select(MetricSnapshot)
        .where(col(MetricSnapshot.publication_id) == publication_id)
        .order_by(col(MetricSnapshot.taken_at).desc())
        .limit(1)
    ).first()


def post_stats(session: Session, workspace_id: str, post_id: str | None = None) -> dict[str, Any]:
    """One post's metrics (or the latest published posts'), each publication with its
    series, oldest first."""
    if post_id is not None:
        posts = [get_post(session, workspace_id, post_id)]
    else:
        ids = session.exec(
            select(Publication.post_id)
            .where(
                col(Publication.workspace_id) == workspace_id,
                col(Publication.state) == PublicationState.PUBLISHED,
            )
            .group_by(col(Publication.post_id))
            .order_by(col(Publication.post_id))
        ).all()
        posts = list(
            session.exec(
                select(Post)
                .where(col(Post.id).in_(list(ids)))
                .order_by(col(Post.published_at).desc())
                .limit(STATS_POSTS)
            ).all()
        )
    return {"posts": [_post_stats(session, post) for post in posts]}


def _post_stats(session: Session, post: Post) -> dict[str, Any]:
    rows = session.exec(
        select(Publication, SocialAccount)
        .join(SocialAccount, col(SocialAccount.id) == col(Publication.account_id))
        .where(col(Publication.post_id) == post.id)
    ).all()
    publications = []
    for publication, account in rows:
        series = list(
            session.exec(
                select(MetricSnapshot)
                .where(col(MetricSnapshot.publication_id) == publication.id)
                .order_by(col(MetricSnapshot.taken_at).desc())
                .limit(SERIES_POINTS)
            ).all()
        )[::-1]
        last = series[-1] if series else None
        publications.append(
            {
                "publicationId": publication.id,
                "network": account.network,
                "account": account.handle,
                "state": publication.state,
                "url": publication.remote_url,
                "likes": last.likes if last else 0,
                "reposts": last.reposts if last else 0,
                "comments": last.comments if last else 0,
                "takenAt": iso(last.taken_at) if last else None,
                "note": (publication.options or {}).get("metricsNote", ""),
                "series": [
                    {
                        "takenAt": iso(s.taken_at),
                        "likes": s.likes,
                        "reposts": s.reposts,
                        "comments": s.comments,
                    }
                    for s in series
                ],
            }
        )
    return {
        "postId": post.id,
        "status": post.status,
        "postUrl": post.post_url,
        "likes": post.likes,
        "comments": post.comments,
        "reposts": sum(p["reposts"] for p in publications),
        "publications": publications,
    }
