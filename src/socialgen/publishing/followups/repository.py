"""Follow-up rows: what the creator asked for (`PostFollowup`) and each one's state
under a publication (`FollowupPublication`). The claim's statements are in
repository_claim.py. Every function takes the caller's session and never commits."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import delete, update
from sqlmodel import Session, col, select

from socialgen.store.tables import (
    FollowupPublication,
    FollowupState,
    PostFollowup,
    Publication,
    PublicationState,
)


def followup(session: Session, post_id: str, kind: str) -> PostFollowup | None:
    return session.exec(
        select(PostFollowup).where(
            col(PostFollowup.post_id) == post_id, col(PostFollowup.kind) == kind
        )
    ).first()


def of_posts(session: Session, post_ids: Sequence[str]) -> list[PostFollowup]:
    """The follow-ups of these posts, in no particular order."""
    if not post_ids:
        return []
    return list(
        session.exec(select(PostFollowup).where(col(PostFollowup.post_id).in_(list(post_ids))))
    )


def states_of(session: Session, followup_ids: Sequence[str]) -> list[FollowupPublication]:
    """Every state row of these follow-ups."""
    if not followup_ids:
        return []
    return list(
        session.exec(
            select(FollowupPublication).where(
                col(FollowupPublication.followup_id).in_(list(followup_ids))
            )
        )
    )


def live_publications(session: Session, post_id: str) -> list[Publication]:
    """The post's published publications that the network gave an id (the ones a
    follow-up can go under)."""
    return list(
        session.exec(
            select(Publication).where(
                col(Publication.post_id) == post_id,
                col(Publication.state) == PublicationState.PUBLISHED,
                col(Publication.remote_id).is_not(None),
            )
        )
    )


def queued_under(session: Session, followup_id: str) -> set[str]:
    """The publications this follow-up has a state row under."""
    return set(
        session.exec(
            select(FollowupPublication.publication_id).where(
                col(FollowupPublication.followup_id) == followup_id
            )
        )
    )


def requeue_unsettled(session: Session, followup_id: str, now: datetime) -> int:
    """`--retry`: the follow-up's failed and unknown rows queued again, from attempt 1,
    due now; what an unknown one sent stays (`sent_text`, `maybe_live_since`), so the
    retry sends that text and, where the network can, looks for it first."""
    result = session.connection().execute(
        update(FollowupPublication)
        .where(
            col(FollowupPublication.followup_id) == followup_id,
            col(FollowupPublication.state).in_([FollowupState.FAILED, FollowupState.UNKNOWN]),
        )
        .values(
            state=FollowupState.QUEUED,
            due_at=now,
            attempts=0,
            next_attempt_at=None,
            first_attempt_at=None,
            message="",
            updated_at=now,
        )
    )
    return int(getattr(result, "rowcount", 0) or 0)


def busy(session: Session, followup_id: str) -> bool:
    """Whether a worker is posting the follow-up somewhere right now."""
    return (
        session.exec(
            select(FollowupPublication.id).where(
                col(FollowupPublication.followup_id) == followup_id,
                col(FollowupPublication.state) == FollowupState.PUBLISHING,
            )
        ).first()
        is not None
    )


def remove(session: Session, followup_id: str) -> None:
    """The follow-up and its state rows (the foreign key cascades on PostgreSQL; SQLite
    without the pragma would not, so the rows go first)."""
    session.connection().execute(
        delete(FollowupPublication).where(col(FollowupPublication.followup_id) == followup_id)
    )
    session.connection().execute(delete(PostFollowup).where(col(PostFollowup.id) == followup_id))
