"""What the queue shows: each queue's posts in slot order with where they go, and
the slots left free between them (a gap a removal left)."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session

from socialgen.kit.clock import iso, utcnow
from socialgen.publishing.outbox.service import publication_view
from socialgen.publishing.queue import repository
from socialgen.publishing.queue.placement import LEAD, Placing, placing, taken
from socialgen.publishing.queue.schemas import QueuedPost, QueueView
from socialgen.publishing.queue.service import queue_view, queues
from socialgen.publishing.queue.slots import occurrences, slot_at
from socialgen.store.tables import Publication, SocialAccount

DEFAULT_LIMIT = 50
MAX_LIMIT = 1000
MAX_GAP_DAYS = 7 * 520  # how far the free slots between posts are looked for


def queue_listing(
    session: Session,
    workspace_id: str,
    *,
    account_ref: str | None = None,
    limit: int = DEFAULT_LIMIT,
    now: datetime | None = None,
) -> list[QueueView]:
    """Each queue (the workspace's first), its next `limit` posts."""
    moment = now or utcnow()
    found = []
    for queue in queues(session, workspace_id, account_ref):
        head = queue_view(session, queue, moment)
        place = placing(session, queue)
        entries = repository.standing_entries(session, queue.id, limit=limit)
        rows = repository.publications_of(session, [post.id for _, post in entries])
        by_post: dict[str, list[tuple[Publication, SocialAccount]]] = {}
        for publication, account in sorted(rows, key=lambda row: _asked(row[0])):
            by_post.setdefault(publication.post_id, []).append((publication, account))
        posts = []
        for entry, post in entries:
            slot = slot_at(place.slots, place.zone, entry.due_at)
            posts.append(
                QueuedPost(
                    postId=post.id,
                    at=iso(entry.due_at),
                    slot=slot.label if slot else "",
                    content=post.content,
                    publications=[publication_view(*row) for row in by_post.get(post.id, [])],
                )
            )
        last = entries[-1][0].due_at if entries else None
        free = _gaps(session, place, moment, last) if last is not None else []
        found.append(QueueView(**head.model_dump(), posts=posts, freeAt=[iso(m) for m in free]))
    return found


def _gaps(session: Session, place: Placing, now: datetime, last: datetime) -> list[datetime]:
    """The free slot moments from now to the last listed post."""
    if not place.slots or last <= now:
        return []
    days = min((last - now).days + 2, MAX_GAP_DAYS)
    candidates = [m for m in occurrences(place.slots, place.zone, now, days) if m < last]
    held = taken(session, place, candidates)
    return [moment for moment in candidates if moment not in held and moment > now + LEAD]


def _asked(publication: Publication) -> tuple[datetime, int]:
    """The order the accounts were asked for (outbox: the first account's URL is the
    post's)."""
    position = (publication.options or {}).get("position", 0)
    return (publication.created_at, position if isinstance(position, int) else 0)
