"""What the faces show of follow-ups: under each publication (`posts publications`,
GET .../publications), and per follow-up (`posts first-comment`, GET .../followups).

A follow-up with no state row under a publication yet is shown as `waiting`: the post
is not live there (a first comment), or has not had the likes (a plug)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlmodel import Session

from socialgen.kit.clock import iso
from socialgen.posts.service import get_post
from socialgen.publishing.followups import repository
from socialgen.publishing.followups.schemas import (
    FIRST_COMMENT,
    PLUG,
    FollowupsData,
    FollowupStateView,
    FollowupView,
)
from socialgen.publishing.outbox.schemas import PublicationView
from socialgen.publishing.outbox.service import post_publications, publication_view
from socialgen.store.tables import FollowupKind, FollowupPublication, PostFollowup

FACE_KIND = {FollowupKind.FIRST_COMMENT: FIRST_COMMENT, FollowupKind.TAKEOFF_REPLY: PLUG}
STORE_KIND = {face: store for store, face in FACE_KIND.items()}


def with_followups(session: Session, views: Sequence[PublicationView]) -> list[PublicationView]:
    """The publications' views, each with its post's follow-ups under it."""
    followups = repository.of_posts(session, list({view.postId for view in views}))
    if not followups:
        return list(views)
    states = _states(session, followups)
    shown = []
    for view in views:
        under = [
            _state_view(followup, view, states.get((followup.id, view.id)))
            for followup in sorted(followups, key=lambda f: f.kind)
            if followup.post_id == view.postId
        ]
        shown.append(view.model_copy(update={"followups": under}))
    return shown


def followups_data(session: Session, workspace_id: str, post_id: str) -> FollowupsData:
    """The post's first comment and plug, each with its state under every publication."""
    post = get_post(session, workspace_id, post_id)
    followups = repository.of_posts(session, [post.id])
    states = _states(session, followups)
    publications = [
        publication_view(p, a) for p, a in post_publications(session, workspace_id, post.id)
    ]
    found: dict[str, FollowupView] = {}
    for followup in followups:
        found[followup.kind] = FollowupView(
            id=followup.id,
            postId=followup.post_id,
            kind=FACE_KIND[FollowupKind(followup.kind)],
            text=followup.text,
            delaySeconds=followup.delay_seconds
            if followup.kind == FollowupKind.FIRST_COMMENT
            else None,
            afterLikes=followup.like_threshold,
            createdAt=iso(followup.created_at),
            updatedAt=iso(followup.updated_at),
            publications=[
                _state_view(followup, view, states.get((followup.id, view.id)))
                for view in publications
            ],
        )
    return FollowupsData(
        postId=post.id,
        firstComment=found.get(FollowupKind.FIRST_COMMENT),
        plug=found.get(FollowupKind.TAKEOFF_REPLY),
    )


def _states(
    session: Session, followups: Sequence[PostFollowup]
) -> dict[tuple[str, str], FollowupPublication]:
    rows = repository.states_of(session, [followup.id for followup in followups])
    return {(row.followup_id, row.publication_id): row for row in rows}


def _state_view(
    followup: PostFollowup, publication: PublicationView, row: FollowupPublication | None
) -> FollowupStateView:
    kind = FACE_KIND[FollowupKind(followup.kind)]
    if row is None:
        return FollowupStateView(
            id=None,
            kind=kind,
            publicationId=publication.id,
            network=publication.network,
            account=publication.account,
            state="waiting",
            dueAt=None,
            attempts=0,
            nextAttemptAt=None,
            remoteId=None,
            url=None,
            message=_waiting(followup),
            postedAt=None,
        )
    return FollowupStateView(
        id=row.id,
        kind=kind,
        publicationId=publication.id,
        network=publication.network,
        account=publication.account,
        state=row.state,
        dueAt=iso(row.due_at),
        attempts=row.attempts,
        nextAttemptAt=iso(row.next_attempt_at),
        remoteId=row.remote_id,
        url=row.remote_url,
        message=row.message,
        postedAt=iso(row.posted_at),
    )


def _waiting(followup: PostFollowup) -> str:
    if followup.kind == FollowupKind.TAKEOFF_REPLY:
        return f"posted once this publication has {followup.like_threshold} likes"
    delay = followup.delay_seconds
    after = "" if not delay else f" {_duration(delay)}"
    return f"posted{after} after the post is live here"


def _duration(seconds: int) -> str:
    if seconds % 86400 == 0:
        return f"{seconds // 86400} d"
    if seconds % 3600 == 0:
        return f"{seconds // 3600} h"
    if seconds % 60 == 0:
        return f"{seconds // 60} min"
    return f"{seconds} s"
