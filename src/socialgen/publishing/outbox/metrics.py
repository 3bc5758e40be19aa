"""Metrics read back from the networks: a snapshot series per publication, and the
post's likes/comments columns (SPEC.md's metrics {likes, comments}) as the sum of
each publication's latest snapshot.

Several `serve` processes may refresh at once: each publication is taken with a
conditional UPDATE of its `metrics_at` (one winner), so a snapshot is not read twice.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from sqlalchemy import Engine
from sqlmodel import Session

from socialgen.kit.clock import iso, utcnow
from socialgen.posts.export_item import Counts
from socialgen.posts.repository_counts import Reading, latest_readings, summed_counts
from socialgen.posts.service import get_post
from socialgen.publishing.accounts.service import scrub
from socialgen.publishing.adapters import build_adapter
from socialgen.publishing.followups.service import queue_takeoff
from socialgen.publishing.networks.base import Metrics, NetworkAdapter, Published, PublishError
from socialgen.publishing.networks.pull import Pull, PullLimits
from socialgen.publishing.outbox import repository_metrics
from socialgen.publishing.outbox.repository import with_accounts
from socialgen.publishing.outbox.schemas import (
    ImportedStats,
    MetricPoint,
    PostStatsView,
    PublicationStats,
    StatsView,
)
from socialgen.publishing.registry import Networks
from socialgen.store.engine import read_session, transaction
from socialgen.store.tables import MetricSnapshot, Post, Publication, SocialAccount

logger = logging.getLogger("socialgen.publishing")
METRICS_READ_SECONDS = 60.0  # one publication's counts: a few small answers

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
    with read_session(engine) as session:
        rows = repository_metrics.to_read(
            session,
            moment,
            workspace_id=workspace_id,
            post_id=post_id,
            cutoff=None if force else cutoff,
        )
    adapters: dict[str, NetworkAdapter] = {}  # one per account: sessions are rate-limited
    read = 0
    for publication, account in rows:
        if not _take(engine, publication.id, None if force else cutoff, moment):
            continue  # another process is reading this one
        counts, note = _read(networks, engine, adapters, publication, account)
        _store(engine, publication.id, publication.post_id, counts, note, moment)
        read += 1
    return read


def _take(engine: Engine, publication_id: str, cutoff: datetime | None, now: datetime) -> bool:
    with transaction(engine) as session:
        return repository_metrics.take(session, publication_id, cutoff, now)


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
        # One read, bounded as a pull's answers are: a server trickling its answer
        # cannot hold the scheduler's metrics pass (networks/pull.py).
        with Pull(PullLimits(seconds=METRICS_READ_SECONDS, pages=1)).active():
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
            # Past the plug's likes: its reply is queued under this publication, once.
            queue_takeoff(session, post_id, publication_id, counts.likes, now)
        session.flush()
        post = session.get(Post, post_id)
        if post is not None:
            latest = [
                repository_metrics.latest_snapshot(session, p.id)
                for p in repository_metrics.published_of_post(session, post_id)
            ]
            post.likes = sum(s.likes for s in latest if s is not None)
            post.comments = sum(s.comments for s in latest if s is not None)
            session.add(post)


def post_stats(session: Session, workspace_id: str, post_id: str | None = None) -> StatsView:
    """One post's metrics (or the latest published posts', imported ones included),
    each publication with its series, oldest first. A post's counts are what the store
    holds: the latest reading of each publication and of its import, summed
    (posts/repository_counts.py, as `posts export` and insights count them)."""
    if post_id is not None:
        posts = [get_post(session, workspace_id, post_id)]
    else:
        posts = repository_metrics.latest_published_posts(session, workspace_id, STATS_POSTS)
    readings = latest_readings(session, workspace_id, [post.id for post in posts])
    counts = summed_counts(readings)
    imported = {r.post_id: r for r in readings if r.publication_id is None}
    return StatsView(
        posts=[
            _post_stats(session, post, counts.get(post.id), imported.get(post.id)) for post in posts
        ]
    )


def _post_stats(
    session: Session, post: Post, counts: Counts | None, imported: Reading | None
) -> PostStatsView:
    publications = [
        _publication_stats(
            publication,
            account,
            repository_metrics.latest_snapshots(session, publication.id, SERIES_POINTS),
        )
        for publication, account in with_accounts(session, post.id)
    ]
    # Never read anywhere: the post's own columns (0 unless set some other way).
    counts = counts or Counts(post.likes, 0, post.comments, None)
    return PostStatsView(
        postId=post.id,
        status=post.status,
        postUrl=post.post_url,
        likes=counts.likes,
        comments=counts.comments,
        reposts=counts.reposts,
        publications=publications,
        impressions=counts.impressions,
        publishedAt=iso(post.published_at),
        imported=None
        if imported is None
        else ImportedStats(
            likes=imported.likes,
            reposts=imported.reposts,
            comments=imported.comments,
            impressions=imported.impressions,
            takenAt=iso(imported.taken_at),
        ),
    )


def _publication_stats(
    publication: Publication, account: SocialAccount, series: list[MetricSnapshot]
) -> PublicationStats:
    last = series[-1] if series else None
    return PublicationStats(
        publicationId=publication.id,
        network=account.network,
        account=account.handle,
        state=publication.state,
        url=publication.remote_url,
        likes=last.likes if last else 0,
        reposts=last.reposts if last else 0,
        comments=last.comments if last else 0,
        takenAt=iso(last.taken_at) if last else None,
        note=(publication.options or {}).get("metricsNote", ""),
        series=[
            MetricPoint(
                takenAt=iso(s.taken_at), likes=s.likes, reposts=s.reposts, comments=s.comments
            )
            for s in series
        ],
    )
