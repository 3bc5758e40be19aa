"""The time a post is scheduled for: an ISO 8601 moment, or "best", the next free
moment of a best slot chosen from the workspace's own history (insights.suggest)."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Session

from socialgen.clock import parse_iso
from socialgen.errors import BadRequest

BEST = "best"


def parse_at(text: str) -> datetime | None:
    """The moment `text` names, or None for "best" (decided with the store open)."""
    if text.strip().lower() == BEST:
        return None
    try:
        return parse_iso(text)
    except ValueError:
        raise BadRequest(
            f'Not an ISO 8601 time: {text!r} (e.g. 2026-12-01T09:00:00Z, or "best")'
        ) from None


def resolve_at(
    session: Session, workspace_id: str, post_id: str, at: datetime | None, tz: str | None
) -> datetime:
    """`at`, or for "best" (None) the best free moment: the post must exist first, and
    a workspace with too little history is told how many more posts it needs."""
    if at is not None:
        return at
    from socialgen.insights.suggest import best_time
    from socialgen.posts.service import get_post

    get_post(session, workspace_id, post_id)
    return best_time(session, workspace_id, tz, post_id=post_id)
