"""Follow-ups: a first comment posted under a post once it is live, and a reply (a
plug) posted under it once it passes a number of likes. Setting, removing and
queueing them; posting them is worker.py's. Never commits: the caller's transaction
does.

A follow-up gets a state row under a publication (`FollowupPublication`, queued) when
it is due there: a first comment when the publication goes live (`queue_on_live`,
called in the transaction that records it, so none is missed) or, set later, at
once under every publication already live; a plug when the metrics poll reads
enough likes on that publication (`queue_takeoff`). The unique (follow-up,
publication) pair makes either happen once.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlmodel import Session

from socialgen.kit.clock import utcnow
from socialgen.kit.errors import BadRequest, NotFound, SocialgenError
from socialgen.kit.text_check import shows_nothing, text_problem
from socialgen.posts.service import get_post
from socialgen.publishing.followups import repository, repository_claim
from socialgen.publishing.followups.schemas import DELAY, LIKES, MAX_FOLLOWUP_CHARS
from socialgen.store.tables import FollowupKind, PostFollowup

NAMES = {FollowupKind.FIRST_COMMENT: "first comment", FollowupKind.TAKEOFF_REPLY: "plug"}


def first_comment_of(session: Session, workspace_id: str, post_id: str) -> str | None:
    """The post's first comment, if it has one (previews show it)."""
    found = repository.followup(session, post_id, FollowupKind.FIRST_COMMENT)
    return found.text if found is not None and found.workspace_id == workspace_id else None


def followup_text(text: str, kind: str) -> str:
    """The text to keep, or a 400 naming what is wrong with it."""
    name = NAMES.get(FollowupKind(kind), "follow-up").capitalize()
    kept = (text or "").strip()
    if shows_nothing(kept):
        raise BadRequest(f"{name}: the text is required")
    if (problem := text_problem(kept, f"The {name.lower()}")) is not None:
        raise BadRequest(problem)
    if len(kept) > MAX_FOLLOWUP_CHARS:
        raise BadRequest(
            f"{name}: {len(kept)} characters, more than the {MAX_FOLLOWUP_CHARS} a follow-up "
            "may have"
        )
    return kept


def set_first_comment(
    session: Session,
    workspace_id: str,
    post_id: str,
    text: str,
    delay_seconds: int = 0,
    *,
    retry: bool = False,
    now: datetime | None = None,
) -> PostFollowup:
    """Give the post a first comment (or a new text or delay). It goes under every
    publication once it is live, `delay_seconds` later; under those live already, that
    long from now. Those posted already stay as they are; with `retry`, the failed and
    unknown ones are queued again."""
    moment = now or utcnow()
    kept = followup_text(text, FollowupKind.FIRST_COMMENT)
    DELAY.check(delay_seconds)
    post = get_post(session, workspace_id, post_id)
    repository_claim.lock_post(session, post.id)  # against a publication going live now
    found = _upsert(session, workspace_id, post.id, FollowupKind.FIRST_COMMENT, kept, moment)
    found.delay_seconds = delay_seconds
    session.flush()
    due = moment + timedelta(seconds=delay_seconds)
    taken = repository.queued_under(session, found.id)
    for publication in repository.live_publications(session, post.id):
        if publication.id not in taken:
            repository_claim.insert_state(session, found, publication.id, due, moment)
    if retry:
        repository.requeue_unsettled(session, found.id, moment)
    return found


def set_plug(
    session: Session,
    workspace_id: str,
    post_id: str,
    text: str,
    after_likes: int,
    *,
    retry: bool = False,
    now: datetime | None = None,
) -> PostFollowup:
    """Give the post a take-off reply: posted once under each publication whose likes
    reach `after_likes` at a metrics reading (the next one, if they are there already)."""
    moment = now or utcnow()
    kept = followup_text(text, FollowupKind.TAKEOFF_REPLY)
    LIKES.check(after_likes)
    post = get_post(session, workspace_id, post_id)
    found = _upsert(session, workspace_id, post.id, FollowupKind.TAKEOFF_REPLY, kept, moment)
    found.like_threshold = after_likes
    session.flush()
    if retry:
        repository.requeue_unsettled(session, found.id, moment)
    return found


def retry_followup(
    session: Session, workspace_id: str, post_id: str, kind: str, now: datetime | None = None
) -> int:
    """Queue again the follow-up's failed and unknown posts (how many); a 404 when the
    post has none of this kind."""
    post = get_post(session, workspace_id, post_id)
    found = repository.followup(session, post.id, kind)
    if found is None:
        raise NotFound(f"The post has no {NAMES[FollowupKind(kind)]}: give its text to set one")
    return repository.requeue_unsettled(session, found.id, now or utcnow())


def remove_followup(session: Session, workspace_id: str, post_id: str, kind: str) -> bool:
    """Drop the post's follow-up of `kind` (what is live on the networks stays there);
    False when it had none. Refused while a worker is posting it."""
    post = get_post(session, workspace_id, post_id)
    found = repository.followup(session, post.id, kind)
    if found is None:
        return False
    if repository.busy(session, found.id):
        raise SocialgenError(
            f"The {NAMES[FollowupKind(kind)]} is being posted right now: wait for the answer "
            "(socialgen posts publications POST_ID), then remove it",
            status_code=409,
        )
    repository.remove(session, found.id)
    return True


def queue_on_live(session: Session, post_id: str, publication_id: str, now: datetime) -> None:
    """A publication just went live (worker.py of the outbox, in the transaction that
    records it): the post's first comment is queued under it, `delay_seconds` later."""
    found = repository.followup(session, post_id, FollowupKind.FIRST_COMMENT)
    if found is None:
        return
    repository_claim.lock_post(session, post_id)  # as set_first_comment does
    due = now + timedelta(seconds=found.delay_seconds)
    repository_claim.insert_state(session, found, publication_id, due, now)


def queue_takeoff(
    session: Session, post_id: str, publication_id: str, likes: int, now: datetime
) -> bool:
    """A metrics reading of a publication was stored (metrics.py of the outbox, in its
    transaction): past the plug's threshold, the plug is queued under it, once."""
    found = repository.followup(session, post_id, FollowupKind.TAKEOFF_REPLY)
    threshold = found.like_threshold if found is not None else None
    if found is None or threshold is None or likes < threshold:
        return False
    return repository_claim.insert_state(session, found, publication_id, now, now)


def _upsert(
    session: Session, workspace_id: str, post_id: str, kind: str, text: str, now: datetime
) -> PostFollowup:
    found = repository.followup(session, post_id, kind)
    if found is None:
        found = PostFollowup(workspace_id=workspace_id, post_id=post_id, kind=kind, text=text)
    found.text = text
    found.updated_at = now
    session.add(found)
    return found
