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
adapter may save a refreshed session meanwhile), within the pull's bounds
(networks/pull.py: a deadline, a page cap, a cursor that must move, answers capped in
size, and the caller still there). A pull its bounds stopped keeps what it read, and
its summary says why it stopped (`complete` false, `stopped`). Then everything is
written in one transaction, all or nothing, holding the account row (FOR UPDATE on PostgreSQL,
SQLite's write lock) so two pulls of one account at once cannot both create a post.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy import Engine
from sqlmodel import Session

from socialgen.kit.clock import DateOutOfRange, parse_iso, utcnow
from socialgen.kit.errors import BadRequest, NotFound
from socialgen.kit.ids import new_id
from socialgen.posts.import_dedup import content_key, known_posts
from socialgen.publishing.accounts.history_rows import insert_pulled
from socialgen.publishing.accounts.repository_history import (
    by_remote_id,
    hold_account,
    latest_counts,
    mark_read,
    set_post_counts,
)
from socialgen.publishing.accounts.schemas import HistorySummary
from socialgen.publishing.accounts.service import (
    ACCOUNT_NOT_FOUND,
    credentials_for,
    network_errors,
    recheck_service,
)
from socialgen.publishing.adapters import build_adapter
from socialgen.publishing.networks.base import HistoryReader, PastPost
from socialgen.publishing.networks.pull import AnswerTooLarge, Pull, PullLimits, PullStopped
from socialgen.publishing.registry import Networks
from socialgen.store.bulk import insert_rows, table_of
from socialgen.store.engine import transaction
from socialgen.store.tables import MetricSnapshot, SocialAccount

logger = logging.getLogger("socialgen.publishing")


@dataclass
class _Known:
    publication_id: str
    post_id: str
    parts: int  # posts of the thread socialgen published (1: a single post)
    latest: tuple[int, int, int] | None = None  # likes, reposts, comments last read


def parse_since(value: str | None) -> datetime | None:
    """`--since` / the body's `since`: an ISO 8601 date or time (UTC when it names no
    offset); None or blank means every post."""
    if value is None or not value.strip():
        return None
    try:
        since = parse_iso(value)
    except DateOutOfRange as error:
        raise BadRequest(f"since: {error}") from None
    except ValueError:
        raise BadRequest(
            f"since must be an ISO 8601 date or time, e.g. 2025-01-31 (got {value.strip()!r})"
        ) from None
    if since > utcnow():
        raise BadRequest(f"since is in the future ({value.strip()}): no post is that recent")
    return since


def pull_history(
    networks: Networks,
    engine: Engine,
    account: SocialAccount,
    since: datetime | None,
    pull: Pull | None = None,
) -> HistorySummary:
    """Read the account's posts from its network (its module in `networks`, the
    Runtime's) within `pull`'s bounds (default ones when not given) and store them.
    Call it outside any transaction. Network refusals come out as
    accounts.NetworkRefused / NetworkUnavailable (in the network's words, without a
    secret); a network that cannot read history as Forbidden."""
    pull = pull or Pull(PullLimits.of(networks.settings))
    recheck_service(networks, account)  # the guard again: DNS answers change
    secrets = credentials_for(account, networks.keys).secret.values()
    posts: list[PastPost] = []
    with pull.active(), network_errors(account.network, secrets):
        adapter = build_adapter(networks, engine, account)
        if not isinstance(adapter, HistoryReader):
            why = getattr(networks.module(account.network), "NO_HISTORY", "")
            raise BadRequest(
                f"socialgen cannot read past posts from {account.network}"
                + (f": {why}" if why else " yet")
            )
        try:
            for past in adapter.history(since, pull):
                posts.append(past)
        except (PullStopped, AnswerTooLarge) as bound:  # mid-answer: what came before stays
            pull.stop(bound.message)
    if pull.stopped is not None:
        logger.warning(
            "history of account %s stopped after %d posts: %s",
            account.id,
            len(posts),
            pull.stopped,
        )
    with transaction(engine) as session:
        summary = store_history(session, account.workspace_id, account.id, posts)
    summary.complete = pull.stopped is None
    summary.stopped = pull.stopped
    return summary


def store_history(
    session: Session, workspace_id: str, account_id: str, posts: Sequence[PastPost]
) -> HistorySummary:
    """Write what a pull read (see the module's note); never commits."""
    account = hold_account(session, account_id)
    if account is None or account.workspace_id != workspace_id:
        raise NotFound(ACCOUNT_NOT_FOUND.format(ref=account_id))  # removed meanwhile
    now = utcnow()
    known = _known(session, account_id, [post.remote_id for post in posts])
    summary = HistorySummary(
        accountId=account_id, fetched=len(posts), created=0, updated=0, skipped=0
    )
    moved: list[tuple[_Known, PastPost]] = []
    new: dict[str, PastPost] = {}
    for past in posts:
        found = known.get(past.remote_id)
        if found is None:
            if past.remote_id in new:
                summary.skipped += 1  # the network showed it twice
            else:
                new[past.remote_id] = past
            continue
        past = _without_own_thread(past, found)
        if found.latest == _counts(past):
            summary.skipped += 1  # unchanged, or the network showed it twice
            continue
        found.latest = _counts(past)
        moved.append((found, past))
        summary.updated += 1
    _write_updates(session, moved, now)
    fresh = _not_imported(session, workspace_id, list(new.values()))
    summary.skipped += len(new) - len(fresh)
    created, skipped = insert_pulled(session, account, fresh, now)
    summary.created += created
    summary.skipped += skipped
    logger.info(
        "history of account %s: %d fetched, %d created, %d updated",
        account_id,
        summary.fetched,
        summary.created,
        summary.updated,
    )
    return summary


def _not_imported(session: Session, workspace_id: str, pulled: list[PastPost]) -> list[PastPost]:
    """`pulled` without the posts a file import already brought in (`posts import`:
    the same address, or the same text and time to the second), which would otherwise
    count twice in insights."""
    if not pulled:
        return pulled
    known = known_posts(session, workspace_id)
    return [
        past
        for past in pulled
        if not known.seen(past.url or None, content_key(past.text.strip(), past.published_at))
    ]


def _known(session: Session, account_id: str, remote_ids: list[str]) -> dict[str, _Known]:
    """The account's publications among `remote_ids`, each with its latest counts."""
    found: dict[str, _Known] = {}
    for remote_id, publication_id, post_id, part_ids in by_remote_id(
        session, account_id, remote_ids
    ):
        if remote_id is not None:
            found[remote_id] = _Known(publication_id, post_id, len(part_ids or ()))
    by_publication = {entry.publication_id: entry for entry in found.values()}
    latest = latest_counts(session, list(by_publication))
    for publication_id, (_, likes, reposts, comments) in latest.items():
        by_publication[publication_id].latest = (likes, reposts, comments)
    return found


def _without_own_thread(past: PastPost, known: _Known) -> PastPost:
    """A thread socialgen wrote hangs its second part under the root as a reply: not a
    comment (networks/mastodon/adapter.py's metrics leave it out the same way)."""
    if known.parts < 2 or past.metrics.comments < 1:
        return past
    counts = replace(past.metrics, comments=past.metrics.comments - 1)
    return replace(past, metrics=counts)


def _counts(past: PastPost) -> tuple[int, int, int]:
    return past.metrics.likes, past.metrics.reposts, past.metrics.comments


def _write_updates(session: Session, moved: list[tuple[_Known, PastPost]], now: datetime) -> None:
    """New snapshots of known posts, their publications' reading time, and their posts'
    likes/comments columns: each published publication's latest snapshot, summed (as
    outbox/metrics.py keeps them). In bulk: a re-pull may move every post's counts."""
    if not moved:
        return
    snapshots = [
        {
            "id": new_id(),
            "publication_id": known.publication_id,
            "post_id": known.post_id,
            "taken_at": now,
            "likes": past.metrics.likes,
            "reposts": past.metrics.reposts,
            "comments": past.metrics.comments,
            "impressions": past.metrics.impressions,
        }
        for known, past in moved
    ]
    insert_rows(session.connection(), table_of(MetricSnapshot), snapshots)
    mark_read(session, [known.publication_id for known, _ in moved], now)
    post_ids = sorted({known.post_id for known, _ in moved})
    totals = dict.fromkeys(post_ids, (0, 0))
    latest = latest_counts(session, post_ids, published_posts=True)
    for post_id, likes, _, comments in latest.values():
        before = totals.get(post_id, (0, 0))
        totals[post_id] = (before[0] + likes, before[1] + comments)
    set_post_counts(session, totals)
