"""Publication rows: the statements the outbox's service, worker, passes, dry runs
and media build on (the claim's are in repository_claim.py, the metrics' in
repository_metrics.py). Every function takes the caller's session (it may run SQL on
the session's connection) and never commits."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, update
from sqlmodel import Session, col, select

from socialgen.kit.clock import utcnow
from socialgen.store.tables import (
    Carousel,
    CarouselSlide,
    Post,
    PostStatus,
    Publication,
    PublicationState,
    SocialAccount,
)


def with_accounts(session: Session, post_id: str) -> list[tuple[Publication, SocialAccount]]:
    """A post's publications with their accounts, in no particular order."""
    return list(
        session.exec(
            select(Publication, SocialAccount)
            .join(SocialAccount, col(SocialAccount.id) == col(Publication.account_id))
            .where(col(Publication.post_id) == post_id)
        ).all()
    )


def with_accounts_by_ids(
    session: Session, ids: Sequence[str]
) -> list[tuple[Publication, SocialAccount]]:
    """These publications with their accounts, in no particular order."""
    return list(
        session.exec(
            select(Publication, SocialAccount)
            .join(SocialAccount, col(SocialAccount.id) == col(Publication.account_id))
            .where(col(Publication.id).in_(list(ids)))
        ).all()
    )


def by_ids(session: Session, ids: Sequence[str]) -> list[Publication]:
    return list(session.exec(select(Publication).where(col(Publication.id).in_(list(ids)))).all())


def of_post(session: Session, post_id: str) -> list[Publication]:
    """A post's publications, in no particular order."""
    return list(session.exec(select(Publication).where(col(Publication.post_id) == post_id)))


def by_account(
    session: Session, post_id: str, account_ids: Sequence[str]
) -> dict[str, Publication]:
    """The post's publications to these accounts, by account id."""
    return {
        publication.account_id: publication
        for publication in session.exec(
            select(Publication).where(
                col(Publication.post_id) == post_id,
                col(Publication.account_id).in_(list(account_ids)),
            )
        ).all()
    }


def move_queued(session: Session, post_id: str, due_at: datetime) -> int:
    """A rescheduled post: its queued publications follow it."""
    result = session.connection().execute(
        update(Publication)
        .where(
            col(Publication.post_id) == post_id,
            col(Publication.state) == PublicationState.QUEUED,
        )
        .values(due_at=due_at, next_attempt_at=None, updated_at=utcnow())
    )
    return int(getattr(result, "rowcount", 0) or 0)


def drop_queued(session: Session, post_id: str) -> int:
    """An unscheduled post: what waited to go out does not. Publications already
    under way or done stay (they are the record of what the networks have)."""
    result = session.connection().execute(
        delete(Publication).where(
            col(Publication.post_id) == post_id,
            col(Publication.state) == PublicationState.QUEUED,
        )
    )
    return int(getattr(result, "rowcount", 0) or 0)


def settle_alone(
    session: Session, post_id: str, url: str, account: SocialAccount, now: datetime
) -> None:
    """service.settle_post for a post with one publication, just recorded as published: one
    UPDATE, which does nothing if another publication of the post appeared meanwhile
    and is not published (its recorder settles the post then)."""
    others = (
        select(Publication.id)
        .where(
            col(Publication.post_id) == post_id,
            col(Publication.state) != PublicationState.PUBLISHED,
        )
        .exists()
    )
    values: dict[str, Any] = {
        "status": PostStatus.PUBLISHED,
        "published_at": now,
        "timeline_at": now,  # Post.place_on_timeline for a published post
        "social_account_name": (account.display_name or account.handle)[:200],
        "social_account_email": account.email or None,
        "updated_at": now,
    }
    if url:
        values["post_url"] = url
    session.connection().execute(
        update(Post).where(col(Post.id) == post_id, ~others).values(**values)
    )


def lock_post(session: Session, post_id: str) -> None:
    """Take the post's row lock (PostgreSQL; SQLite's write transaction is already
    exclusive) before touching its publications: always post first, then
    publication, so two recorders never wait on each other in a circle."""
    session.exec(select(Post.id).where(col(Post.id) == post_id).with_for_update()).first()


def carousel_of(session: Session, workspace_id: str, post_id: str) -> Carousel | None:
    """The carousel a post carries (its media), if any."""
    return session.exec(
        select(Carousel).where(
            col(Carousel.workspace_id) == workspace_id,
            col(Carousel.post_id) == post_id,
        )
    ).first()


def first_slides(session: Session, carousel_id: str, limit: int) -> list[CarouselSlide]:
    """The carousel's first `limit` slides, in order."""
    return list(
        session.exec(
            select(CarouselSlide)
            .where(col(CarouselSlide.carousel_id) == carousel_id)
            .order_by(col(CarouselSlide.position))
            .limit(limit)
        ).all()
    )
